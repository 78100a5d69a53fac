import pLimit from 'p-limit';

/**
 * Work over many keys with few at a time: each distinct key done once, with
 * no more than `limit` pieces of work under way (p-limit's pool). The checks
 * of a manifest's files use it: however many items name however many files,
 * a bounded number of files is open at once, and a file named by many items
 * is read once.
 */
export async function eachOnce<K, V>(keys: Iterable<K>, limit: number, work: (key: K) => Promise<V>): Promise<Map<K, V>> {
  const unique = [...new Set(keys)];
  const values = await pLimit(Math.max(1, limit)).map(unique, (key) => work(key));
  return new Map(unique.map((key, i) => [key, values[i]!]));
}

/**
 * Work over many keys with few at a time: each distinct key done once, by
 * `limit` workers that each take the next key in turn, so no promise waits
 * per key and no more than `limit` pieces of work are under way. The checks
 * of a manifest's files use it: however many items name however many files,
 * a bounded number of files is open at once, and a file named by many items
 * is read once.
 */
export async function eachOnce<K, V>(keys: Iterable<K>, limit: number, work: (key: K) => Promise<V>): Promise<Map<K, V>> {
  const done = new Map<K, V>();
  const todo = new Set(keys).values();
  const worker = async (): Promise<void> => {
    for (let next = todo.next(); !next.done; next = todo.next()) done.set(next.value, await work(next.value));
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  return done;
}

/**
 * A function's answers kept by key, for work that costs more than a lookup (an Intl formatter is
 * about a millisecond to make) and is asked again and again in one command. Kept small: a
 * long-lived process (vidpub mcp) may be asked about any number of keys, so past `limit` entries
 * the memory is emptied and starts again.
 */
export function boundedMemo<A extends unknown[], V>(limit: number, keyOf: (...args: A) => string, make: (...args: A) => V): (...args: A) => V {
  const answers = new Map<string, V>();
  return (...args: A): V => {
    const key = keyOf(...args);
    if (answers.has(key)) return answers.get(key) as V;
    const value = make(...args);
    if (answers.size >= limit) answers.clear();
    answers.set(key, value);
    return value;
  };
}

/** "1 post", "2 posts", "? posts" (a count the service did not give): a number with its noun, singular for one. */
export function counted(n: unknown, noun: string, nouns = `${noun}s`): string {
  const known = typeof n === 'number' && Number.isFinite(n);
  return `${known ? n : '?'} ${n === 1 ? noun : nouns}`;
}

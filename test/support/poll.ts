/** Waiting in tests: a real pause, and polling until a condition holds. */

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls fn until pred holds (or fails after timeoutMs): every 10 ms at first, backing off
 * to every 150 ms, so that a long wait stays well inside the 60 reads per minute of a key.
 */
export async function waitFor<T>(fn: () => Promise<T> | T, pred: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let pause = 10;
  for (;;) {
    const v = await fn();
    if (pred(v)) return v;
    if (Date.now() > end) throw new Error(`waitFor timed out after ${timeoutMs} ms; last value: ${typeof v === 'string' ? `\n${v}` : JSON.stringify(v)}`);
    await sleep(pause);
    pause = Math.min(150, Math.round(pause * 1.5));
  }
}

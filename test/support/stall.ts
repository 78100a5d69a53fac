/**
 * How long this process could not run while a test waited: the sum of how late a 10 ms
 * interval timer fired. On a quiet machine it is a few milliseconds; on a loaded one (other
 * processes holding the cores), or while other work of this process held its event loop, it
 * is what a bound in real time must allow for, so that a test asserting "ends within its
 * deadline + 1 s" checks the command, not how busy the machine was.
 */
export async function withStall<T>(fn: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  const STEP = 10;
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs += Math.max(0, now - last - STEP);
    last = now;
  }, STEP);
  try {
    const value = await fn();
    const now = performance.now();
    stallMs += Math.max(0, now - last - STEP);
    return { value, stallMs };
  } finally {
    clearInterval(timer);
  }
}

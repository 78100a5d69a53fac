import type { Clock } from '../../src/cli/context.js';
import type { VidpubError } from '../../src/errors.js';

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<VidpubError> {
  try {
    await p;
  } catch (err) {
    return err as VidpubError;
  }
  throw new Error('expected a rejection');
}

/** A virtual clock: sleep advances time at once (exactly) and records the wait. */
export function virtualClock(start = Date.parse('2030-01-01T00:00:00Z')): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      sleeps.push(ms);
      now += ms;
    },
  };
}

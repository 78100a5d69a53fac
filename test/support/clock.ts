/** Clocks for the code under test (the Context's `clock`). */
import { onTestFinished, vi } from 'vitest';
import { realClock, type Clock } from '../../src/cli/context.js';

export interface VirtualClock extends Clock {
  /** Every sleep asked for, in ms. */
  readonly sleeps: number[];
  /** Moves time on by ms (and runs the timers due, with `timers`). */
  tick(ms: number): void;
}

/**
 * A clock that moves only when told: sleep(ms) returns at once, moving time
 * on by exactly ms and recording the wait; tick(ms) moves it on.
 *
 * `timers: true` also fakes setTimeout/setInterval and Date for the rest of
 * the test (for libraries that draw on timers of their own, such as a
 * spinner): tick(ms) then runs the timers due within ms.
 */
export function virtualClock(start = Date.parse('2030-01-01T00:00:00Z'), opts: { timers?: boolean } = {}): VirtualClock {
  let now = start;
  if (opts.timers) {
    vi.useFakeTimers({ now: start, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
  }
  const tick = (ms: number) => {
    now += ms;
    if (opts.timers) vi.advanceTimersByTime(ms);
  };
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    tick,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      sleeps.push(ms);
      tick(ms);
    },
  };
}

/**
 * A clock that runs `factor` times faster than real time: sleep(ms) really
 * waits ms/factor, and now() advances by factor for each real millisecond.
 */
export function scaledClock(factor: number): Clock {
  const start = Date.now();
  return {
    now: () => start + (Date.now() - start) * factor,
    sleep: (ms, signal) => realClock.sleep(ms / factor, signal),
  };
}

/** `clock` put `ms` ahead: a run that starts that much later, without waiting for it. */
export function aheadBy(clock: Clock, ms: number): Clock {
  return { now: () => clock.now() + ms, sleep: (wait, signal) => clock.sleep(wait, signal) };
}

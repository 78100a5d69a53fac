/** Clocks for the code under test (the Context's `clock`). */
import { onTestFinished, vi } from 'vitest';
import { DEFAULT_REQUEST_COMMAND_TIMEOUT } from '../../src/cli/commands/shared-flags.js';
import { realClock, type Clock } from '../../src/cli/run/context.js';
import { DEFAULT_TIMEOUT } from '../../src/session/wait-flags.js';
import { parseDuration } from '../../src/time/duration.js';
import { sleep, waitFor } from './poll.js';

/**
 * The sleeps of a command's default --timeout, as they begin: the deadline of a command that waits
 * (30m) and the budget of one that only makes requests (me, destinations...: 2m). A clock moved on
 * while a run sleeps (tickWhileAllAsleep) leaves them out, or it would run them out.
 */
export const DEFAULT_DEADLINES_MS: readonly number[] = [parseDuration(DEFAULT_TIMEOUT), parseDuration(DEFAULT_REQUEST_COMMAND_TIMEOUT)];

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

/**
 * Real time, with every sleep `factor` times shorter than asked: a run's looks at a video
 * processing come sooner, while its now stays the emulator's (a time it sends, such as a schedule
 * exactly a limit ahead, is measured by both from the same now, however long the run takes).
 */
export function shortWaits(factor: number): Clock {
  return { now: () => Date.now(), sleep: (ms, signal) => realClock.sleep(ms / factor, signal) };
}

/** `clock` put `ms` ahead: a run that starts that much later, without waiting for it. */
export function aheadBy(clock: Clock, ms: number): Clock {
  return { now: () => clock.now() + ms, sleep: (wait, signal) => clock.sleep(wait, signal) };
}

export interface ManualClock extends Clock {
  /** The sleeps not yet over, in ms as asked for. */
  pending(): number[];
  /** The sleeps not yet over but those of `ignoreMs` (the runs' deadlines): how many, and how long until the first of them ends. */
  asleep(ignoreMs?: number[]): { count: number; next?: number };
  /** Moves time on by ms: the sleeps that fall due end (in the order they fall due). */
  tick(ms: number): void;
}

/**
 * A clock that stands still until the test moves it: sleep(ms) ends only once
 * tick() has moved time past it (or its signal aborts). A test stages a race on
 * it by waiting for the event that matters (a request in the emulator's log, a
 * sleep begun), then moving time, so a loaded machine changes nothing.
 */
export function manualClock(start = Date.parse('2030-01-01T00:00:00Z')): ManualClock {
  let now = start;
  const sleeping = new Set<{ due: number; ms: number; end: () => void }>();
  return {
    now: () => now,
    pending: () => [...sleeping].map((s) => s.ms),
    asleep(ignoreMs = []) {
      const dues = [...sleeping].filter((s) => !ignoreMs.includes(s.ms)).map((s) => s.due);
      return { count: dues.length, ...(dues.length > 0 ? { next: Math.max(0, Math.min(...dues) - now) } : {}) };
    },
    tick(ms: number) {
      now += ms;
      for (const s of [...sleeping].sort((a, b) => a.due - b.due)) if (s.due <= now) s.end();
    },
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
          return;
        }
        const entry = {
          due: now + ms,
          ms,
          end: () => {
            sleeping.delete(entry);
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          sleeping.delete(entry);
          reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleeping.add(entry);
      }),
  };
}

/**
 * Runs out a command's `--timeout` of `deadlineMs` on a manual clock in the wait
 * that matters: once `reached()` holds (the emulator's log shows the read the
 * wait makes, say) and the command sleeps on something other than its deadline,
 * the clock moves by the whole deadline. However slow the machine, the time is
 * up in that wait, never during the work before it. With `meanwhile`, the
 * command's other sleeps before that point (its looks at a video processing)
 * are ended one by one as they begin, each moving the clock by its own length:
 * give a deadline far longer than those. With `inFlight`, the wait that matters
 * is a request the service never answers (no sleep of the command's own): the
 * time is up as soon as `reached()` holds.
 */
export async function timeUpWhen(
  clock: ManualClock,
  deadlineMs: number,
  reached: () => Promise<boolean>,
  opts: { meanwhile?: boolean; inFlight?: boolean } = {},
): Promise<void> {
  await waitFor(
    async () => {
      const other = clock.pending().filter((ms) => ms !== deadlineMs);
      if (other.length === 0 && !opts.inFlight) return false;
      if (await reached()) return true;
      if (other.length === 0) return false;
      if (opts.meanwhile) clock.tick(Math.min(...other));
      return false;
    },
    (yes) => yes,
    60_000,
  );
  clock.tick(deadlineMs);
}

/**
 * Moves a manual clock as a simulation of events does: once each of the `running()` runs is asleep on it
 * (sleeps of `ignoreMs`, the runs' deadlines, aside), and still is 10 ms of real time later, to the end of the
 * first of those sleeps. Time passes only while every run waits on it, never while one of them works, so the runs
 * see the same minutes on a loaded machine as on a quiet one. Returns what stops it.
 */
export function tickWhileAllAsleep(clock: ManualClock, running: () => number, ignoreMs: number[] = []): () => void {
  let stopped = false;
  void (async () => {
    let seen = '';
    while (!stopped) {
      await sleep(10);
      const { count, next } = clock.asleep(ignoreMs);
      const runs = running();
      const now = `${runs}:${count}:${next}:${clock.now()}`;
      if (runs > 0 && count >= runs && next !== undefined && now === seen) {
        clock.tick(next);
        seen = '';
      } else seen = now;
    }
  })();
  return () => {
    stopped = true;
  };
}

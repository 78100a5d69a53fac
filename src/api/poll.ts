/**
 * Polling until something is done (media ready, every destination of a post
 * terminal): starts near 1 s and backs off to 5 s, every wait interruptible
 * (Ctrl-C -> InterruptedError, exit 130), an optional deadline -> TimeoutError
 * (exit 7). The client's pacing keeps each fetch within X-RateLimit-Remaining,
 * so polling never causes a 429 by itself.
 */
import type { Clock } from '../core/clock.js';
import { TimeoutError, type VidpubError } from '../errors.js';
import { formatDuration } from '../util/duration.js';
import { interruptibleSleep } from './retry.js';

export interface PollOptions<T> {
  /** One look at the thing (e.g. () => client.getMedia(id)). */
  fetch: () => Promise<T>;
  /** True when polling may stop. */
  done: (value: T) => boolean;
  /** Called with every value fetched (progress display). */
  onUpdate?: (value: T) => void;
  clock: Clock;
  signal?: AbortSignal;
  /** Absolute clock time (ms, as clock.now()) after which we stop waiting. */
  deadlineMs?: number;
  /** What we wait for, for the default timeout message ("media med_123 to be ready"). */
  what: string;
  /** Builds the error thrown at the deadline (default: a TimeoutError naming `what`). */
  onTimeout?: (last: T | undefined) => VidpubError;
  /** First interval (default 1000 ms). */
  initialIntervalMs?: number;
  /** Longest interval (default 5000 ms). */
  maxIntervalMs?: number;
  /** Growth factor per poll (default 1.5). */
  factor?: number;
}

/** The interval schedule: 1 s, 1.5 s, 2.25 s, … up to the maximum. */
export function nextInterval(current: number, opts: { factor?: number; maxIntervalMs?: number } = {}): number {
  return Math.min(opts.maxIntervalMs ?? 5000, Math.round(current * (opts.factor ?? 1.5)));
}

export async function poll<T>(opts: PollOptions<T>): Promise<T> {
  const { clock, signal, deadlineMs } = opts;
  const started = clock.now();
  let interval = opts.initialIntervalMs ?? 1000;
  let last: T | undefined;
  for (;;) {
    last = await opts.fetch();
    opts.onUpdate?.(last);
    if (opts.done(last)) return last;
    const now = clock.now();
    if (deadlineMs !== undefined && now >= deadlineMs) {
      throw (
        opts.onTimeout?.(last) ??
        new TimeoutError(`Stopped waiting for ${opts.what} after ${formatDuration(now - started)} (--timeout); it goes on at the service.`)
      );
    }
    // Never sleep past the deadline: one last look exactly at it.
    const wait = deadlineMs !== undefined ? Math.min(interval, Math.max(0, deadlineMs - now)) : interval;
    await interruptibleSleep(clock, wait, signal);
    interval = nextInterval(interval, opts);
  }
}

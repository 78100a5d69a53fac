/**
 * Polling until something is done (media ready, every destination of a post
 * terminal). Every wait is interruptible (Ctrl-C -> InterruptedError, exit
 * 130); an optional deadline -> TimeoutError (exit 7) carrying the last value
 * seen as `data`.
 *
 * When to look again:
 * - without a progress figure: 1 s, backing off by 1.5x to 5 s;
 * - with one (by default `value.progress.percent`): near the moment the
 *   percent and its rate say the work ends, a little after it, and in short,
 *   growing steps (from 100 ms) if the estimate was early — never more than the longest
 *   interval apart, so the display keeps moving;
 * - never sooner than a Retry-After the service sent (see `hints`);
 * - never faster than the read allowance allows: once fewer than a quarter of
 *   the reads of the minute are left (X-RateLimit-Remaining), the looks are
 *   spread evenly until the reset (X-RateLimit-Reset), so that several
 *   processes sharing a key do not run it dry.
 *
 * Trouble is ridden out: while waiting, a connection error, a 5xx or a 429
 * (after the client's own retries) is retried with capped, jittered backoff
 * (or its Retry-After) until the deadline. Only the deadline, the abort signal
 * or a definitive answer (404, 401/403, any other 4xx, the work failed) ends
 * the wait, and so does a stretch of `unansweredMs` in which the service did not answer at all
 * (a connection refused, reset or timed out): a service that is gone ends the wait in minutes,
 * not at a half-hour deadline. `onTrouble` hears of each change (the service stopped answering,
 * it answers again), so that a wait says so once, not once per try. A look still in flight when the deadline has passed is abandoned
 * shortly after it (`fetch` gets a signal that aborts then). That part is
 * `readThrough`, also used alone by waits with a schedule of their own (the
 * batch's).
 */
import { setLongTimeout, type Clock, type LongTimer } from '../../core/clock.js';
import { InterruptedError, RateLimitError, ServiceError, TimeoutError, VidpubError, isDeadline } from '../../errors.js';
import { formatDuration } from '../../time/duration.js';
import { responseMeta } from '../client.js';
import { DEFAULT_BACKOFF, backoffDelay, interruptibleSleep, type BackoffPolicy } from '../send/backoff.js';
import { ProgressEstimator, paceDelay, type PollHints } from './progress-estimate.js';
import { isUnanswered } from './unanswered.js';

/** How failed looks are ridden out: the same for a poll and for one value read through (readThrough). */
export interface RideOutOptions {
  /** Whether a failed look is trouble to ride out (default: isTransientError). */
  isTransient?: (err: unknown) => boolean;
  /** Called before waiting out a failed look (a notice, a debug line). */
  onRetry?: (err: unknown, waitMs: number) => void;
  /** Backoff of failed looks (default: 500 ms doubling to 8 s, jittered). */
  backoff?: BackoffPolicy;
  random?: () => number;
  /**
   * The longest stretch in which the service gives no answer at all (a connection refused, reset
   * or timed out: no HTTP status) before the wait stops; none by default. A 5xx or a 429 is an
   * answer: a service that answers "busy" is waited for until the deadline.
   */
  unansweredMs?: number;
  /**
   * Called when looks start failing (answered: false, with the failure) and when one gets a value
   * again after that (answered: true): a line per change of state, not per try.
   */
  onTrouble?: (change: { answered: boolean; err?: unknown }) => void;
}

export interface PollOptions<T> extends RideOutOptions {
  /**
   * One look at the thing (e.g. () => client.getMedia(id)). The signal, when
   * used, aborts the look once the deadline has passed by LAST_LOOK_GRACE_MS
   * (and on the caller's signal).
   */
  fetch: (look: { signal: AbortSignal }) => Promise<T>;
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
  /** Builds the error thrown at the deadline (default: a TimeoutError naming `what`, with the last value as data). */
  onTimeout?: (last: T | undefined) => VidpubError;
  /** First interval (default 1000 ms). */
  initialIntervalMs?: number;
  /**
   * The interval after the first, from which the growth goes on (default: the first times
   * `factor`). Shorter than the first: a wait whose end is unknown looks first when the work
   * may have ended, then more closely while a short piece of work would end, then further apart.
   */
  secondIntervalMs?: number;
  /** Longest interval (default 5000 ms). */
  maxIntervalMs?: number;
  /** Growth factor per poll (default 1.5). */
  factor?: number;
  /**
   * Shortest interval between two looks, except for a Retry-After or the allowance (default 200 ms,
   * and 100 ms for the first look after an estimate that proved early).
   */
  minIntervalMs?: number;
  /**
   * The value's progress in percent (0–100), or undefined. Default: the
   * value's `progress.percent` when it is a number. A percent lower than the
   * one before starts a new phase (uploading 100% -> processing 0%).
   */
  progressOf?: (value: T) => number | undefined;
  /**
   * What the caller knows of how long the work takes (a WorkTimer: how long the same work took
   * last time). Its `expectedEndAt` (absolute clock ms) is used like a progress estimate while
   * the values give none; it is told of every look (`seen`), so it can learn from this wait.
   */
  timer?: PollTimer;
  /**
   * Metadata of the last response: Retry-After, the read allowance. By default
   * the metadata the client attached to the last record (responseMeta).
   */
  hints?: () => PollHints | undefined;
  /** A value already in hand (e.g. the response that started the work): shown, and the first look waits an interval. */
  initial?: T;
  /** The error after `unansweredMs` with no answer, given the last value seen (default: a TimeoutError saying so, with it as data). */
  onUnanswered?: (last: T | undefined, err: unknown, stretchMs: number) => VidpubError;
}

/** See PollOptions.timer. */
export interface PollTimer {
  readonly expectedEndAt?: number;
  seen?(at: number, finished: boolean): void;
}

/** How long a look may run past the deadline before it is abandoned. */
export const LAST_LOOK_GRACE_MS = 750;
/** The shortest wait between two looks when no Retry-After or allowance says more. */
const AFTER_ESTIMATE_MS = 200;
/**
 * After an estimate proved early: the next look after this, growing by
 * `factor` (100, 150, 225 ms…). A remembered duration or a progress estimate
 * is usually early by little, so the first step is short: the wait notices
 * the end soon after it, at the cost of a read or two when it is early by much.
 */
const LATE_FIRST_MS = 100;
/** A look lands this long after the estimated end (the work's own timer and the request's way). */
const ESTIMATE_MARGIN_MS = 60;

/** The interval schedule: 1 s, 1.5 s, 2.25 s, … up to the maximum. */
export function nextInterval(current: number, opts: { factor?: number; maxIntervalMs?: number } = {}): number {
  return Math.min(opts.maxIntervalMs ?? 5000, Math.round(current * (opts.factor ?? 1.5)));
}

/**
 * Trouble a wait rides out: a connection error (not a certificate or TLS
 * failure), a 5xx, a 429 (not the daily allowance), a timeout of one request,
 * an unreadable 2xx. Everything else (404, 401/403, other 4xx, work failed,
 * an interrupt, a bug) is a definitive answer.
 */
export function isTransientError(err: unknown): boolean {
  if (err instanceof InterruptedError) return false;
  if (err instanceof RateLimitError) return err.code !== 'daily_post_limit';
  if (err instanceof ServiceError) {
    const status = err.http?.status;
    if (status === undefined) return true;
    if (status === 0) {
      const code = String((err.cause as { code?: unknown } | undefined)?.code ?? '');
      return !/CERT|TLS|SELF_SIGNED|ALTNAME/.test(code);
    }
    return status >= 500 || status === 429 || status === 408 || status < 400;
  }
  return false;
}

/** Seconds a failed look asked us to wait (Retry-After), when it said. */
function retryAfterOf(err: unknown): number | undefined {
  if (err instanceof RateLimitError && err.retryAfterSec !== undefined) return err.retryAfterSec;
  return err instanceof VidpubError ? err.http?.retryAfterSec : undefined;
}

function defaultProgress(value: unknown): number | undefined {
  const p = (value as { progress?: { percent?: unknown } } | null | undefined)?.progress?.percent;
  return typeof p === 'number' && Number.isFinite(p) ? Math.max(0, Math.min(100, p)) : undefined;
}

/**
 * When to look next after a value: the growing interval, or near the end the
 * progress (or the caller's expected end) points to; never sooner than a
 * Retry-After, never faster than the read allowance.
 */
class LookPlanner<T> {
  readonly #estimator = new ProgressEstimator();
  #interval: number;
  /** Looks made since the estimate said "done by now". */
  #lateSteps = 0;
  /** Values noted so far. */
  #looks = 0;

  constructor(
    private readonly opts: PollOptions<T>,
    private readonly o: { maxMs: number; minMs: number; lateMs: number; factor: number; progressOf: (value: T) => number | undefined },
  ) {
    this.#interval = opts.initialIntervalMs ?? 1000;
  }

  /** Notes a value seen at `t`; returns how long to wait before the next look. */
  after(t: number, value: T): number {
    this.#estimator.note(t, this.o.progressOf(value));
    const { maxMs, minMs, factor } = this.o;
    let ms = this.#interval;
    const second = this.#looks++ === 0 ? this.opts.secondIntervalMs : undefined;
    this.#interval = second !== undefined ? Math.min(maxMs, second) : nextInterval(this.#interval, { factor, maxIntervalMs: maxMs });
    const end = this.#estimator.endAt() ?? this.opts.timer?.expectedEndAt;
    if (end !== undefined) {
      const toEnd = end - this.opts.clock.now();
      if (toEnd > 0) {
        ms = Math.min(Math.max(toEnd + ESTIMATE_MARGIN_MS, minMs), maxMs);
        this.#lateSteps = 0;
      } else {
        // The estimated end has come and the work is not done: early. Look again soon, a little later each time.
        ms = Math.min(maxMs, Math.round(this.o.lateMs * factor ** this.#lateSteps++));
      }
    }
    const hints = this.opts.hints ? this.opts.hints() : responseMeta(value);
    if (hints?.retryAfterSec !== undefined) ms = Math.max(ms, hints.retryAfterSec * 1000);
    return Math.round(Math.max(ms, paceDelay(hints?.rateLimit)));
  }
}

export async function poll<T>(opts: PollOptions<T>): Promise<T> {
  const { clock, signal, deadlineMs } = opts;
  const started = clock.now();
  const minMs = opts.minIntervalMs ?? AFTER_ESTIMATE_MS;
  const planner = new LookPlanner(opts, { maxMs: opts.maxIntervalMs ?? 5000, minMs, lateMs: opts.minIntervalMs ?? LATE_FIRST_MS, factor: opts.factor ?? 1.5, progressOf: opts.progressOf ?? defaultProgress });
  let lastError: unknown;
  let last: T | undefined = opts.initial;
  let wait = 0;

  if (opts.initial !== undefined) {
    opts.onUpdate?.(opts.initial);
    if (opts.done(opts.initial)) return opts.initial;
    wait = planner.after(started, opts.initial);
  }

  function timeout(now: number): VidpubError {
    if (opts.onTimeout) return opts.onTimeout(last);
    const trouble = lastError instanceof Error ? ` The last look failed: ${lastError.message}` : '';
    return new TimeoutError(`Stopped waiting for ${opts.what} after ${formatDuration(now - started)} (--timeout); it goes on at the service.${trouble}`, {
      data: last,
      cause: lastError,
    });
  }

  /** Stopped by the signal: the command's deadline (its reason says so) is a timeout with the last record; anything else is Ctrl-C. */
  const stopped = (err: unknown): VidpubError => {
    if (isDeadline(signal)) return timeout(clock.now());
    return err instanceof InterruptedError ? err : new InterruptedError('Interrupted.', { cause: err });
  };

  for (;;) {
    if (wait > 0) await sleepWithin({ clock, wait, deadlineMs, signal, stopped });
    const value = await readThrough<T>({
      fetch: opts.fetch,
      clock,
      signal,
      deadlineMs,
      minIntervalMs: minMs,
      isTransient: opts.isTransient,
      onRetry: opts.onRetry,
      backoff: opts.backoff,
      random: opts.random,
      onDeadline: (err) => {
        lastError = err;
        return timeout(clock.now());
      },
      onStopped: stopped,
      unansweredMs: opts.unansweredMs,
      onTrouble: opts.onTrouble,
      onUnanswered: (err, ms) =>
        opts.onUnanswered?.(last, err, ms) ??
        new TimeoutError(`The service has not answered for ${formatDuration(ms)}: stopped waiting for ${opts.what}; it goes on at the service. The last look failed: ${err instanceof Error ? err.message : String(err)}`, {
          data: last,
          cause: err,
        }),
    });
    last = value;
    const finished = opts.done(value);
    opts.timer?.seen?.(clock.now(), finished);
    opts.onUpdate?.(value);
    if (finished) return value;
    const now = clock.now();
    if (deadlineMs !== undefined && now >= deadlineMs) throw timeout(now);
    wait = planner.after(now, value);
  }
}

export interface ReadThroughOptions<T> extends RideOutOptions {
  /** One look (see PollOptions.fetch): its signal aborts LAST_LOOK_GRACE_MS after the deadline, and with `signal`. */
  fetch: (look: { signal: AbortSignal }) => Promise<T>;
  clock: Clock;
  signal?: AbortSignal;
  /** Absolute clock time (ms) after which a failed look is not tried again. */
  deadlineMs?: number;
  /** Shortest wait after a failed look that named its Retry-After (default 200 ms). */
  minIntervalMs?: number;
  /**
   * The error thrown when the deadline has passed and the look failed (or was
   * abandoned): given the last failure of this read (undefined when its only
   * look was abandoned).
   */
  onDeadline: (lastError: unknown) => VidpubError;
  /** The error thrown when `signal` stopped the read (default: what stopped it, as thrown). */
  onStopped?: (err: unknown) => unknown;
  /** The error thrown after `unansweredMs` with no answer (default: the last failure, as thrown). */
  onUnanswered?: (err: unknown, stretchMs: number) => unknown;
}

/**
 * One value, riding out trouble: looks, and while a look fails with
 * transient trouble (isTransientError: 5xx, 429, a connection error, a
 * request timeout), waits its Retry-After or a capped, jittered backoff (never
 * past the deadline: one last look at it) and looks again. Ends with the
 * value, a definitive error as thrown, `onDeadline` once the deadline has
 * passed, or `onStopped` when the signal aborts. `poll` reads each of its
 * values through it; a caller with a schedule of its own (the batch) can
 * read through it too.
 */
export async function readThrough<T>(opts: ReadThroughOptions<T>): Promise<T> {
  const { clock, signal, deadlineMs } = opts;
  const minMs = opts.minIntervalMs ?? AFTER_ESTIMATE_MS;
  const isTransient = opts.isTransient ?? isTransientError;
  const stopped = (err: unknown) => (opts.onStopped ? opts.onStopped(err) : err);
  let troubles = 0;
  let lastError: unknown;
  /** When the service stopped answering at all (clock ms), while it has not answered since. */
  let silentSince: number | undefined;
  for (;;) {
    try {
      const value = await lookWithin(opts.fetch, clock, signal, deadlineMs);
      if (troubles > 0) opts.onTrouble?.({ answered: true });
      return value;
    } catch (err) {
      if (signal?.aborted) throw stopped(err);
      const now = clock.now();
      if (deadlineMs !== undefined && now >= deadlineMs && (isTransient(err) || err instanceof InterruptedError)) {
        throw opts.onDeadline(err instanceof InterruptedError ? lastError : err);
      }
      if (!isTransient(err)) throw err;
      if (troubles === 0) opts.onTrouble?.({ answered: false, err });
      if (isUnanswered(err)) {
        silentSince ??= now;
        if (opts.unansweredMs !== undefined && now - silentSince >= opts.unansweredMs) {
          throw opts.onUnanswered ? opts.onUnanswered(err, now - silentSince) : err;
        }
      } else {
        silentSince = undefined;
      }
      lastError = err;
      const after = retryAfterOf(err);
      const wait = after !== undefined ? Math.max(after * 1000, minMs) : backoffDelay(troubles, opts.backoff ?? DEFAULT_BACKOFF, opts.random);
      troubles++;
      opts.onRetry?.(err, wait);
      await sleepWithin({ clock, wait, deadlineMs, signal, stopped });
    }
  }
}

/** Sleeps `wait` ms, never past the deadline (one last look exactly at it); a stop by the signal throws `stopped(err)`. */
async function sleepWithin(o: { clock: Clock; wait: number; deadlineMs: number | undefined; signal: AbortSignal | undefined; stopped: (err: unknown) => unknown }): Promise<void> {
  const { clock, wait, deadlineMs, signal, stopped } = o;
  try {
    await interruptibleSleep(clock, deadlineMs !== undefined ? Math.min(wait, Math.max(0, deadlineMs - clock.now())) : wait, signal);
  } catch (err) {
    if (signal?.aborted) throw stopped(err);
    throw err;
  }
}

/** One look, abandoned LAST_LOOK_GRACE_MS after the deadline (real time: the look itself runs in real time). */
async function lookWithin<T>(fetch: (look: { signal: AbortSignal }) => Promise<T>, clock: Clock, signal: AbortSignal | undefined, deadlineMs: number | undefined): Promise<T> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timer: LongTimer | undefined;
  try {
    const pending = fetch({ signal: ac.signal });
    if (deadlineMs === undefined) return await pending;
    const left = Math.max(0, deadlineMs - clock.now()) + LAST_LOOK_GRACE_MS;
    const expired = new Promise<never>((_, reject) => {
      timer = setLongTimeout(() => {
        ac.abort();
        reject(new InterruptedError('The look at the deadline took too long.'));
      }, left).unref();
    });
    return await Promise.race([pending, expired]);
  } finally {
    timer?.clear();
    signal?.removeEventListener('abort', onAbort);
  }
}

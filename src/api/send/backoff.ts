/**
 * Retry timing: capped, jittered exponential backoff for failures, the
 * Retry-After header, and the interruptible wait (with a countdown on a TTY)
 * used for rate limits.
 */
import type { Clock } from '../../core/clock.js';
import { InterruptedError, TimeoutError, isDeadline, type VidpubError } from '../../errors.js';
import { formatDuration } from '../../time/duration.js';

export interface BackoffPolicy {
  /** Delay before the first retry (ms). */
  baseMs: number;
  /** Largest delay (ms). */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, capMs: 8_000 };

/**
 * Delay before retry number `retry` (0 for the first retry): base·2^retry,
 * capped, with "equal jitter" (half fixed, half random) so that many clients
 * failing at once do not come back at once.
 */
export function backoffDelay(retry: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, retry));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** Retry-After as seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v));
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, Math.ceil((t - now) / 1000));
}

/** True when an error is an abort (AbortSignal), from undici, timers or our own sleep. */
export function isAbortError(err: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  const name = (err as { name?: unknown } | undefined)?.name;
  const code = (err as { code?: unknown } | undefined)?.code;
  return name === 'AbortError' || code === 'ABORT_ERR' || code === 'UND_ERR_ABORTED';
}

/**
 * The error for work stopped by `signal`: TimeoutError (exit 7) when the
 * command's deadline aborted it, InterruptedError (Ctrl-C, exit 130) otherwise.
 */
export function stoppedError(signal: AbortSignal | undefined, cause?: unknown): VidpubError {
  if (isDeadline(signal)) return new TimeoutError('Stopped: the --timeout of the command was reached.', { cause });
  return new InterruptedError('Interrupted.', cause === undefined ? {} : { cause });
}

/** Sleeps on the clock; an abort becomes InterruptedError (exit 130), or TimeoutError at the deadline (exit 7). */
export async function interruptibleSleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw stoppedError(signal);
  try {
    await clock.sleep(ms, signal);
  } catch (err) {
    if (isAbortError(err, signal)) throw stoppedError(signal, err);
    throw err;
  }
}

/**
 * Where the client's notices (retries, rate-limit waits) go: a callback, so
 * the client never writes to a stream itself. The CLI hands one bound to
 * stderr (src/ui/notices.ts); a server or a test hands its own.
 */
export interface NoticeSink {
  /** A notice on a line of its own. */
  line(text: string): void;
  /** Rewrites one status line in place (a countdown; '' clears it). Absent where output is not a terminal. */
  status?(text: string): void;
}

/** Drops every notice (--quiet). */
export const silentNotices: NoticeSink = { line() {} };

/**
 * Waits `ms`, telling the user why: `message(remainingText)` is printed once
 * (pipe) or rewritten each second as a countdown (TTY), then the line is
 * cleared. Interruptible.
 */
export async function waitWithNotice(opts: {
  clock: Clock;
  ms: number;
  signal?: AbortSignal;
  sink: NoticeSink;
  message: (remaining: string) => string;
}): Promise<void> {
  const { clock, sink, signal } = opts;
  const ms = Math.max(0, opts.ms);
  const status = sink.status?.bind(sink);
  if (!status) {
    sink.line(opts.message(formatDuration(ms)));
    return interruptibleSleep(clock, ms, signal);
  }
  const end = clock.now() + ms;
  const write = status;
  try {
    for (;;) {
      const left = end - clock.now();
      if (left <= 0) break;
      write(opts.message(formatDuration(left)));
      // Tick on the second boundary of the remaining time so the display counts down evenly.
      const step = left % 1000 || 1000;
      await interruptibleSleep(clock, Math.min(step, left), signal);
    }
  } finally {
    write('');
  }
}

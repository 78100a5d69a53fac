/**
 * Retry timing: capped, jittered exponential backoff for failures, the
 * Retry-After header, and the interruptible wait (with a countdown on a TTY)
 * used for rate limits.
 */
import type { Writable } from 'node:stream';
import type { Clock } from '../cli/context.js';
import { InterruptedError } from '../errors.js';
import { formatDuration } from '../util/duration.js';

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

/** Sleeps on the clock; an abort becomes InterruptedError (exit 130). */
export async function interruptibleSleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw new InterruptedError('Interrupted.');
  try {
    await clock.sleep(ms, signal);
  } catch (err) {
    if (isAbortError(err, signal)) throw new InterruptedError('Interrupted.', { cause: err });
    throw err;
  }
}

export interface NoticeSink {
  /** Whether notices are shown at all (false with --quiet). */
  enabled: boolean;
  /** stderr is a terminal: a countdown may rewrite its line. */
  tty: boolean;
  stream: Writable;
}

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
  if (!sink.enabled) return interruptibleSleep(clock, ms, signal);
  if (!sink.tty) {
    sink.stream.write(opts.message(formatDuration(ms)) + '\n');
    return interruptibleSleep(clock, ms, signal);
  }
  const end = clock.now() + ms;
  const write = (text: string) => sink.stream.write(`\r\u001b[2K${text}`);
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

/**
 * A 429 from the service: waited out per Retry-After within --max-wait
 * (daily_post_limit only with --wait-for-quota), or told as RateLimitError.
 * What to do is decided by decideRateLimit (retry-decision.ts); this does it.
 */
import type { Clock } from '../../core/clock.js';
import { InterruptedError, RateLimitError, sanitize } from '../../errors.js';
import { describeRelative, describeWall } from '../../time/describe.js';
import { formatDuration } from '../../time/duration.js';
import { resolveTimeZone } from '../../time/zones.js';
import { waitWithNotice, type NoticeSink } from './backoff.js';
import { errorFromResponse, header, parseErrorBody, type ResponseInfo } from './http-errors.js';
import { decideRateLimit } from './retry-decision.js';

/**
 * Ctrl-C (or a signal) during the wait of --wait-for-quota: the 429 was the service's answer, so
 * nothing more was sent. `resetAt` lets a flow retell it with what it had done (post, publish).
 */
export class QuotaWaitInterrupted extends InterruptedError {
  constructor(
    readonly resetAt: string | undefined,
    when: string,
    cause: unknown,
  ) {
    super(`Interrupted while waiting for the daily post allowance to reset at ${when} (--wait-for-quota); nothing more was sent.`, {
      hint: 'Run the command again after the reset, or again with --wait-for-quota to wait for it.',
      cause,
    });
  }
}

export interface RateLimitedAnswer {
  info: ResponseInfo;
  /** Rate-limit waits so far that count against --max-wait. */
  waitedMs: number;
  signal: AbortSignal;
  /** What the request does ("create a post"), for the message. */
  action?: string;
  clock: Clock;
  sink: NoticeSink;
  maxWaitMs: number;
  waitForQuota: boolean;
  /** The jitter's random source. */
  random: () => number;
}

/** Waits the 429 out (returns the ms waited that count against --max-wait) or throws RateLimitError. */
export async function waitOutRateLimit(r: RateLimitedAnswer): Promise<number> {
  const { info } = r;
  const parsed = parseErrorBody(info.bodyText, header(info.headers, 'content-type'));
  const code = parsed.code ?? 'rate_limited';
  const now = r.clock.now();
  const decision = decideRateLimit({ code, retryAfterSec: info.retryAfterSec, resetAt: parsed.resetAt, now, waitedMs: r.waitedMs, maxWaitMs: r.maxWaitMs, waitForQuota: r.waitForQuota, random: r.random });
  if (decision.action === 'fail' && decision.reason === 'daily') {
    throw new RateLimitError(`The daily post allowance is used up (daily_post_limit); it resets ${resetPhrase(decision.resetAt, now, describeRelative)}.`, {
      http: errorFromResponse(info).http,
      code,
      retryAfterSec: info.retryAfterSec,
      resetAt: decision.resetAt,
      hint: "Run again after the reset, or add --wait-for-quota to wait for it (scheduling with --at spends today's allowance too).",
    });
  }
  if (decision.action === 'fail') {
    const base = errorFromResponse(info, { action: r.action });
    const already = r.waitedMs > 0 ? ` after waiting ${formatDuration(r.waitedMs)}` : '';
    throw new RateLimitError(
      `Rate limited (${code})${already}: the service asks to wait ${formatDuration(decision.waitMs)}, more than --max-wait (${formatDuration(r.maxWaitMs)}) allows. ${parsed.message ? sanitize(parsed.message) : ''}`.trim(),
      {
        http: base.http,
        code,
        retryAfterSec: info.retryAfterSec,
        resetAt: parsed.resetAt,
        hint: `Try again in ${formatDuration(decision.waitMs)}, or raise --max-wait.`,
      },
    );
  }
  const when = resetPhrase(decision.resetAt, now, describeWall);
  const waiting = waitWithNotice({
    clock: r.clock,
    ms: decision.ms,
    signal: r.signal,
    sink: r.sink,
    message: decision.daily
      ? decision.resetAt === undefined
        ? (left) => `Daily post allowance used up and the service gave no reset time; asking again in ${left} (--wait-for-quota)…`
        : // What changes each second first: a narrow terminal cuts the end of the line.
          (left) => `Allowance used up, waiting for the reset: ${left} left (daily posts, at ${when}; --wait-for-quota)…`
      : (left) => `Rate limited (${code}); retrying in ${left}…`,
  });
  if (!decision.daily) {
    await waiting;
    return decision.counted ?? decision.ms;
  }
  try {
    await waiting;
  } catch (err) {
    throw err instanceof InterruptedError ? new QuotaWaitInterrupted(decision.resetAt, when, err) : err;
  }
  return 0;
}

/** The reset time in the zone of this machine, in the one human form (or a shorter part of it). */
function resetPhrase(iso: string | undefined, now: number, form: (ms: number, zone: string, now: number) => string): string {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? 'at the next reset' : form(ms, resolveTimeZone(undefined, {}), now);
}

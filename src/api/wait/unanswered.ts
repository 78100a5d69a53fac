/**
 * A service that gives no answer at all while a wait looks (a connection refused, reset or timed
 * out: no HTTP status), as against one that answers "busy" (a 5xx, a 429): the first ends the wait
 * after --unanswered-timeout, the second is waited for until --timeout (poll.ts, readThrough).
 */
import { RateLimitError, ServiceError } from '../../errors.js';
import { formatDuration } from '../../time/duration.js';

/** Whether a failure is no answer at all (no HTTP status): a connection refused, reset or timed out. */
export function isUnanswered(err: unknown): boolean {
  if (!(err instanceof ServiceError) || err instanceof RateLimitError) return false;
  const status = err.http?.status;
  return status === undefined || status === 0;
}

/** The stretch of no answer after which a wait of the CLI stops by default (--unanswered-timeout). */
export const DEFAULT_UNANSWERED_MS = 120_000;

/** The line a wait says once when its looks start failing (onTrouble): what failed, and for how long it goes on. */
export function troubleLine(err: unknown, unansweredMs: number): string {
  const what = err instanceof Error ? err.message : String(err);
  return isUnanswered(err)
    ? `The service is not answering (${what}); trying again for up to ${formatDuration(unansweredMs)}.`
    : `The service is in trouble (${what}); trying again until --timeout.`;
}

/**
 * When a write's outcome is open: it may have reached the service and been
 * done without our hearing. The request sender follows this per attempt
 * (uncertainAfter) and, when the write fails, tells it as OutcomeUnknownError
 * instead of a refusal (unknownOutcome).
 */
import { OutcomeUnknownError, RateLimitError, TimeoutError, VidpubError, isDeadline } from '../errors.js';

/** Whether the outcome is open after an answer with this status (and error code), given whether it was before. */
export function uncertainAfter(status: number, code: string | undefined, was: boolean): boolean {
  // 409 idempotency_key_in_use: a request with this key is still being handled.
  if (status === 409 && code === 'idempotency_key_in_use') return true;
  // A gateway's 502/504: it may have passed the request on, and the service may have handled it.
  if (status === 502 || status === 504) return true;
  // Any other 4xx but a 429 is definitive; a 429 or another 5xx says nothing of an earlier attempt.
  if (status < 500 && status !== 429) return false;
  return was;
}

export interface FailedWrite {
  /** Whether an earlier attempt may have reached the service with nothing definitive since. */
  uncertain: boolean;
  signal: AbortSignal;
  /** "POST /v1/posts" */
  request: string;
  /** What the request does ("create a post"). */
  action?: string;
}

/**
 * A write's failure as OutcomeUnknownError when the service may have handled
 * it without our hearing: an earlier attempt got no answer (or the same
 * request is still in flight), and nothing definitive came since. Undefined
 * when the failure says nothing was done (a 4xx, no connection at all).
 */
export function unknownOutcome(err: unknown, w: FailedWrite): OutcomeUnknownError | undefined {
  if (!w.uncertain || err instanceof OutcomeUnknownError) return undefined;
  const status = err instanceof VidpubError ? err.http?.status : undefined;
  const inFlight = status === 409 && err instanceof VidpubError && err.http?.code === 'idempotency_key_in_use';
  // A per-minute 429 comes before the Idempotency-Key is looked at: it refuses this attempt only, and an
  // earlier one may have been done. The operation's own 429s (daily_post_limit, imports_in_flight) come after
  // it, where an earlier attempt that was done would have been replayed: those are refusals.
  const code = err instanceof RateLimitError ? err.code : err instanceof VidpubError ? err.http?.code : undefined;
  const beforeKey = status === 429 && code !== 'daily_post_limit' && code !== 'imports_in_flight';
  if (status !== undefined && status >= 400 && status < 500 && !beforeKey && !inFlight) return undefined;
  const gateway = status === 502 || status === 504;
  const reason: OutcomeUnknownError['reason'] =
    isDeadline(w.signal) || err instanceof TimeoutError ? 'deadline' : w.signal.aborted ? 'interrupt' : inFlight ? 'in-flight' : gateway ? 'gateway' : 'network';
  const what = `${w.request}${w.action ? ` (${w.action})` : ''}`;
  const unknown = new OutcomeUnknownError(`The outcome of ${what} is unknown`, {
    request: w.request,
    reason,
    cause: err,
    http: err instanceof VidpubError ? err.http : undefined,
  });
  return unknown.retold(`The outcome of ${what} is unknown: ${unknown.why}; it may have been done.`, {});
}

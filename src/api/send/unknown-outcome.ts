/**
 * When a write's outcome is open: it may have reached the service and been
 * done without our hearing. The request sender follows this per attempt
 * (uncertainAfter) and, when the write fails, tells it as OutcomeUnknownError
 * instead of a refusal (unknownOutcome). An answer that is not the service's
 * word (service-word.ts) leaves it open, whatever its status.
 */
import { OutcomeUnknownError, RateLimitError, TimeoutError, VidpubError, isDeadline } from '../../errors.js';

/** One answer as the outcome rule reads it. */
export interface AnswerRead {
  status: number;
  /** The error code, when the service's error body gave one. */
  code?: string;
  /** The answer is the service's word (service-word.ts); a redirect is neither. */
  fromService: boolean;
}

/** Whether the outcome is open after this answer, given whether it was before. */
export function uncertainAfter(a: AnswerRead, was: boolean): boolean {
  if (a.status >= 300 && a.status < 400) return was;
  // Not the service's word (a gateway's 502/504, a load balancer's page, a WAF's 403): it may have passed the
  // request on, and the service may have handled it.
  if (!a.fromService) return true;
  // 409 idempotency_key_in_use: a request with this key is still being handled.
  if (a.status === 409 && a.code === 'idempotency_key_in_use') return true;
  // The service's refusal (any 4xx but a 429) is definitive; a 429 or a 5xx of its own says nothing of an earlier attempt.
  if (a.status < 500 && a.status !== 429) return false;
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
 * when the failure says nothing was done (a 4xx in the service's own words, no connection at all).
 */
export function unknownOutcome(err: unknown, w: FailedWrite): OutcomeUnknownError | undefined {
  if (!w.uncertain || err instanceof OutcomeUnknownError) return undefined;
  const status = err instanceof VidpubError ? err.http?.status : undefined;
  // An answer that was not the service's word refuses nothing, whatever its status.
  const foreign = err instanceof VidpubError && err.http?.foreign !== undefined;
  const inFlight = status === 409 && err instanceof VidpubError && err.http?.code === 'idempotency_key_in_use';
  // A per-minute 429 comes before the Idempotency-Key is looked at: it refuses this attempt only, and an
  // earlier one may have been done. The operation's own 429s (daily_post_limit, imports_in_flight) come after
  // it, where an earlier attempt that was done would have been replayed: those are refusals.
  const code = err instanceof RateLimitError ? err.code : err instanceof VidpubError ? err.http?.code : undefined;
  const beforeKey = status === 429 && code !== 'daily_post_limit' && code !== 'imports_in_flight';
  if (status !== undefined && status >= 400 && status < 500 && !beforeKey && !inFlight && !foreign) return undefined;
  const reason = reasonOf(err, w.signal, { inFlight, foreign, gateway: status === 502 || status === 504 });
  const what = `${w.request}${w.action ? ` (${w.action})` : ''}`;
  const unknown = new OutcomeUnknownError(`The outcome of ${what} is unknown`, {
    request: w.request,
    reason,
    cause: err,
    http: err instanceof VidpubError ? err.http : undefined,
  });
  return unknown.retold(`The outcome of ${what} is unknown: ${unknown.why}; it may have been done.`, {});
}

function reasonOf(err: unknown, signal: AbortSignal, seen: { inFlight: boolean; foreign: boolean; gateway: boolean }): OutcomeUnknownError['reason'] {
  if (isDeadline(signal) || err instanceof TimeoutError) return 'deadline';
  if (signal.aborted) return 'interrupt';
  if (seen.inFlight) return 'in-flight';
  if (seen.gateway) return 'gateway';
  return seen.foreign ? 'not-the-service' : 'network';
}

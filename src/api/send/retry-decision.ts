/**
 * What to do after one HTTP attempt, decided without any I/O (as stripe-node's
 * RequestSender._shouldRetry): the client feeds in what happened and its
 * counters, and carries out the answer (sleep, follow, wait, throw).
 */

/** What one attempt ended with. */
export type AttemptOutcome =
  | { kind: 'network'; retryable: boolean }
  | {
    kind: 'response';
    status: number;
    /** The error code of the service's error body (none when the answer was not the service's). */
    code?: string;
    retryAfterSec?: number;
    /** The answer is the service's word (service-word.ts): only then does its code mean anything. */
    fromService: boolean;
  };

/** Retries spent so far on one logical request. */
export interface RetryCounters {
  /** Connection errors, timeouts and 5xx retried. */
  retries: number;
  /** 409 idempotency_key_in_use retried (the first request is still being handled). */
  inUseRetries: number;
}

export interface RetryLimits {
  maxRetries: number;
  maxInUseRetries: number;
}

export type RetryDecision =
  | { action: 'accept' }
  | { action: 'redirect' }
  | { action: 'rate-limited' }
  /** Sleep (a backoff step, or `delayMs` when the service said how long) and send again. */
  | { action: 'retry'; counter: keyof RetryCounters; delayMs?: number }
  | { action: 'fail' };

/**
 * A wait for a counter's reset (X-RateLimit-Reset, a per-minute 429's Retry-After, the key queue's
 * turn) ends up to this much after it, at random: the runs that share a key (other processes, other
 * machines, CI jobs) come back spread over it, never all at the reset instant.
 */
export const RESET_JITTER_MS = 1_500;

/** `ms` plus the random part of a wait for a reset: in [ms, ms + RESET_JITTER_MS]; `random` in [0, 1). */
export function afterReset(ms: number, random: () => number): number {
  return Math.max(0, Math.round(ms)) + Math.round(Math.min(1, Math.max(0, random())) * RESET_JITTER_MS);
}

/** The longest a 5xx's Retry-After is honoured before the next attempt. */
export const MAX_SERVER_RETRY_AFTER_MS = 60_000;

export function decideAfterAttempt(outcome: AttemptOutcome, counters: RetryCounters, limits: RetryLimits): RetryDecision {
  if (outcome.kind === 'network') {
    return outcome.retryable && counters.retries < limits.maxRetries ? { action: 'retry', counter: 'retries' } : { action: 'fail' };
  }
  const { status } = outcome;
  if (status >= 200 && status < 300) return { action: 'accept' };
  if (status >= 300 && status < 400) return { action: 'redirect' };
  if (status === 429) return { action: 'rate-limited' };
  if (status === 409 && outcome.fromService && outcome.code === 'idempotency_key_in_use' && counters.inUseRetries < limits.maxInUseRetries) {
    return { action: 'retry', counter: 'inUseRetries' };
  }
  if (status >= 500 && counters.retries < limits.maxRetries) {
    const delayMs = outcome.retryAfterSec !== undefined ? Math.min(outcome.retryAfterSec * 1000, MAX_SERVER_RETRY_AFTER_MS) : undefined;
    return { action: 'retry', counter: 'retries', delayMs };
  }
  return { action: 'fail' };
}

/** A 429 as the client sees it. */
export interface RateLimitInput {
  /** The error body's code: daily_post_limit, rate_limited… */
  code: string;
  retryAfterSec?: number;
  /** The body's reset_at (ISO), when it gave one. */
  resetAt?: string;
  now: number;
  /** Already waited out for this request (ms). */
  waitedMs: number;
  /** --max-wait (ms). */
  maxWaitMs: number;
  /** --wait-for-quota. */
  waitForQuota: boolean;
  /** The random source of the jitter (Math.random; a test's own). */
  random: () => number;
}

export type RateLimitDecision =
  /** `counted`: what the wait counts against --max-wait (Retry-After, without the random part). */
  | { action: 'wait'; ms: number; daily: boolean; resetAt?: string; counted?: number }
  | { action: 'fail'; reason: 'daily'; resetAt?: string }
  | { action: 'fail'; reason: 'too-long'; waitMs: number };

/**
 * The 429 policy: the daily allowance fails at once unless --wait-for-quota
 * (then sleeps to just past the reset); a per-minute limit is waited out per
 * Retry-After (at least 1 s) plus a random part (afterReset), while Retry-After
 * stays within --max-wait.
 */
export function decideRateLimit(r: RateLimitInput): RateLimitDecision {
  if (r.code === 'daily_post_limit') {
    const resetMs = r.resetAt ? Date.parse(r.resetAt) : NaN;
    const resetAt = !Number.isNaN(resetMs) ? r.resetAt : r.retryAfterSec !== undefined ? new Date(r.now + r.retryAfterSec * 1000).toISOString() : undefined;
    if (!r.waitForQuota) return { action: 'fail', reason: 'daily', resetAt };
    const ms = resetAt ? Math.max(1000, Date.parse(resetAt) - r.now + 1000) : Math.max(1000, (r.retryAfterSec ?? 60) * 1000);
    return { action: 'wait', ms, daily: true, resetAt };
  }
  const waitMs = Math.max(1, r.retryAfterSec ?? 1) * 1000;
  if (r.waitedMs + waitMs > r.maxWaitMs) return { action: 'fail', reason: 'too-long', waitMs };
  return { action: 'wait', ms: afterReset(waitMs, r.random), counted: waitMs, daily: false };
}

/**
 * The client's retry and 429 policy as pure decisions: what happened in, what
 * to do out, no I/O (the client's HTTP behaviour is tested over real HTTP in
 * http-client.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { afterReset, decideAfterAttempt, decideRateLimit, MAX_SERVER_RETRY_AFTER_MS, RESET_JITTER_MS, type RetryCounters } from '../../src/api/send/retry-decision.js';

const LIMITS = { maxRetries: 3, maxInUseRetries: 6 };
const fresh = (): RetryCounters => ({ retries: 0, inUseRetries: 0 });

describe('decideAfterAttempt', () => {
  test('2xx is accepted, 3xx followed, 429 handed to the rate-limit policy', () => {
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 201 }, fresh(), LIMITS)).toEqual({ action: 'accept' });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 307 }, fresh(), LIMITS)).toEqual({ action: 'redirect' });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 429, code: 'rate_limited' }, { retries: 3, inUseRetries: 6 }, LIMITS)).toEqual({ action: 'rate-limited' });
  });

  test('a retryable network error is retried until the retries are spent; any other fails at once', () => {
    expect(decideAfterAttempt({ kind: 'network', retryable: true }, fresh(), LIMITS)).toEqual({ action: 'retry', counter: 'retries' });
    expect(decideAfterAttempt({ kind: 'network', retryable: true }, { retries: 3, inUseRetries: 0 }, LIMITS)).toEqual({ action: 'fail' });
    expect(decideAfterAttempt({ kind: 'network', retryable: false }, fresh(), LIMITS)).toEqual({ action: 'fail' });
  });

  test('5xx is retried (Retry-After honoured up to a cap), then fails', () => {
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 503 }, fresh(), LIMITS)).toEqual({ action: 'retry', counter: 'retries', delayMs: undefined });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 503, retryAfterSec: 2 }, fresh(), LIMITS)).toEqual({ action: 'retry', counter: 'retries', delayMs: 2000 });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 500, retryAfterSec: 3600 }, fresh(), LIMITS)).toEqual({
      action: 'retry',
      counter: 'retries',
      delayMs: MAX_SERVER_RETRY_AFTER_MS,
    });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 502 }, { retries: 3, inUseRetries: 0 }, LIMITS)).toEqual({ action: 'fail' });
  });

  test('409 idempotency_key_in_use is retried on its own counter; other 409s and 4xx fail', () => {
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 409, code: 'idempotency_key_in_use' }, { retries: 3, inUseRetries: 0 }, LIMITS)).toEqual({
      action: 'retry',
      counter: 'inUseRetries',
    });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 409, code: 'idempotency_key_in_use' }, { retries: 0, inUseRetries: 6 }, LIMITS)).toEqual({ action: 'fail' });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 409, code: 'invalid_state' }, fresh(), LIMITS)).toEqual({ action: 'fail' });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 400, code: 'validation_error' }, fresh(), LIMITS)).toEqual({ action: 'fail' });
    expect(decideAfterAttempt({ kind: 'response', fromService: true, status: 404 }, fresh(), LIMITS)).toEqual({ action: 'fail' });
    // "still being handled" means something only in the service's own words
    expect(decideAfterAttempt({ kind: 'response', fromService: false, status: 409, code: 'idempotency_key_in_use' }, fresh(), LIMITS)).toEqual({ action: 'fail' });
  });
});

describe('decideRateLimit', () => {
  const now = Date.parse('2030-01-01T12:00:00Z');
  const base = { now, waitedMs: 0, maxWaitMs: 60_000, waitForQuota: false, random: () => 0 };

  test('a per-minute limit is waited out per Retry-After (at least 1 s) within --max-wait', () => {
    expect(decideRateLimit({ ...base, code: 'rate_limited', retryAfterSec: 7 })).toEqual({ action: 'wait', ms: 7000, counted: 7000, daily: false });
    expect(decideRateLimit({ ...base, code: 'rate_limited', retryAfterSec: 0 })).toEqual({ action: 'wait', ms: 1000, counted: 1000, daily: false });
    expect(decideRateLimit({ ...base, code: 'rate_limited' })).toEqual({ action: 'wait', ms: 1000, counted: 1000, daily: false });
  });

  test("a per-minute 429's wait ends at Retry-After plus a random part of at most RESET_JITTER_MS, never all at the reset instant", () => {
    const wait = (r: number) => decideRateLimit({ ...base, code: 'rate_limited', retryAfterSec: 7, random: () => r });
    expect(wait(0)).toEqual({ action: 'wait', ms: 7000, counted: 7000, daily: false });
    expect(wait(0.5)).toEqual({ action: 'wait', ms: 7000 + RESET_JITTER_MS / 2, counted: 7000, daily: false });
    expect(wait(0.999_999)).toEqual({ action: 'wait', ms: 7000 + RESET_JITTER_MS, counted: 7000, daily: false });
    // The jitter does not count against --max-wait: Retry-After alone is judged, and counted.
    expect(decideRateLimit({ ...base, code: 'rate_limited', retryAfterSec: 60, random: () => 0.999 })).toMatchObject({ action: 'wait', ms: 60_000 + 1499, counted: 60_000 });
    // 1,000 draws of a seeded source: every wait within the bounds, and spread over them.
    let seed = 42;
    const lcg = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const all = Array.from({ length: 1000 }, () => afterReset(7000, lcg));
    expect(Math.min(...all)).toBeGreaterThanOrEqual(7000);
    expect(Math.max(...all)).toBeLessThanOrEqual(7000 + RESET_JITTER_MS);
    expect(new Set(all.map((ms) => Math.min(9, Math.floor((ms - 7000) / 150)))).size).toBe(10);
    // A source out of its range is held to it.
    expect(afterReset(1000, () => 7)).toBe(1000 + RESET_JITTER_MS);
    expect(afterReset(1000, () => -1)).toBe(1000);
  });

  test('past --max-wait (counting what was already waited) it fails, saying how long the service asked', () => {
    expect(decideRateLimit({ ...base, code: 'rate_limited', retryAfterSec: 61 })).toEqual({ action: 'fail', reason: 'too-long', waitMs: 61_000 });
    expect(decideRateLimit({ ...base, code: 'imports_in_flight', retryAfterSec: 30, waitedMs: 40_000 })).toEqual({ action: 'fail', reason: 'too-long', waitMs: 30_000 });
  });

  test('the daily allowance fails at once with its reset time, unless --wait-for-quota', () => {
    const resetAt = '2030-01-02T00:00:00Z';
    expect(decideRateLimit({ ...base, code: 'daily_post_limit', resetAt })).toEqual({ action: 'fail', reason: 'daily', resetAt });
    // Without reset_at in the body, Retry-After gives the reset.
    expect(decideRateLimit({ ...base, code: 'daily_post_limit', retryAfterSec: 3600 })).toEqual({ action: 'fail', reason: 'daily', resetAt: '2030-01-01T13:00:00.000Z' });
    expect(decideRateLimit({ ...base, code: 'daily_post_limit', resetAt, waitForQuota: true })).toEqual({ action: 'wait', ms: 12 * 3600_000 + 1000, daily: true, resetAt });
  });
});

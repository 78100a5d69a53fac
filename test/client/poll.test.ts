import { describe, expect, test } from 'vitest';
import { isTransientError, poll, readThrough } from '../../src/api/wait/poll.js';
import { ProgressEstimator, paceDelay } from '../../src/api/wait/progress-estimate.js';
import { AuthError, ExitCode, InterruptedError, NotFoundError, RateLimitError, ServiceError, TimeoutError, UsageError, WorkFailedError } from '../../src/errors.js';
import { virtualClock } from '../support/clock.js';
import type { ClientMemory } from '../../src/api/client.js';
import { WorkTimer } from '../../src/api/wait/work-timer.js';

describe('poll', () => {
  test('fetches until done, reporting each value; intervals start at 1 s and back off to 5 s', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    const seen: number[] = [];
    const v = await poll({ fetch: async () => ++n, done: (x) => x === 8, onUpdate: (x) => seen.push(x), clock, what: 'x' });
    expect(v).toBe(8);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(clock.sleeps).toEqual([1000, 1500, 2250, 3375, 5000, 5000, 5000]);
  });

  test('secondIntervalMs: the interval after the first, from which the growth goes on (capped by maxIntervalMs)', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    await poll({ fetch: async () => ++n, done: (x) => x === 8, clock, what: 'x', initialIntervalMs: 1000, secondIntervalMs: 500, factor: 1.25 });
    expect(clock.sleeps).toEqual([1000, 500, 625, 781, 976, 1220, 1525]);
    const capped = virtualClock(1_000_000);
    let m = 0;
    await poll({ fetch: async () => ++m, done: (x) => x === 4, clock: capped, what: 'x', initialIntervalMs: 1000, secondIntervalMs: 9000, maxIntervalMs: 5000 });
    expect(capped.sleeps).toEqual([1000, 5000, 5000]);
  });

  test('secondIntervalMs counts from a value in hand: the first look after it waits the first interval', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    await poll({ initial: 0, fetch: async () => ++n, done: (x) => x === 3, clock, what: 'x', initialIntervalMs: 1000, secondIntervalMs: 500, factor: 1.25 });
    expect(clock.sleeps).toEqual([1000, 500, 625]);
  });

  test('secondIntervalMs gives way to an expected end: a remembered duration says when to look', async () => {
    const clock = virtualClock(1_000_000);
    const start = clock.now();
    let n = 0;
    await poll({
      initial: 0,
      fetch: async () => ++n,
      done: (x) => x === 1,
      clock,
      what: 'x',
      initialIntervalMs: 1000,
      secondIntervalMs: 500,
      factor: 1.25,
      timer: { expectedEndAt: start + 2000 },
    });
    expect(clock.sleeps).toEqual([2060]);
  });

  test('returns at once when the first value is done', async () => {
    const clock = virtualClock(1_000_000);
    expect(await poll({ fetch: async () => 'ready', done: (s) => s === 'ready', clock, what: 'media' })).toBe('ready');
    expect(clock.sleeps).toEqual([]);
  });

  test('the deadline: one last look exactly at it, then TimeoutError (exit 7) naming what we waited for', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    const p = poll({ fetch: async () => ++n, done: () => false, clock, what: 'media med_1 to be ready', deadlineMs: clock.now() + 3000 });
    await expect(p).rejects.toThrow(TimeoutError);
    await expect(p).rejects.toThrow(/^Stopped waiting for media med_1 to be ready after 3s \(--timeout\); it goes on at the service\.$/);
    expect(clock.sleeps).toEqual([1000, 1500, 500]);
    expect(n).toBe(4);
  });

  test('onTimeout builds the caller\'s error from the last value', async () => {
    const clock = virtualClock(1_000_000);
    const err: TimeoutError = await poll({
      fetch: async () => ({ status: 'processing' }),
      done: () => false,
      clock,
      what: 'x',
      deadlineMs: clock.now(),
      onTimeout: (last) => new TimeoutError(`still ${last?.status}`, { hint: 'Run vidpub status later.' }),
    }).then(
      () => {
        throw new Error('expected a timeout');
      },
      (e: unknown) => e as TimeoutError,
    );
    expect(err.message).toBe('still processing');
    expect(err.exitCode).toBe(ExitCode.TIMEOUT);
    expect(err.hint).toBe('Run vidpub status later.');
  });

  test('an abort during a wait: InterruptedError (exit 130)', async () => {
    const clock = virtualClock(1_000_000);
    const ac = new AbortController();
    const err = await poll({
      fetch: async () => {
        ac.abort();
        return 1;
      },
      done: () => false,
      clock,
      signal: ac.signal,
      what: 'x',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).exitCode).toBe(130);
  });

  test('an error from fetch propagates as is', async () => {
    const clock = virtualClock(1_000_000);
    const boom = new WorkFailedError('failed');
    await expect(poll({ fetch: async () => Promise.reject(boom), done: () => true, clock, what: 'x' })).rejects.toBe(boom);
  });
});

// ---------------------------------------------------------------- near the expected end


/** Work of `totalMs` from `t0` reporting 0/25/50/75 percent (the emulator's steps), then ready. */
function steppedWork(clock: { now(): number }, t0: number, totalMs: number) {
  return () => {
    const el = clock.now() - t0;
    if (el >= totalMs) return { status: 'ready' as string, progress: undefined as { percent: number } | undefined };
    return { status: 'processing', progress: { percent: Math.floor((el / totalMs) * 4) * 25 } };
  };
}

describe('poll near the expected end', () => {
  test('3 s of work in 25% steps: looks at 0, 1 s, then near the estimated end; the last look lands within 0.2 s of it', async () => {
    const clock = virtualClock(1_000_000);
    const work = steppedWork(clock, clock.now(), 3000);
    const seen: number[] = [];
    const v = await poll({ fetch: async () => work(), done: (m) => m.status === 'ready', onUpdate: (m) => seen.push(m.progress?.percent ?? 100), clock, what: 'x' });
    expect(v.status).toBe('ready');
    expect(seen).toEqual([0, 25, 50, 100]);
    expect(clock.sleeps).toEqual([1000, 1060, 1060]);
    const lateBy = clock.now() - 1_000_000 - 3000;
    expect(lateBy).toBeGreaterThanOrEqual(0);
    expect(lateBy).toBeLessThanOrEqual(200);
  });

  test('10 s of work: the spans of the levels seen bound the estimate, and the last look lands just after the end', async () => {
    const clock = virtualClock(1_000_000);
    const work = steppedWork(clock, clock.now(), 10_000);
    const seen: number[] = [];
    await poll({ fetch: async () => work(), done: (m) => m.status === 'ready', onUpdate: (m) => seen.push(m.progress?.percent ?? 100), clock, what: 'x' });
    expect(seen).toEqual([0, 0, 25, 50, 75, 100]);
    expect(clock.now() - 1_000_000 - 10_000).toBe(60);
  });

  test('a long job is still looked at every 5 s at most (the display moves), and the last look is within 1 s of its end', async () => {
    const clock = virtualClock(1_000_000);
    const work = steppedWork(clock, clock.now(), 60_000);
    await poll({ fetch: async () => work(), done: (m) => m.status === 'ready', clock, what: 'x' });
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(5000);
    const lateBy = clock.now() - 1_000_000 - 60_000;
    expect(lateBy).toBeGreaterThanOrEqual(0);
    expect(lateBy).toBeLessThanOrEqual(1000);
  });

  test('an estimate that proves early: short looks, growing by 1.5x (100, 150, 225 ms…)', async () => {
    const clock = virtualClock(1_000_000);
    const t0 = clock.now();
    // 0% then 50% at 1 s (rate says done at 2 s), but the work really ends at 3.2 s.
    const fetch = async () => {
      const el = clock.now() - t0;
      if (el >= 3200) return { status: 'ready', progress: undefined };
      return { status: 'processing', progress: { percent: el < 500 ? 0 : 50 } };
    };
    await poll({ fetch, done: (m) => m.status === 'ready', clock, what: 'x' });
    // 1 s; the estimate (end at 1 s) has come and the work is not done: early, so 100, 150, 225… until past 3.2 s.
    expect(clock.sleeps).toEqual([1000, 100, 150, 225, 338, 506, 759, 1139]);
  });

  test('expectedEndAt (no progress figure): the look lands just after the expected end, then short growing steps', async () => {
    const clock = virtualClock(1_000_000);
    const t0 = clock.now();
    let n = 0;
    await poll({ fetch: async () => (clock.now() - t0 >= 2400 ? 'done' : `publishing ${++n}`), done: (s) => s === 'done', timer: { expectedEndAt: t0 + 2000 }, clock, what: 'x' });
    // 2000 + 60 ms; then 100, 150, 225 ms until past 2.4 s.
    expect(clock.sleeps).toEqual([2060, 100, 150, 225]);
  });

  test('an initial value: shown, no look at once, the first look after the first interval', async () => {
    const clock = virtualClock(1_000_000);
    const seen: string[] = [];
    let n = 0;
    const v = await poll({ initial: 'processing', fetch: async () => (++n === 2 ? 'ready' : 'processing'), done: (s) => s === 'ready', onUpdate: (s) => seen.push(s), clock, what: 'x' });
    expect(v).toBe('ready');
    expect(seen).toEqual(['processing', 'processing', 'ready']);
    expect(clock.sleeps).toEqual([1000, 1500]);
    expect(n).toBe(2);
  });

  test('an initial value already done: returned without a look', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    expect(await poll({ initial: 'ready', fetch: async () => String(++n), done: (s) => s === 'ready', clock, what: 'x' })).toBe('ready');
    expect(n).toBe(0);
  });

  test('ProgressEstimator: a lower percent starts a new phase; no estimate before the percent moves', () => {
    const e = new ProgressEstimator();
    e.note(0, 40);
    expect(e.endAt()).toBeUndefined();
    e.note(1000, 60);
    expect(e.endAt()).toBe(500 + 40 / (20 / 500));
    e.note(1500, 0); // uploading 100% -> processing 0%
    expect(e.endAt()).toBeUndefined();
    e.note(2500, 50);
    expect(e.endAt()).toBe(2000 + 50 / (50 / 500));
    e.note(3000, undefined);
    expect(e.endAt()).toBeUndefined();
  });
});

describe('poll honours the service', () => {
  test('a Retry-After of the last response: the next look waits at least that long', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    await poll({ fetch: async () => ++n, done: (x) => x === 3, hints: () => ({ retryAfterSec: 7 }), clock, what: 'x' });
    expect(clock.sleeps).toEqual([7000, 7000]);
  });

  test('plenty of reads left: no pacing; under a quarter of the allowance: spread until the reset; none: wait for the reset', async () => {
    expect(paceDelay({ limit: 60, remaining: 40, resetSec: 30 })).toBe(0);
    expect(paceDelay({ limit: 60, remaining: 10, resetSec: 30 })).toBe(3000);
    expect(paceDelay({ limit: 60, remaining: 0, resetSec: 12 })).toBe(12_000);
    expect(paceDelay(undefined)).toBe(0);
    const clock = virtualClock(1_000_000);
    let n = 0;
    await poll({ fetch: async () => ++n, done: (x) => x === 3, hints: () => ({ rateLimit: { limit: 60, remaining: 4, resetSec: 40 } }), clock, what: 'x' });
    expect(clock.sleeps).toEqual([10_000, 10_000]);
  });

  test("the writes left say nothing of a look's reads: a record made by a POST with 1 write left is looked at again in 1 s, not at the reset", async () => {
    expect(paceDelay({ limit: 6, remaining: 1, resetSec: 57, kind: 'write' })).toBe(0);
    expect(paceDelay({ limit: 6, remaining: 1, resetSec: 57, kind: 'read' })).toBe(57_000);
    const clock = virtualClock(1_000_000);
    let n = 0;
    const hints = (x: number) => ({ rateLimit: x === 0 ? { limit: 6, remaining: 1, resetSec: 57, kind: 'write' as const } : { limit: 60, remaining: 50, resetSec: 57, kind: 'read' as const } });
    await poll({ initial: 0, fetch: async () => ++n, done: (x) => x === 2, hints: () => hints(n), clock, what: 'x' });
    expect(clock.sleeps).toEqual([1000, 1500]);
  });

  test('an expected end (remembered from last time) never looks sooner than the allowance or a Retry-After allows', async () => {
    const clock = virtualClock(1_000_000);
    const t0 = clock.now();
    let n = 0;
    await poll({
      initial: 'publishing',
      fetch: async () => (++n === 2 ? 'done' : 'publishing'),
      done: (s) => s === 'done',
      timer: { expectedEndAt: t0 + 500 },
      hints: () => ({ rateLimit: { limit: 60, remaining: 5, resetSec: 30 } }),
      clock,
      what: 'x',
    });
    // 560 ms by the expectation, but 5 reads left for 30 s: 6 s apart.
    expect(clock.sleeps).toEqual([6000, 6000]);
    const c2 = virtualClock(1_000_000);
    let m = 0;
    await poll({ initial: 'publishing', fetch: async () => (++m === 1 ? 'done' : 'x'), done: (s) => s === 'done', timer: { expectedEndAt: c2.now() + 500 }, hints: () => ({ retryAfterSec: 3 }), clock: c2, what: 'x' });
    expect(c2.sleeps).toEqual([3000]);
  });

  test('pacing never pushes a look past the deadline', async () => {
    const clock = virtualClock(1_000_000);
    const p = poll({ fetch: async () => 1, done: () => false, hints: () => ({ rateLimit: { limit: 60, remaining: 0, resetSec: 50 } }), clock, what: 'x', deadlineMs: clock.now() + 3000 });
    await expect(p).rejects.toThrow(TimeoutError);
    expect(clock.sleeps).toEqual([3000]);
  });
});

// ---------------------------------------------------------------- riding out trouble

const http503 = () => new ServiceError('The service failed (HTTP 503)', { http: { status: 503, method: 'GET', path: '/v1/media/med_1' } });
const reset = () =>
  new ServiceError('Could not reach the service (ECONNRESET)', {
    http: { status: 0, method: 'GET', path: '/v1/media/med_1' },
    cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
  });

describe('poll rides out trouble', () => {
  test('5xx, connection resets and 429s while waiting are retried with backoff; the wait goes on', async () => {
    const clock = virtualClock(1_000_000);
    const script: (() => unknown)[] = [
      () => ({ status: 'processing' }),
      () => { throw http503(); },
      () => { throw reset(); },
      () => { throw new RateLimitError('Rate limited', { retryAfterSec: 3, code: 'requests_per_minute' }); },
      () => ({ status: 'ready' }),
    ];
    let i = 0;
    const retried: unknown[] = [];
    const v = await poll({
      fetch: async () => script[i++]!() as { status: string },
      done: (m) => m.status === 'ready',
      onRetry: (err) => retried.push(err),
      random: () => 0,
      clock,
      what: 'x',
    });
    expect(v).toEqual({ status: 'ready' });
    expect(retried).toHaveLength(3);
    // 1 s after the first record; then backoff 250 ms, 500 ms (equal jitter, random 0); then the 429's Retry-After.
    expect(clock.sleeps).toEqual([1000, 250, 500, 3000]);
  });

  test('a Retry-After on a 503 is honoured', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    await poll({
      fetch: async () => {
        if (++n === 1) throw new ServiceError('busy', { http: { status: 503, method: 'GET', path: '/v1/posts/p', retryAfterSec: 4 } });
        return 'done';
      },
      done: () => true,
      clock,
      what: 'x',
    });
    expect(clock.sleeps).toEqual([4000]);
  });

  test.each([
    ['404', () => new NotFoundError('No video med_1', { http: { status: 404, method: 'GET', path: '/v1/media/med_1' } }), ExitCode.NOT_FOUND],
    ['401', () => new AuthError('The API key was refused', { http: { status: 401, method: 'GET', path: '/v1/media/med_1' } }), ExitCode.AUTH],
    ['403', () => new AuthError('Not allowed', { http: { status: 403, method: 'GET', path: '/v1/media/med_1' } }), ExitCode.AUTH],
    ['400', () => new UsageError('Bad request', { http: { status: 400, method: 'GET', path: '/v1/media/med_1' } }), ExitCode.USAGE],
  ])('a definitive answer (%s) ends the wait at once, as is', async (_name, make, code) => {
    const clock = virtualClock(1_000_000);
    const err = make();
    let n = 0;
    const got = await poll({
      fetch: async () => {
        if (++n === 2) throw err;
        return 'processing';
      },
      done: () => false,
      clock,
      what: 'x',
      deadlineMs: clock.now() + 60_000,
    }).catch((e: unknown) => e);
    expect(got).toBe(err);
    expect((got as NotFoundError).exitCode).toBe(code);
    expect(n).toBe(2);
  });

  test('trouble until the deadline: TimeoutError (exit 7) with the last record seen as data, naming the last failure', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    const err = (await poll({
      fetch: async () => {
        if (++n === 1) return { status: 'processing', progress: { percent: 25 } };
        throw http503();
      },
      done: () => false,
      random: () => 0,
      clock,
      what: 'video med_1 to be ready',
      deadlineMs: clock.now() + 10_000,
    }).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.exitCode).toBe(ExitCode.TIMEOUT);
    expect(err.data).toEqual({ status: 'processing', progress: { percent: 25 } });
    expect(err.message).toBe('Stopped waiting for video med_1 to be ready after 10s (--timeout); it goes on at the service. The last look failed: The service failed (HTTP 503)');
    expect(clock.now()).toBe(1_000_000 + 10_000);
  });

  test('trouble until the deadline: onTimeout gets the last good record', async () => {
    const clock = virtualClock(1_000_000);
    let n = 0;
    const got: unknown[] = [];
    const err = await poll({
      fetch: async () => {
        if (++n === 1) return 'processing 50%';
        throw reset();
      },
      done: () => false,
      clock,
      what: 'x',
      deadlineMs: clock.now() + 5000,
      onTimeout: (last) => {
        got.push(last);
        return new TimeoutError('stopped', { data: last });
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(got).toEqual(['processing 50%']);
  });

  test('an abort while riding out trouble: InterruptedError (exit 130)', async () => {
    const clock = virtualClock(1_000_000);
    const ac = new AbortController();
    const err = await poll({
      fetch: async () => {
        ac.abort();
        throw http503();
      },
      done: () => true,
      clock,
      signal: ac.signal,
      what: 'x',
      deadlineMs: clock.now() + 60_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).exitCode).toBe(ExitCode.INTERRUPTED);
  });

  test('isTransientError: what is ridden out and what is an answer', () => {
    const cert = new ServiceError('cert', { http: { status: 0, method: 'GET', path: '/' }, cause: Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }) });
    expect(isTransientError(http503())).toBe(true);
    expect(isTransientError(reset())).toBe(true);
    expect(isTransientError(new ServiceError('500', { http: { status: 500, method: 'GET', path: '/' } }))).toBe(true);
    expect(isTransientError(new ServiceError('not JSON', { http: { status: 200, method: 'GET', path: '/' } }))).toBe(true);
    expect(isTransientError(new RateLimitError('429', { code: 'requests_per_minute' }))).toBe(true);
    expect(isTransientError(new RateLimitError('daily', { code: 'daily_post_limit' }))).toBe(false);
    expect(isTransientError(cert)).toBe(false);
    expect(isTransientError(new ServiceError('409', { http: { status: 409, method: 'GET', path: '/' } }))).toBe(false);
    expect(isTransientError(new NotFoundError('404'))).toBe(false);
    expect(isTransientError(new AuthError('401'))).toBe(false);
    expect(isTransientError(new InterruptedError('Interrupted.'))).toBe(false);
    expect(isTransientError(new TypeError('a bug'))).toBe(false);
  });
});

describe('readThrough (one value through trouble, for waits with a schedule of their own)', () => {
  test('a 503, a reset and a 429 are looked at again (backoff, then the Retry-After); then the value', async () => {
    const clock = virtualClock(1_000_000);
    const script: (() => unknown)[] = [
      () => { throw http503(); },
      () => { throw reset(); },
      () => { throw new RateLimitError('Rate limited', { retryAfterSec: 3, code: 'requests_per_minute' }); },
      () => 'ready',
    ];
    let i = 0;
    const retried: number[] = [];
    const v = await readThrough({
      fetch: async () => script[i++]!() as string,
      clock,
      random: () => 0,
      onRetry: (_err, ms) => retried.push(ms),
      onDeadline: () => new TimeoutError('unexpected'),
    });
    expect(v).toBe('ready');
    expect(retried).toEqual([250, 500, 3000]);
    expect(clock.sleeps).toEqual([250, 500, 3000]);
  });

  test('trouble until the deadline: one last look exactly at it, then onDeadline with the last failure', async () => {
    const clock = virtualClock(1_000_000);
    const failures = [http503(), http503(), reset()];
    let n = 0;
    let given: unknown;
    const err = await readThrough({
      fetch: async () => {
        throw failures[Math.min(n++, failures.length - 1)];
      },
      clock,
      random: () => 0,
      deadlineMs: clock.now() + 1000,
      onDeadline: (last) => {
        given = last;
        return new TimeoutError('stopped');
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(given).toBe(failures[2]);
    // 250, 500, then the 250 left before the deadline: the look at 1000 ms is the last
    expect(clock.sleeps).toEqual([250, 500, 250]);
    expect(n).toBe(4);
  });

  test('a definitive answer is thrown as is, at once', async () => {
    const clock = virtualClock(1_000_000);
    const nf = new NotFoundError('No post post_1', { http: { status: 404, method: 'GET', path: '/v1/posts/post_1' } });
    const got = await readThrough({ fetch: async () => Promise.reject(nf), clock, deadlineMs: clock.now() + 60_000, onDeadline: () => new TimeoutError('x') }).catch((e: unknown) => e);
    expect(got).toBe(nf);
    expect(clock.sleeps).toEqual([]);
  });

  test('the signal stops it between looks: onStopped decides what is thrown', async () => {
    const clock = virtualClock(1_000_000);
    const ac = new AbortController();
    const got = await readThrough({
      fetch: async () => {
        ac.abort();
        throw http503();
      },
      clock,
      signal: ac.signal,
      onDeadline: () => new TimeoutError('x'),
      onStopped: () => new InterruptedError('Interrupted.'),
    }).catch((e: unknown) => e);
    expect(got).toBeInstanceOf(InterruptedError);
  });
});

describe('a wait that remembers how long the work took (WorkTimer + poll, as the media and post waits use them)', () => {
  /** The key's cache, in memory. */
  function memory(): ClientMemory {
    const m = new Map<string, unknown>();
    return {
      get: async <T>(name: string) => (m.has(name) ? { value: structuredClone(m.get(name)) as T, at: 0 } : undefined),
      set: async (name, value) => void m.set(name, structuredClone(value)),
      forget: async () => m.clear(),
    };
  }

  /** One wait for work of `ms` started now (no progress figure, as a post): how long after the end it noticed, and its looks. */
  async function waitFor(mem: ClientMemory, clock: ReturnType<typeof virtualClock>, ms: number): Promise<{ late: number; looks: number }> {
    const t0 = clock.now();
    const timer = await WorkTimer.start(mem, 'post:dst_1', t0);
    let looks = 0;
    await poll({
      initial: 'publishing',
      timer,
      fetch: async () => {
        looks++;
        return clock.now() - t0 >= ms ? 'published' : 'publishing';
      },
      done: (s) => s === 'published',
      clock,
      what: 'x',
    });
    await timer.remember();
    return { late: clock.now() - t0 - ms, looks };
  }

  test('the first wait backs off (1 s, 2.5 s); the next looks once just after the expected end; when that is early, looks again 100 ms, then 150 ms later', async () => {
    const clock = virtualClock(1_000_000);
    const mem = memory();
    expect(await waitFor(mem, clock, 2000)).toEqual({ late: 500, looks: 2 });
    // Learned 1000 + 3/4 of (1000, 2500]: 2125; looked at 2185.
    expect(await waitFor(mem, clock, 2000)).toEqual({ late: 185, looks: 1 });
    // Found done at the first look: 2125 less 0.5%. Work that now takes longer: looks at 2114 + 60, 2274, 2424.
    clock.sleeps.length = 0;
    expect(await waitFor(mem, clock, 2300)).toEqual({ late: 124, looks: 3 });
    expect(clock.sleeps).toEqual([2174, 100, 150]);
  });

  test('over many waits of work whose length wobbles (2 s ± 15 ms), the end is noticed within 0.1 s on average, rarely with a second look', async () => {
    const clock = virtualClock(1_000_000);
    const mem = memory();
    await waitFor(mem, clock, 2000); // cold: nothing remembered yet
    const lates: number[] = [];
    let looks = 0;
    const waits = 40;
    for (let i = 0; i < waits; i++) {
      // A fixed wobble, the same every run of the test: -15, -5, 5, 15, -15, ...
      const r = await waitFor(mem, clock, 2000 + ((i * 10) % 40) - 15);
      lates.push(r.late);
      looks += r.looks;
    }
    const mean = lates.reduce((a, b) => a + b, 0) / waits;
    expect(Math.min(...lates)).toBeGreaterThanOrEqual(0);
    expect(mean).toBeLessThanOrEqual(100);
    expect(looks / waits).toBeLessThanOrEqual(1.3);
  });
});

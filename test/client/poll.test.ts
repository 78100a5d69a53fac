import { describe, expect, test } from 'vitest';
import { poll } from '../../src/api/poll.js';
import { ExitCode, InterruptedError, TimeoutError, WorkFailedError } from '../../src/errors.js';
import { virtualClock } from '../support/clock.js';

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

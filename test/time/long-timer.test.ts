/**
 * Timers of any length: Node's own hold at most 2^31-1 ms (about 24.8 days) and
 * fire after 1 ms beyond it (TimeoutOverflowWarning); setLongTimeout and
 * realSleep re-arm in steps. Node's timers are faked here and moved on.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, realSleep, setLongTimeout } from '../../src/core/clock.js';
import { bindDeadline } from '../../src/session/deadline.js';
import type { Session } from '../../src/session/session.js';
import { DeadlineReached } from '../../src/errors.js';

const DAY = 86_400_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('setLongTimeout', () => {
  it('30 days: not fired at 2^31 ms nor at 29 days, fired at 30 days, and no timer asked for more than 2^31-1 ms', () => {
    vi.useFakeTimers();
    const asked: number[] = [];
    // The fake setTimeout, wrapped by hand and put back in `finally`. Not vi.spyOn: Vitest
    // restores a spy once more after the test, putting back what it replaced (the FAKE setTimeout)
    // after vi.useRealTimers() has put the real one back; in a worker that runs other files next
    // (isolate: false) their real-time waits then never fired.
    const fake = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      asked.push(ms ?? 0);
      return fake(fn, ms);
    }) as typeof setTimeout;
    let fired = 0;
    try {
      setLongTimeout(() => fired++, 30 * DAY);
      vi.advanceTimersByTime(MAX_TIMER_MS + 1);
      expect(fired).toBe(0);
      vi.advanceTimersByTime(29 * DAY - (MAX_TIMER_MS + 1));
      expect(fired).toBe(0);
      vi.advanceTimersByTime(DAY);
      expect(fired).toBe(1);
    } finally {
      globalThis.setTimeout = fake;
    }
    expect(Math.max(...asked)).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(asked.length).toBeGreaterThan(1);
  });

  it('clear() before it fires: it never fires, in any step', () => {
    vi.useFakeTimers();
    let fired = 0;
    const t = setLongTimeout(() => fired++, 60 * DAY);
    vi.advanceTimersByTime(30 * DAY);
    t.clear();
    vi.advanceTimersByTime(60 * DAY);
    expect(fired).toBe(0);
  });

  it('realSleep of 40 days resolves after 40 days; aborted, it rejects with the reason', async () => {
    vi.useFakeTimers();
    let done = false;
    const sleeping = realSleep(40 * DAY).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(39 * DAY);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(DAY);
    await sleeping;
    expect(done).toBe(true);
    const stop = new AbortController();
    const aborted = realSleep(40 * DAY, stop.signal);
    stop.abort(new Error('stopped'));
    await expect(aborted).rejects.toThrow('stopped');
  });
});

describe('a deadline 30 days away (--timeout 30d)', () => {
  it('does not abort before 30 days, and aborts with DeadlineReached then', async () => {
    vi.useFakeTimers();
    const clock = { now: () => Date.now(), sleep: realSleep };
    const session = { signal: new AbortController().signal, clock, client: async () => ({}) } as unknown as Session;
    const bound = bindDeadline(session, Date.now() + 30 * DAY, 30 * DAY);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 10);
    expect(bound.session.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(30 * DAY);
    expect(bound.session.signal.reason).toBeInstanceOf(DeadlineReached);
    bound.dispose();
  });
});

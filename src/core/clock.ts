export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with an AbortError-like error when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The longest delay one Node timer holds (2^31-1 ms, about 24.8 days): a longer
 * one overflows (TimeoutOverflowWarning) and fires after 1 ms.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer that may run longer than MAX_TIMER_MS. */
export interface LongTimer {
  clear(): void;
  /** Does not keep the process alive by itself (as Timeout.unref). */
  unref(): LongTimer;
}

/**
 * setTimeout for any delay: a long one is re-armed in steps of at most
 * MAX_TIMER_MS (on Node's monotonic timers, like setTimeout itself).
 */
export function setLongTimeout(fn: () => void, ms: number): LongTimer {
  let unref = false;
  let timer: ReturnType<typeof setTimeout>;
  const arm = (left: number) => {
    const step = Math.min(left, MAX_TIMER_MS);
    timer = setTimeout(() => (left > step ? arm(left - step) : fn()), step);
    if (unref) timer.unref?.();
  };
  arm(Math.max(0, ms));
  const handle: LongTimer = {
    clear: () => clearTimeout(timer),
    unref: () => {
      unref = true;
      timer.unref?.();
      return handle;
    },
  };
  return handle;
}

/**
 * Calls `fn` once `ms` have passed on `clock`, unless cleared first: a timer of the command's
 * clock (a deadline, a bound), which a test moves instead of waiting it out.
 */
export function clockTimeout(clock: Pick<Clock, 'sleep'>, ms: number, fn: () => void): { clear(): void } {
  const stop = new AbortController();
  clock.sleep(ms, stop.signal).then(fn, () => undefined);
  return { clear: () => stop.abort() };
}

/** Sleep that honours an AbortSignal, on real timers (any length: see setLongTimeout). */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const timer = setLongTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      timer.clear();
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: realSleep,
};

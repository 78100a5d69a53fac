/**
 * Keeping a batch inside the key's per-minute allowances: every request of
 * the batch goes through a gate per kind (read, write) that knows how many
 * the service says are left (X-RateLimit-Remaining / -Reset of each
 * response, via responseMeta, seeded from GET /me) and how many of ours are
 * still in flight. A request that would overdraw waits for the counter's
 * reset instead of meeting a 429. The reset is taken late rather than early
 * (the header is whole seconds, rounded up), so the estimate errs on the safe side.
 */
import { responseMeta, type ApiClient } from '../api/client.js';
import type { RequestKind as Kind } from '../api/send/rate-limit-state.js';
import type { Me } from '../contract/wire-types.js';
import type { Clock } from '../core/clock.js';

/** How a gate stands: for tests and the bench. */
export interface GateStats {
  waits: number;
  waitedMs: number;
}

class Gate {
  private limit: number | undefined;
  /** What we may still send in the current window (after our own reservations). */
  private left: number | undefined;
  private resetAtMs = 0;
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  /** The signals whose abort wakes the waiters (each listened to once). */
  private readonly watched = new WeakSet<AbortSignal>();
  private resetSleep: { signal: AbortSignal; sleep: Promise<void> } | undefined;
  readonly stats: GateStats = { waits: 0, waitedMs: 0 };

  constructor(private readonly clock: Clock) {}

  /** What a response said: the others still in flight may not be counted yet, so they are assumed not to be. */
  note(limit: number, remaining: number, resetSec: number): void {
    const resetAt = this.clock.now() + resetSec * 1000;
    const left = remaining - this.inFlight;
    this.limit = limit;
    if (this.left === undefined || resetAt > this.resetAtMs + 1500) {
      // A new window (or the first word of one).
      this.left = left;
      this.resetAtMs = resetAt;
    } else {
      this.left = Math.min(this.left, left);
      this.resetAtMs = Math.max(this.resetAtMs, resetAt);
    }
  }

  private rollover(): void {
    if (this.left === undefined || this.limit === undefined) return;
    if (this.clock.now() >= this.resetAtMs) {
      this.left = this.limit;
      this.resetAtMs += 60_000 * Math.max(1, Math.ceil((this.clock.now() - this.resetAtMs + 1) / 60_000));
    }
  }

  async acquire(signal: AbortSignal): Promise<void> {
    for (;;) {
      this.rollover();
      if (this.left === undefined) {
        // Nothing known yet: one request at a time until a response tells us.
        if (this.inFlight === 0) break;
      } else if (this.left > 0) break;
      const started = this.clock.now();
      this.stats.waits++;
      // Spent: sleep to the reset (a little after, for the service's own rounding); else wait for a response.
      if (this.left !== undefined && this.left <= 0 && this.inFlight === 0) await this.sleepToReset(signal);
      else {
        await this.nextResponse(signal);
        signal.throwIfAborted();
      }
      this.stats.waitedMs += this.clock.now() - started;
    }
    this.inFlight++;
    if (this.left !== undefined) this.left--;
  }

  /** One sleep to the reset for every request waiting on it: one abort listener, not one each. */
  private sleepToReset(signal: AbortSignal): Promise<void> {
    if (this.resetSleep?.signal !== signal) {
      const sleep = this.clock.sleep(Math.max(50, this.resetAtMs - this.clock.now() + 250), signal).finally(() => {
        if (this.resetSleep?.sleep === sleep) this.resetSleep = undefined;
      });
      this.resetSleep = { signal, sleep };
    }
    return this.resetSleep.sleep;
  }

  /** Until a response (or the signal's abort) wakes the waiters; one abort listener per signal, not one per waiter. */
  private nextResponse(signal: AbortSignal): Promise<void> {
    if (!this.watched.has(signal)) {
      this.watched.add(signal);
      signal.addEventListener('abort', () => this.wake(), { once: true });
    }
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }

  release(result: unknown): void {
    this.inFlight--;
    const rl = responseMeta(result)?.rateLimit;
    if (rl) this.note(rl.limit, rl.remaining, rl.resetSec);
    this.wake();
  }
}

const READS = new Set(['getMe', 'workspace', 'listDestinations', 'getDestinationOptions', 'getMedia', 'getPost']);
const WRITES = new Set(['createUpload', 'completeUpload', 'createImport', 'createPost', 'publishPost']);

export interface PacedClient {
  client: ApiClient;
  /** Seeds the write gate from GET /me (the read gate learns from the response itself). */
  seed(me: Me | undefined): void;
  stats: Record<Kind, GateStats>;
  /** Requests sent through the client, by kind. */
  counts: Record<Kind, number>;
  /** From now on a wait for a turn stops with `signal` (the run's, bound to its deadline). */
  within(signal: AbortSignal): void;
}

/** Wraps a client so each request waits its turn within the per-minute allowance. */
export function pacedClient(inner: ApiClient, clock: Clock, signal: AbortSignal): PacedClient {
  const gates: Record<Kind, Gate> = { read: new Gate(clock), write: new Gate(clock) };
  const counts: Record<Kind, number> = { read: 0, write: 0 };
  let stop = signal;
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      const kind: Kind | undefined = READS.has(prop) ? 'read' : WRITES.has(prop) ? 'write' : undefined;
      if (!kind) return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        const gate = gates[kind];
        await gate.acquire(stop);
        counts[kind]++;
        let result: unknown;
        try {
          result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          return result;
        } finally {
          gate.release(result);
        }
      };
    },
  });
  return {
    client,
    counts,
    stats: { read: gates.read.stats, write: gates.write.stats },
    within(s) {
      stop = s;
    },
    seed(me) {
      // GET /me's own headers say when this minute's window ends (its reset_at is on the service's clock, not ours).
      const readMeta = responseMeta(me)?.rateLimit;
      const rpm = me?.limits?.requests_per_minute;
      const c = rpm?.write;
      if (!c || typeof c.limit !== 'number' || typeof c.remaining !== 'number') return;
      gates.write.note(c.limit, c.remaining, readMeta?.resetSec ?? 60);
    },
  };
}

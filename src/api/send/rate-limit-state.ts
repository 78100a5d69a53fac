/**
 * Slowing down before a 429 rather than after: the service describes the
 * per-minute counter of each request's kind (GET = read, POST = write) in
 * X-RateLimit-Remaining / X-RateLimit-Reset. When a kind has no requests
 * left, the next request of that kind waits until the counter resets.
 */
import type { Clock } from '../../core/clock.js';
import { interruptibleSleep } from './backoff.js';
import { afterReset } from './retry-decision.js';

export type RequestKind = 'read' | 'write';

export interface RateLimitState {
  limit?: number;
  remaining: number;
  /** Clock time (ms) at which the counter resets. */
  resetAtMs: number;
}

function num(v: string | string[] | undefined): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

export function kindOf(method: string): RequestKind {
  return method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD' ? 'read' : 'write';
}

/** The longest we trust X-RateLimit-Reset to ask for (a counter resets each minute). */
const MAX_PACING_WAIT_MS = 65_000;

export class Pacer {
  private readonly state: Partial<Record<RequestKind, RateLimitState>> = {};

  constructor(
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  /** Records what a response said about its kind's counter. */
  note(kind: RequestKind, headers: Record<string, string | string[] | undefined>): RateLimitState | undefined {
    const remaining = num(headers['x-ratelimit-remaining']);
    const reset = num(headers['x-ratelimit-reset']);
    if (remaining === undefined || reset === undefined) return undefined;
    const s: RateLimitState = {
      limit: num(headers['x-ratelimit-limit']),
      remaining: Math.max(0, remaining),
      resetAtMs: this.clock.now() + Math.max(0, reset) * 1000,
    };
    this.state[kind] = s;
    return s;
  }

  /** What we know of a kind's counter. */
  get(kind: RequestKind): RateLimitState | undefined {
    return this.state[kind];
  }

  /** How long the next request of this kind should wait (0 when it may go now). */
  delayFor(kind: RequestKind): number {
    const s = this.state[kind];
    if (!s || s.remaining > 0) return 0;
    return Math.min(MAX_PACING_WAIT_MS, Math.max(0, s.resetAtMs - this.clock.now()));
  }

  /** Waits, if the counter of this kind is spent, until it resets. */
  async before(kind: RequestKind, signal: AbortSignal | undefined, announce?: (ms: number) => void): Promise<void> {
    const ms = this.delayFor(kind);
    if (ms <= 0) return;
    const jittered = afterReset(ms, this.random);
    announce?.(jittered);
    await interruptibleSleep(this.clock, jittered, signal);
    // The counter has reset: let the next response tell us the new numbers.
    delete this.state[kind];
  }
}

/**
 * The emulator's clock: real time (or an injected source) plus an offset that
 * POST /_emulator/clock moves forward. Minute counters, the daily reset,
 * scheduled posts, upload-link expiry and the background jobs (processing,
 * publishing: see timers.ts) all read it.
 */
export class Clock {
  private offsetMs = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    return this.source() + this.offsetMs;
  }

  private readonly isoNow = new IsoCache();

  iso(): string {
    return this.isoNow.at(this.now());
  }

  get offsetSec(): number {
    return this.offsetMs / 1000;
  }

  advance(sec: number): void {
    this.offsetMs += Math.round(sec * 1000);
    for (const listener of this.listeners) listener();
  }

  reset(): void {
    this.offsetMs = 0;
  }

  /** Called after every advance (scheduled posts use it to go out at once). */
  onAdvance(listener: () => void): void {
    this.listeners.add(listener);
  }
}

const DAY_MS = 86_400_000;

/** Start of the next UTC day, in ms. */
export function nextMidnightUtc(nowMs: number): number {
  return (utcDay(nowMs) + 1) * DAY_MS;
}

/** Number of the UTC day containing nowMs (days since 1970-01-01). */
export function utcDay(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS);
}

/**
 * ISO 8601 text of an instant, remembering the last one: the instants asked
 * for repeatedly (the end of the current minute, the next midnight, the
 * current millisecond under load) are formatted once.
 */
export class IsoCache {
  private ms = Number.NaN;
  private text = '';

  at(ms: number): string {
    if (ms !== this.ms) {
      this.text = new Date(ms).toISOString();
      this.ms = ms;
    }
    return this.text;
  }
}

/** Whole seconds from now until `untilMs`, at least 1. */
export function secondsUntil(nowMs: number, untilMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

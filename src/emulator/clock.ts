/**
 * The emulator's clock: real time (or an injected source) plus an offset that
 * POST /_emulator/clock moves forward. Minute counters, the daily reset,
 * scheduled posts and upload-link expiry all read it.
 */
export class Clock {
  private offsetMs = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    return this.source() + this.offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
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

/** Start of the next UTC day, in ms. */
export function nextMidnightUtc(nowMs: number): number {
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/** YYYY-MM-DD of the UTC day containing nowMs. */
export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** Whole seconds from now until `untilMs`, at least 1. */
export function secondsUntil(nowMs: number, untilMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

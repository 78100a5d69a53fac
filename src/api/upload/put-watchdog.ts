/**
 * The PUT's progress limits: a stalled or trickling upload fails its attempt
 * (put-file.ts retries it) instead of holding the command forever.
 */
import type { PutLimits } from './put-stream.js';

/**
 * Watches one PUT attempt: aborts it when no byte was taken for `idleMs`, or
 * when fewer than `minBytesPerSec` went out over the last `floorWindowMs`,
 * while the body is being sent. `tripped` says why, for the retry.
 */
export class Watchdog {
  readonly #controller = new AbortController();
  readonly signal: AbortSignal;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #samples: { at: number; sent: number }[] = [];
  #lastAt = Date.now();
  #sending = true;
  tripped?: string;

  constructor(
    private readonly limits: PutLimits,
    outer?: AbortSignal,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.#controller.signal]) : this.#controller.signal;
    this.#samples.push({ at: this.#lastAt, sent: 0 });
    // A quarter of the shorter limit: each is judged soon after it is reached, the floor's window as the idle limit.
    const tick = Math.max(20, Math.min(1000, Math.floor(Math.min(limits.idleMs, limits.floorWindowMs) / 4)));
    this.#timer = setInterval(() => this.#check(), tick);
    this.#timer.unref?.();
  }

  progress(sent: number): void {
    const now = Date.now();
    this.#lastAt = now;
    const last = this.#samples[this.#samples.length - 1]!;
    if (now - last.at >= 250) this.#samples.push({ at: now, sent });
    while (this.#samples.length > 2 && now - this.#samples[1]!.at >= this.limits.floorWindowMs) this.#samples.shift();
  }

  /** The last byte went out: now the headers limit watches the answer. */
  bodySent(): void {
    this.#sending = false;
  }

  #check(): void {
    if (!this.#sending || this.tripped) return;
    const now = Date.now();
    if (now - this.#lastAt >= this.limits.idleMs) {
      return this.#trip(`the upload stalled: no data went out for ${seconds(this.limits.idleMs)}`);
    }
    const first = this.#samples[0]!;
    const span = now - first.at;
    if (span >= this.limits.floorWindowMs) {
      const last = this.#samples[this.#samples.length - 1]!;
      const rate = ((last.sent - first.sent) * 1000) / span;
      if (rate < this.limits.minBytesPerSec) {
        this.#trip(`the upload was too slow: ${Math.round(rate / 1024)} KiB/s over ${Math.round(span / 1000)} s, under the floor of ${Math.round(this.limits.minBytesPerSec / 1024)} KiB/s`);
      }
    }
  }

  #trip(why: string): void {
    this.tripped = why;
    this.#controller.abort(Object.assign(new Error(why), { name: 'AbortError' }));
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** "30 s", or "300 ms" under a second. */
function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

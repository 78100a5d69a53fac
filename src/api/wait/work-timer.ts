/**
 * How long the service's work took last time (processing a video, publishing
 * a post to the same destinations), remembered in the key's cache, so that a
 * wait can look once just after the expected end (the poller's
 * `expectedEndAt`) instead of at 1, 2.5, 4.75 s. A hint only: a wrong one
 * costs a few looks (the poller then looks again in short, growing steps),
 * never a wrong answer.
 *
 * What a wait sees bounds the real duration: the work had not ended at the
 * last look that found it unfinished (lo) and had ended by the look that
 * found it finished (hi).
 * - Nothing remembered: lo + 3/4 of the span (the first waits look at 1 s,
 *   2.5 s…, so the span is wide; the next wait then lands after the end).
 * - Remembered, and the look at the expected end found it unfinished: the
 *   expectation was early by less than the span (the looks after it are
 *   100 ms, 150 ms… apart), and most often by little: lo + 1/4 of the span.
 * - Remembered, and the first look found it done: the value shrinks a
 *   little (0.5%, at least 10 ms), so that a service that got faster is
 *   followed without making every other wait look too early; the look lands
 *   ESTIMATE_MARGIN_MS after the expected end, so this rarely costs a look.
 */
import type { ClientMemory } from '../client.js';

/** How long a remembered duration is used. */
export const DURATION_TTL_MS = 7 * 24 * 60 * 60_000;

/** Cache entries of remembered durations start with this. */
export const DURATION_ENTRY = 'took:';

interface Remembered {
  ms: number;
  /** The size of the video it was measured on (processing scales with it). */
  bytes?: number;
}

export interface WaitSpan {
  /** When the work started (clock ms). */
  startedAt: number;
  /** The last look that found it unfinished; undefined: the first look found it done. */
  lastUnfinishedAt?: number;
  /** The look that found it finished. */
  finishedAt: number;
}

/** The duration to remember after a wait, given the one remembered before. */
export function learnDuration(previousMs: number | undefined, span: WaitSpan): number {
  const hi = Math.max(0, span.finishedAt - span.startedAt);
  if (span.lastUnfinishedAt === undefined && previousMs !== undefined) {
    const shrink = Math.max(10, previousMs * 0.005);
    return Math.max(0, Math.min(previousMs, hi) - shrink);
  }
  const lo = Math.max(0, Math.min(hi, (span.lastUnfinishedAt ?? span.startedAt) - span.startedAt));
  return Math.round(lo + (previousMs === undefined ? 0.75 : 0.25) * (hi - lo));
}

/** Times one wait and remembers its duration. */
export class WorkTimer {
  private lastUnfinishedAt?: number;
  private finishedAt?: number;

  private constructor(
    private readonly memory: ClientMemory | undefined,
    private readonly name: string,
    readonly startedAt: number,
    private readonly previousMs: number | undefined,
    private readonly bytes: number | undefined,
  ) {}

  /**
   * Starts timing work that starts now. `bytes`: the video's size, when the
   * work scales with it (a duration measured on a size more than twice or
   * less than half this one is not used).
   */
  static async start(memory: ClientMemory | undefined, what: string, startedAt: number, bytes?: number): Promise<WorkTimer> {
    const name = DURATION_ENTRY + what;
    const hit = await memory?.get<Remembered>(name, DURATION_TTL_MS);
    let previous = hit && typeof hit.value?.ms === 'number' && Number.isFinite(hit.value.ms) && hit.value.ms >= 0 ? hit.value.ms : undefined;
    const then = hit?.value?.bytes;
    if (previous !== undefined && bytes !== undefined && typeof then === 'number' && then > 0 && (bytes > then * 2 || bytes < then / 2)) previous = undefined;
    return new WorkTimer(memory, name, startedAt, previous, bytes);
  }

  /** When the work is expected to end (clock ms), when a duration is remembered. */
  get expectedEndAt(): number | undefined {
    return this.previousMs === undefined ? undefined : this.startedAt + this.previousMs;
  }

  /** One look (clock ms) and whether it found the work finished. */
  seen(at: number, finished: boolean): void {
    if (this.finishedAt !== undefined) return;
    if (finished) this.finishedAt = at;
    else this.lastUnfinishedAt = at;
  }

  /** Remembers how long it took (after a wait that saw the end; nothing otherwise). Never throws. */
  async remember(): Promise<void> {
    if (!this.memory || this.finishedAt === undefined) return;
    const ms = learnDuration(this.previousMs, { startedAt: this.startedAt, lastUnfinishedAt: this.lastUnfinishedAt, finishedAt: this.finishedAt });
    await this.memory.set(this.name, { ms, ...(this.bytes !== undefined ? { bytes: this.bytes } : {}) }).catch(() => undefined);
  }
}

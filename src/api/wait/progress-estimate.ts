/**
 * What a wait knows of when the work ends and how fast it may look: the end a
 * percent and its rate point to (ProgressEstimator), and the pause the read
 * allowance asks for (paceDelay). poll() (poll.ts) plans its looks with them.
 */

/** What the last response said beyond its body; `responseMeta(record)` fits as is. */
export interface PollHints {
  /** Retry-After of the last response, in seconds, when it carried one. */
  retryAfterSec?: number;
  /** The allowance of the last response's kind (X-RateLimit-*): the reads of a look, the writes of the request that made the record. */
  rateLimit?: { limit?: number; remaining: number; resetSec: number; kind?: 'read' | 'write' };
}

/** Spread the reads once fewer than this share of the minute's allowance is left. */
const PACE_BELOW_SHARE = 0.25;

/**
 * Estimates when a piece of work reaches 100% from the percents seen and
 * when. Percents often move in steps (0, 25, 50, 75): each level was reached
 * somewhere between the last look below it and the first look at it. The
 * estimate takes a level as reached halfway through that span and the rate
 * from the start of the phase; when the phase was seen at 0% (its start), the
 * spans of all levels also bound the rate, and the estimate is kept within
 * those bounds.
 */
export class ProgressEstimator {
  /** Levels of the current phase: percent, first look at it, last look before it (-Infinity for the first). */
  private levels: { p: number; first: number; before: number }[] = [];
  private lastT = -Infinity;

  /** Records a look; a lower percent than the last one starts a new phase. */
  note(t: number, p: number | undefined): void {
    const cur = this.levels.at(-1);
    if (p === undefined) this.levels = [];
    else if (!cur || p < cur.p) this.levels = [{ p, first: t, before: -Infinity }];
    else if (p > cur.p) this.levels.push({ p, first: t, before: this.lastT });
    this.lastT = t;
  }

  /** Estimated clock time at which the work reaches 100%, or undefined without a rate yet. */
  endAt(): number | undefined {
    const s = this.levels[0];
    const l = this.levels.at(-1);
    if (!s || !l || l === s) return undefined;
    const reachedAt = (l.first + l.before) / 2;
    if (reachedAt <= s.first) return undefined;
    let end = reachedAt + ((100 - l.p) * (reachedAt - s.first)) / (l.p - s.p);
    if (s.p === 0) {
      // Time per percent, m: level p was reached at start + m·p, within (before, first].
      let lo = 0;
      let hi = Infinity;
      for (const v of this.levels.slice(1)) {
        lo = Math.max(lo, (v.before - s.first) / v.p);
        hi = Math.min(hi, (v.first - s.first) / v.p);
      }
      if (lo <= hi) end = Math.min(Math.max(end, s.first + 100 * lo), s.first + 100 * hi);
    }
    return end;
  }
}

/** How long to wait, at least, so that the reads left last until the reset; 0 when there are plenty. */
export function paceDelay(rate: PollHints['rateLimit']): number {
  // Looks are reads: the writes left (the record in hand came from a POST) say nothing of them.
  if (!rate || rate.kind === 'write') return 0;
  const resetMs = Math.max(0, rate.resetSec) * 1000;
  if (rate.remaining <= 0) return resetMs;
  const threshold = rate.limit !== undefined && rate.limit > 0 ? rate.limit * PACE_BELOW_SHARE : 15;
  if (rate.remaining >= threshold) return 0;
  return Math.ceil(resetMs / rate.remaining);
}

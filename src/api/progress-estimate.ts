/**
 * How far along a piece of work is, from what a poll sees: the percent a
 * record carries (./poll.ts looks near the end it points to).
 */

/** A record's `progress.percent` (0-100), or undefined. */
export function defaultProgress(value: unknown): number | undefined {
  const p = (value as { progress?: { percent?: unknown } } | null | undefined)?.progress?.percent;
  return typeof p === 'number' && Number.isFinite(p) ? Math.max(0, Math.min(100, p)) : undefined;
}

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

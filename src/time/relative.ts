/**
 * A relative time (`+1d`, `+1w2h`, `in 1 day`, `in 2 weeks`) from now. Days and weeks are
 * calendar days, as people and `date -d "+1 day"` count them: the same time of day on the
 * day after, whatever the clocks did in between (from Saturday 09:00, `+1d` across the night
 * the clocks change is Sunday 09:00, 23 or 25 hours later). Hours, minutes and seconds are
 * exact durations (`+24h` is 24 hours), added after the days. When the days crossed a clock
 * change the result says so (`note`), shown under the time in the summary.
 */
import { malformed, MAX_DAYS_AHEAD, tooFarAhead, UNIT_MS } from './at-grammar.js';
import { pad } from './iso-time.js';
import { addDays, instantOfWall, wallAt } from './zones.js';

/** One part of a relative time: 2 and 'h' for `2h`. */
export interface RelativePart {
  n: number;
  unit: string;
}

/** `now` plus the parts, in `zone` (where a day is a calendar day). */
export function addRelative(text: string, parts: RelativePart[], now: number, zone: string): { ms: number; note?: string } {
  let days = 0;
  let exact = 0;
  for (const { n, unit } of parts) {
    if (unit === 'd') days += n;
    else if (unit === 'w') days += 7 * n;
    else exact += n * UNIT_MS[unit]!;
  }
  if (days === 0 && exact === 0) throw malformed(text, 'a relative time must be later than now (use "now" to post now)');
  if (!Number.isFinite(days + exact) || days * UNIT_MS.d! + exact > MAX_DAYS_AHEAD * UNIT_MS.d!) throw tooFarAhead(text);
  if (days === 0) return { ms: now + exact };
  const w = wallAt(now, zone);
  const target = { ...w, ...addDays(w, days) };
  // In a gap (the clocks skipped that time of day), the time just after it.
  const base = instantOfWall(target, zone) + (now - Math.floor(now / 1000) * 1000);
  const hours = (base - now) / UNIT_MS.h!;
  if (hours === days * 24) return { ms: base + exact };
  const shown = `${pad(target.h)}:${pad(target.mi)}`;
  const plural = days === 1 ? 'day' : 'days';
  return {
    ms: base + exact,
    note:
      `the clocks change in ${zone} before then: ${days} calendar ${plural} keep${days === 1 ? 's' : ''} the time of day, ${shown}` +
      ` (${Math.round(hours * 100) / 100} hours from now); for exactly ${days * 24} hours write +${days * 24}h`,
  };
}

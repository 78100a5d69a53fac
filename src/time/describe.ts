/**
 * How a moment is shown to a person: with its offset and in UTC, or relative
 * to now ("tomorrow 09:00 CET, in 11 h 46 m (2026-11-23T08:00:00Z)").
 */
import { isoUtc, pad } from './iso-time.js';
import { parsePosixTz, posixAt } from './posix-tz.js';
import { posixAbbreviation, wallAt } from './zones.js';
import { boundedMemo } from '../util/bounded-memo.js';

/** "2026-11-21 09:00 CET (2026-11-21T08:00:00Z)": a moment shown to a person where there is no "now" to relate it to. */
export function describeMoment(ms: number, zone: string): string {
  return `${describeWall(ms, zone)} (${isoUtc(ms)})`;
}

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The formatter of a zone's short names in a locale, made once each. */
const nameFormatter = boundedMemo(
  256,
  (locale: string, zone: string) => `${locale}\n${zone}`,
  (locale: string, zone: string) => new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' }),
);

/** The zone's short name at `ms` (CET, EST, UTC; a POSIX TZ string's own: JST, +0530), or its GMT offset (GMT+9) when it has none. */
export function zoneAbbreviation(ms: number, zone: string): string {
  const posix = posixAbbreviation(ms, zone);
  if (posix !== undefined) return posix;
  const name = (locale: string) => nameFormatter(locale, zone).formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const us = name('en-US');
  if (!/^GMT[+-]/.test(us)) return us || zone;
  const gb = name('en-GB');
  return /^[A-Z]{2,5}$/.test(gb) ? gb : us;
}

/** "in 11 h 46 m", "3 m 20 s ago", "in 2 d 4 h", "now". */
export function relativePhrase(ms: number, now: number): string {
  const diff = ms - now;
  const abs = Math.abs(diff) / 1000;
  if (abs < 0.5) return 'now';
  // Rounded to the smallest unit shown: hours past a day, minutes past an hour, else seconds.
  const unit = abs >= 86_400 ? 3600 : abs >= 3600 ? 60 : 1;
  let secs = Math.round(abs / unit) * unit;
  const d = Math.floor(secs / 86_400);
  secs -= d * 86_400;
  const h = Math.floor(secs / 3600);
  secs -= h * 3600;
  const m = Math.floor(secs / 60);
  const s = secs - m * 60;
  const parts = d > 0 ? [[d, 'd'], [h, 'h']] : h > 0 ? [[h, 'h'], [m, 'm']] : m > 0 ? [[m, 'm'], [s, 's']] : [[s, 's']];
  const text = parts
    .filter(([n], i) => i === 0 || (n as number) > 0)
    .map(([n, u]) => `${n} ${u}`)
    .join(' ');
  return diff > 0 ? `in ${text}` : `${text} ago`;
}

/** A calendar day. */
interface Day {
  y: number;
  mo: number;
  d: number;
}

/** A day as a person reads it relative to `today`'s: today, tomorrow, yesterday, a weekday within the coming week, else (or without `today`) the date. */
function dayWord(w: Day, today?: Day): string {
  const at = Date.UTC(w.y, w.mo - 1, w.d);
  const days = today === undefined ? NaN : Math.round((at - Date.UTC(today.y, today.mo - 1, today.d)) / 86_400_000);
  if (days === 0) return 'today';
  if (days === 1) return 'tomorrow';
  if (days === -1) return 'yesterday';
  if (days > 1 && days < 7) return DAY_NAMES[new Date(at).getUTCDay()]!;
  return `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}`;
}

/**
 * The day and time of a moment in `zone`, as a person reads it relative to
 * `now` (without it, the date): "tomorrow 09:00 CET". Seconds are shown when
 * not zero, never (a table), or always ("now", a moment that is not a round one). The day is today, tomorrow, yesterday, a
 * weekday within the coming week, or the date. Where there is no room for
 * the whole form (a table, a countdown).
 */
export function describeWall(ms: number, zone: string, now?: number, seconds: 'when-set' | 'never' | 'always' = 'when-set'): string {
  const w = wallAt(ms, zone);
  const day = dayWord(w, now === undefined ? undefined : wallAt(now, zone));
  const time = `${pad(w.h)}:${pad(w.mi)}${seconds === 'always' || (w.s && seconds === 'when-set') ? `:${pad(w.s)}` : ''}`;
  return `${day} ${time} ${zoneAbbreviation(ms, zone)}`;
}

/**
 * A moment as a person reads it, relative to `now`: "tomorrow 09:00 CET, in
 * 11 h 46 m (2026-11-23T08:00:00Z)". The one form of every time shown to a
 * person (machines, --json and pipes, get RFC 3339).
 */
export function describeRelative(ms: number, zone: string, now: number): string {
  return `${describeWall(ms, zone, now)}, ${relativePhrase(ms, now)} (${isoUtc(ms)})`;
}

/** The process's local zone at `ms` as a person reads it, without Intl: "UTC", or its offset ("GMT+1", "GMT-3:30"). */
function localOffsetName(ms: number): string {
  const off = -new Date(ms).getTimezoneOffset();
  if (off === 0) return 'UTC';
  const abs = Math.abs(off);
  return `GMT${off < 0 ? '-' : '+'}${Math.floor(abs / 60)}${abs % 60 ? `:${pad(abs % 60)}` : ''}`;
}

/**
 * describeWall's form in the process's local zone, read with Date's own getters and named by its
 * offset, with the relative phrase: "tomorrow 00:00 UTC, in 6 h 1 m". For a command whose start-up
 * is its goal (`vidpub me`): the zone's short name (CET) needs Intl, and the first use of Intl's
 * time zone data is costly (docs/performance.md). A `tz` that is a POSIX TZ string
 * (which Node's Date reads as UTC when it has rules) is worked out here, named as it names itself.
 */
export function describeLocalRelative(ms: number, now: number, tz?: string): string {
  const posix = tz ? parsePosixTz(tz.replace(/^:/, '')) : undefined;
  const local = (t: number): { y: number; mo: number; d: number; h: number; mi: number; s: number } => {
    if (posix) {
      const u = new Date(t + posixAt(posix, t).offset * 1000);
      return { y: u.getUTCFullYear(), mo: u.getUTCMonth() + 1, d: u.getUTCDate(), h: u.getUTCHours(), mi: u.getUTCMinutes(), s: u.getUTCSeconds() };
    }
    const d = new Date(t);
    return { y: d.getFullYear(), mo: d.getMonth() + 1, d: d.getDate(), h: d.getHours(), mi: d.getMinutes(), s: d.getSeconds() };
  };
  const w = local(ms);
  const day = dayWord(w, local(now));
  const time = `${pad(w.h)}:${pad(w.mi)}${w.s ? `:${pad(w.s)}` : ''}`;
  return `${day} ${time} ${posix ? posixAt(posix, ms).name : localOffsetName(ms)}, ${relativePhrase(ms, now)}`;
}

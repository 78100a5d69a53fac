/**
 * WHEN, as `--at` takes it: `now`; ISO 8601 with an offset (`Z` or ±hh:mm);
 * a local date-time (`2026-11-21 09:00`, `2026-11-21T09:00:30`) read in the
 * local zone or `--tz ZONE`; or a relative time (`+30m`, `+2h`, `+1d`,
 * `+1h30m`). Pure: the current time and the zone are passed in.
 *
 * Local times that fall in a DST gap (clocks move forward) do not exist and
 * are refused. Local times that occur twice (clocks move back) resolve to the
 * earlier of the two, and the result says so (`note`), so the person sees it
 * in the summary before anything is sent.
 */
import { UsageError, sanitize } from '../errors.js';

export interface ResolvedWhen {
  /** True for `now`: publish_at is sent as "now". */
  now: boolean;
  /** Epoch ms of the moment (the current time for `now`). */
  ms: number;
  /** What to send as publish_at: "now" or ISO 8601 with offset, e.g. 2026-11-21T09:00:00+01:00. */
  publishAt: string;
  /** The moment with its offset, e.g. 2026-11-21T09:00:00+01:00. */
  local: string;
  /** The moment in UTC, e.g. 2026-11-21T08:00:00Z. */
  utc: string;
  /** The zone the local form is in (an IANA name, or the offset that was written). */
  zone: string;
  /** Something the person should know (an ambiguous local time). */
  note?: string;
}

export const WHEN_FORMATS =
  'now; "in 2h", +30m, +1h30m, +1d (from now); 9:00 or 9am (its next occurrence); "tomorrow 9:00", "today 18:30", ' +
  '"mon 09:00", "monday 9am" (the next such day); "YYYY-MM-DD 9:00" (local time, or in --tz ZONE); ISO 8601 with an offset or Z';

/**
 * Examples of WHEN that are valid at `now` (relative forms, and a date a week
 * ahead), for error messages: never a date already past.
 */
export function whenExamples(now: number, zone: string): string {
  const w = wallAt(now + 7 * 86_400_000, zone);
  const date = `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}`;
  return `now, "in 2h", +30m, 9:00, "tomorrow 9:00", "mon 09:00", "monday 9am", "${date} 09:00", ${date}T09:00:00Z (ISO 8601)`;
}

const MINUTE = 60_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: MINUTE, h: 60 * MINUTE, d: 24 * 60 * MINUTE, w: 7 * 24 * 60 * MINUTE };

// ------------------------------------------------------------------ zones

/** True when Intl knows the IANA zone. */
export function isValidTimeZone(zone: string): boolean {
  if (!zone || zone.trim() !== zone) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone to read local times in: `--tz` (validated), else env TZ when Intl
 * knows it (a leading ":" as in TZ=:Europe/Paris is ignored), else the zone
 * Intl resolves for this machine.
 */
export function resolveTimeZone(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (flag !== undefined) {
    if (!isValidTimeZone(flag)) {
      throw new UsageError(`unknown time zone "${sanitize(flag)}" in --tz`, {
        hint: 'Use an IANA zone name such as Europe/Paris, America/New_York or UTC.',
      });
    }
    return canonicalZone(flag);
  }
  const tz = env.TZ?.replace(/^:/, '');
  if (tz && isValidTimeZone(tz)) return canonicalZone(tz);
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function canonicalZone(zone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone || zone;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

function wallAt(ms: number, zone: string): Wall {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return { y: parts.year!, mo: parts.month!, d: parts.day!, h: parts.hour! % 24, mi: parts.minute!, s: parts.second! };
}

function wallAsUtc(w: Wall): number {
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
}

/** The zone's offset from UTC at instant `ms`, in ms (Paris in winter: +3_600_000). */
export function offsetAt(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallAsUtc(wallAt(whole, zone)) - whole;
}

/**
 * Every instant whose wall-clock time in `zone` is `wall`: none in a DST gap,
 * two in a fall-back overlap, else one. Sorted, earliest first.
 */
export function instantsForWall(wall: Wall, zone: string): number[] {
  const asUtc = wallAsUtc(wall);
  const found = new Set<number>();
  // Offsets in force a day either side cover any single transition.
  for (const probe of [asUtc - 86_400_000, asUtc, asUtc + 86_400_000]) {
    const candidate = asUtc - offsetAt(probe, zone);
    if (wallAsUtc(wallAt(candidate, zone)) === asUtc) found.add(candidate);
  }
  return [...found].sort((a, b) => a - b);
}

// ------------------------------------------------------------------ formatting

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

export function formatOffset(offsetMs: number): string {
  if (offsetMs === 0) return '+00:00';
  const sign = offsetMs < 0 ? '-' : '+';
  const total = Math.round(Math.abs(offsetMs) / MINUTE);
  return `${sign}${pad(Math.floor(total / 60))}:${pad(total % 60)}`;
}

/** `ms` as ISO 8601 in a fixed offset, seconds precision: 2026-11-21T09:00:00+01:00. */
export function isoWithOffset(ms: number, offsetMs: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000 + offsetMs);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${formatOffset(offsetMs)}`
  );
}

/** `ms` in `zone` with that zone's offset at that moment. */
export function isoInZone(ms: number, zone: string): string {
  return isoWithOffset(ms, offsetAt(ms, zone));
}

/** `ms` in UTC, seconds precision: 2026-11-21T08:00:00Z. */
export function isoUtc(ms: number): string {
  return isoWithOffset(ms, 0).replace(/\+00:00$/, 'Z');
}

/** "2026-11-21T09:00:00+01:00 (2026-11-21T08:00:00Z)", the way every time is shown to a person. */
export function describeMoment(ms: number, zone: string): string {
  return `${isoInZone(ms, zone)} (${isoUtc(ms)})`;
}

// ------------------------------------------------------------------ parsing

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)$/i;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:T|\s+)(\d{2}):(\d{2})(?::(\d{2}))?$/i;
const RELATIVE = /^\+\s*((?:\d+\s*[smhdw]\s*)+)$/i;

// The time and zone of the parseWhen call under way (parsing is synchronous), so
// the examples in an error are valid then.
let examplesAt: { now: number; zone: string } | undefined;

function malformed(text: string, why?: string): UsageError {
  return new UsageError(`invalid time "${sanitize(text)}" for --at${why ? `: ${why}` : ''}`, {
    hint: examplesAt
      ? `For example: ${whenExamples(examplesAt.now, examplesAt.zone)}. Local times are read in ${examplesAt.zone} (--tz ZONE changes it).`
      : `Write it as ${WHEN_FORMATS}.`,
  });
}

function checkedWall(text: string, m: RegExpMatchArray): Wall {
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const s = m[6] === undefined ? 0 : Number(m[6]);
  const days = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (mo! < 1 || mo! > 12) throw malformed(text, `month ${m[2]} does not exist`);
  if (d! < 1 || d! > days) throw malformed(text, `day ${m[3]} does not exist in that month`);
  if (h! > 23 || mi! > 59 || s > 59) throw malformed(text, 'hours go to 23, minutes and seconds to 59');
  return { y: y!, mo: mo!, d: d!, h: h!, mi: mi!, s };
}

function parseOffset(text: string, raw: string): number {
  if (raw.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(raw)!;
  const hours = Number(m[2]);
  const minutes = m[3] === undefined ? 0 : Number(m[3]);
  if (hours > 14 || minutes > 59) throw malformed(text, `offset ${raw} is out of range`);
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes) * MINUTE;
}

/**
 * Resolves WHEN against `now` (epoch ms) and `zone` (IANA, from
 * resolveTimeZone). Throws UsageError for a malformed time, a time that does
 * not exist in the zone, or a time in the past.
 */
/** How far ahead the service takes a publish_at (docs/api-notes.md: more than 365 days → 400 invalid_publish_at). */
export const MAX_DAYS_AHEAD = 365;

/** --at beyond what the service takes: an invalid time (exit 2), said before anything is sent. */
function tooFarAhead(text: string): UsageError {
  return new UsageError(`invalid time "${sanitize(text)}" for --at: the service schedules at most ${MAX_DAYS_AHEAD} days ahead`, {
    hint: `Give a time within ${MAX_DAYS_AHEAD} days, e.g. --at +30d, or save a draft (--draft) and publish it later.`,
  });
}

/** A time that has passed (exit 2), said as parseWhen says it. */
export function pastTimeError(when: Pick<ResolvedWhen, 'local' | 'utc'>): UsageError {
  return new UsageError(`the time ${when.local} (${when.utc}) for --at is in the past`, {
    hint: 'Give a later time, or "now" to post now.',
  });
}

/** `allowPast`: a time before `now` is returned (the caller decides) instead of refused. */
export function parseWhen(input: string, opts: { now: number; zone: string; allowPast?: boolean }): ResolvedWhen {
  const text = String(input).trim();
  const { now, zone } = opts;
  examplesAt = opts;
  if (/^now$/i.test(text)) {
    return { now: true, ms: now, publishAt: 'now', local: isoInZone(now, zone), utc: isoUtc(now), zone };
  }

  let ms: number;
  let shownOffset: number;
  let shownZone = zone;
  let note: string | undefined;

  const rel = RELATIVE.exec(text);
  const iso = rel ? null : ISO_WITH_OFFSET.exec(text);
  const local = rel || iso ? null : LOCAL.exec(text);
  if (rel) {
    let delta = 0;
    for (const part of rel[1]!.matchAll(/(\d+)\s*([smhdw])/gi)) delta += Number(part[1]) * UNIT_MS[part[2]!.toLowerCase()]!;
    if (delta === 0) throw malformed(text, 'a relative time must be later than now (use "now" to post now)');
    if (!Number.isFinite(delta) || delta > MAX_DAYS_AHEAD * UNIT_MS.d!) throw tooFarAhead(text);
    ms = now + delta;
    shownOffset = offsetAt(ms, zone);
  } else if (iso) {
    const wall = checkedWall(text, iso);
    const offset = parseOffset(text, iso[8]!);
    ms = wallAsUtc(wall) - offset;
    shownOffset = offset;
    shownZone = iso[8]!.toUpperCase() === 'Z' ? 'UTC' : formatOffset(offset);
  } else if (local) {
    const wall = checkedWall(text, local);
    const instants = instantsForWall(wall, zone);
    if (instants.length === 0) {
      throw new UsageError(`the time "${sanitize(text)}" does not exist in ${zone} (clocks move forward that day)`, {
        hint: gapHint(wall, zone),
      });
    }
    ms = instants[0]!;
    if (instants.length > 1) {
      const later = instants[instants.length - 1]!;
      note =
        `${text} happens twice in ${zone} (clocks move back that day): using the earlier one, ` +
        `${isoInZone(ms, zone)}; for the later one write ${isoInZone(later, zone)}`;
    }
    shownOffset = offsetAt(ms, zone);
  } else {
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) throw malformed(text, 'add a time of day, e.g. "' + text + ' 09:00"');
    const natural = parseNatural(text, now, zone);
    if (!natural) throw malformed(text);
    ms = natural.ms;
    note = natural.note;
    shownOffset = offsetAt(ms, zone);
  }

  if (!Number.isFinite(ms) || ms - now > MAX_DAYS_AHEAD * UNIT_MS.d!) throw tooFarAhead(text);
  const shown = isoWithOffset(ms, shownOffset);
  const when: ResolvedWhen = { now: false, ms, publishAt: shown, local: shown, utc: isoUtc(ms), zone: shownZone, note };
  if (ms < now && !opts.allowPast) throw pastTimeError(when);
  return when;
}

// ------------------------------------------------------------------ the forms people type

const UNIT_WORDS: Record<string, string> = {
  s: 's', sec: 's', secs: 's', second: 's', seconds: 's',
  m: 'm', min: 'm', mins: 'm', minute: 'm', minutes: 'm',
  h: 'h', hr: 'h', hrs: 'h', hour: 'h', hours: 'h',
  d: 'd', day: 'd', days: 'd',
  w: 'w', week: 'w', weeks: 'w',
};

const WEEKDAYS: Record<string, number> = {
  sun: 0, sunday: 0,
  mon: 1, monday: 1,
  tue: 2, tues: 2, tuesday: 2,
  wed: 3, weds: 3, wednesday: 3,
  thu: 4, thur: 4, thurs: 4, thursday: 4,
  fri: 5, friday: 5,
  sat: 6, saturday: 6,
};

/** `9:00`, `09:00:30`, `9am`, `9:30 pm`, `noon`; undefined when it is not a time of day. */
function timeOfDay(text: string, whole: string): { h: number; mi: number; s: number } | undefined {
  if (text === 'noon') return { h: 12, mi: 0, s: 0 };
  if (text === 'midnight') throw malformed(whole, 'midnight belongs to two days: write "00:00" with the day after, or "23:59"');
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(text);
  if (!m) return undefined;
  const meridiem = m[4]?.replace(/\./g, '');
  if (m[2] === undefined && !meridiem) {
    throw malformed(whole, `"${m[1]}" alone could be a day, an hour or a duration: write ${m[1]}:00, ${m[1]}am or "in ${m[1]}h"`);
  }
  let h = Number(m[1]);
  const mi = m[2] === undefined ? 0 : Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (meridiem) {
    if (h < 1 || h > 12) throw malformed(whole, `with ${meridiem} the hour goes from 1 to 12`);
    h = (h % 12) + (meridiem === 'pm' ? 12 : 0);
  }
  if (h > 23 || mi > 59 || s > 59) throw malformed(whole, 'hours go to 23, minutes and seconds to 59');
  return { h, mi, s };
}

/** For a wall time in a DST gap: the instant it names with the offset before the change, written as it exists (03:30+02:00 for 02:30). */
/**
 * The same wall time read with the offset in force before the gap lands just
 * after it (02:30 in a 02:00-03:00 gap is 03:30 in the new offset): suggest
 * that moment, in the date and year that were written.
 */
function gapHint(wall: Wall, zone: string): string {
  const ms = wallAsUtc(wall) - offsetAt(wallAsUtc(wall) - 86_400_000, zone);
  return `Pick a time outside the skipped hour, e.g. ${isoInZone(ms, zone)}, or give an explicit offset.`;
}

/** The calendar day `days` after the wall date of `from` (month and year roll over). */
function addDays(from: Wall, days: number): Pick<Wall, 'y' | 'mo' | 'd'> {
  const d = new Date(Date.UTC(from.y, from.mo - 1, from.d + days));
  return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate() };
}

/** The instant of a wall time in `zone`, with the DST rules of local date-times (gap refused, overlap: the earlier). */
function resolveWall(whole: string, wall: Wall, zone: string): { ms: number; note?: string } {
  const instants = instantsForWall(wall, zone);
  const shown = `${pad(wall.y, 4)}-${pad(wall.mo)}-${pad(wall.d)} ${pad(wall.h)}:${pad(wall.mi)}`;
  if (instants.length === 0) {
    throw new UsageError(`the time "${sanitize(whole)}" (${shown}) does not exist in ${zone} (clocks move forward that day)`, {
      hint: gapHint(wall, zone),
    });
  }
  const ms = instants[0]!;
  if (instants.length === 1) return { ms };
  const later = instants[instants.length - 1]!;
  return {
    ms,
    note:
      `${whole} (${shown}) happens twice in ${zone} (clocks move back that day): using the earlier one, ` +
      `${isoInZone(ms, zone)}; for the later one write ${isoInZone(later, zone)}`,
  };
}

/**
 * The forms people type: `in 2h` / `in 1 hour 30 minutes`; a time of day
 * alone (its next occurrence); `today`, `tomorrow` or a weekday (the next day
 * with that name, today included while the time is still ahead) followed by a
 * time; a date with a one-digit hour or am/pm (`2026-11-23 9:00`). Undefined
 * when the text is none of these; UsageError when it is one of them but
 * ambiguous.
 */
function parseNatural(whole: string, now: number, zone: string): { ms: number; note?: string } | undefined {
  const text = whole.toLowerCase().replace(/\s+/g, ' ').trim();

  const rel = /^in ((?:\d+ ?[a-z]+ ?(?:and )?)+)$/.exec(text);
  if (rel) {
    let delta = 0;
    for (const part of rel[1]!.matchAll(/(\d+) ?([a-z]+)/g)) {
      if (part[2] === 'and') continue;
      const unit = UNIT_WORDS[part[2]!];
      if (!unit) throw malformed(whole, `"${part[2]}" is not a unit: use s, m, h, d or w (or seconds, minutes, hours, days, weeks)`);
      delta += Number(part[1]) * UNIT_MS[unit]!;
    }
    if (delta === 0) throw malformed(whole, 'a relative time must be later than now (use "now" to post now)');
    return { ms: now + delta };
  }

  if (/^next\b/.test(text)) {
    throw malformed(whole, '"next" is ambiguous (this coming one, or the one after?): write the day alone, e.g. "mon 09:00" for the next Monday, or a date');
  }

  const today = wallAt(now, zone);
  const words = text.split(' ');
  const first = words[0]!;
  const rest = words.slice(1).join(' ');

  // A date with a time vidpub's strict local form does not take (9:00, 9am).
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(first);
  if (date && rest) {
    const t = timeOfDay(rest, whole);
    if (!t) return undefined;
    const wall = checkedWall(whole, [whole, date[1], date[2], date[3], String(t.h), String(t.mi), String(t.s)] as unknown as RegExpMatchArray);
    return resolveWall(whole, wall, zone);
  }

  const isDayWord = first === 'today' || first === 'tomorrow' || first in WEEKDAYS;
  if (isDayWord && !rest) {
    throw malformed(whole, `give a time of day too, e.g. "${first} 9:00"`);
  }
  const t = timeOfDay(isDayWord ? rest : text, whole);
  if (!t) return undefined;
  const at = (offsetDays: number): { ms: number; note?: string } => resolveWall(whole, { ...addDays(today, offsetDays), h: t.h, mi: t.mi, s: t.s }, zone);
  const ahead = (offsetDays: number) => {
    // A wall time in a DST gap counts as ahead only when the day is in the future.
    const instants = instantsForWall({ ...addDays(today, offsetDays), h: t.h, mi: t.mi, s: t.s }, zone);
    return instants.length === 0 ? offsetDays > 0 : instants[0]! > now;
  };

  if (!isDayWord) return at(ahead(0) ? 0 : 1);
  if (first === 'today') return at(0);
  if (first === 'tomorrow') return at(1);
  const weekday = WEEKDAYS[first]!;
  const todayDow = new Date(Date.UTC(today.y, today.mo - 1, today.d)).getUTCDay();
  let days = (weekday - todayDow + 7) % 7;
  if (days === 0 && !ahead(0)) days = 7;
  return at(days);
}

// ------------------------------------------------------------------ how a time is shown to a person

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The zone's short name at `ms` (CET, EST, UTC), or its GMT offset (GMT+9) when it has none. */
export function zoneAbbreviation(ms: number, zone: string): string {
  const name = (locale: string) =>
    new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' }).formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
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

/**
 * A moment as a person reads it, relative to `now`: "tomorrow 09:00 CET, in
 * 11 h 46 m (2026-11-23T08:00:00Z)". The day is today, tomorrow, yesterday, a
 * weekday within the coming week, or the date.
 */
export function describeRelative(ms: number, zone: string, now: number): string {
  const w = wallAt(ms, zone);
  const n = wallAt(now, zone);
  const days = Math.round((Date.UTC(w.y, w.mo - 1, w.d) - Date.UTC(n.y, n.mo - 1, n.d)) / 86_400_000);
  const day =
    days === 0 ? 'today' : days === 1 ? 'tomorrow' : days === -1 ? 'yesterday' : days > 1 && days < 7 ? DAY_NAMES[new Date(Date.UTC(w.y, w.mo - 1, w.d)).getUTCDay()]! : `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}`;
  const time = `${pad(w.h)}:${pad(w.mi)}${w.s ? `:${pad(w.s)}` : ''}`;
  return `${day} ${time} ${zoneAbbreviation(ms, zone)}, ${relativePhrase(ms, now)} (${isoUtc(ms)})`;
}

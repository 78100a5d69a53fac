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
  'now; 2026-11-21T09:00:00+01:00 (ISO 8601 with offset or Z); 2026-11-21 09:00 (local time, or in --tz ZONE); +30m, +2h, +1d, +1h30m (from now)';

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

function malformed(text: string, why?: string): UsageError {
  return new UsageError(`invalid time "${sanitize(text)}" for --at${why ? `: ${why}` : ''}`, {
    hint: `Write it as ${WHEN_FORMATS}.`,
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

export function parseWhen(input: string, opts: { now: number; zone: string }): ResolvedWhen {
  const text = String(input).trim();
  const { now, zone } = opts;
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
        hint: 'Pick a time outside the skipped hour, or give an explicit offset, e.g. 2026-03-29T03:30:00+02:00.',
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
    throw malformed(text);
  }

  if (!Number.isFinite(ms) || ms - now > MAX_DAYS_AHEAD * UNIT_MS.d!) throw tooFarAhead(text);
  if (ms < now) {
    throw new UsageError(`the time ${isoWithOffset(ms, shownOffset)} (${isoUtc(ms)}) for --at is in the past`, {
      hint: 'Give a later time, or "now" to post now.',
    });
  }
  const shown = isoWithOffset(ms, shownOffset);
  return { now: false, ms, publishAt: shown, local: shown, utc: isoUtc(ms), zone: shownZone, note };
}

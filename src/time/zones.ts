/**
 * Time zones: which one local times are read in (`--tz`, env TZ, the
 * machine's), what a clock in a zone shows at an instant, the zone's offset
 * then, and the instants a wall-clock time names (none in a DST gap, two in an
 * overlap). Instants are epoch ms; a zone is an IANA name (Intl does the
 * rest) or a POSIX TZ string such as CET-1CEST,M3.5.0,M10.5.0/3 (posix-tz.ts,
 * read only when Intl does not know the name). Pure, but for following the
 * links of a TZ that is a path.
 */
import { realpathSync } from 'node:fs';
import { UsageError, sanitize } from '../errors.js';
import { boundedMemo } from '../util/bounded-memo.js';
import { parsePosixTz, posixAt, type PosixZone } from './posix-tz.js';

/**
 * The zone as Intl spells it (europe/paris: Europe/Paris), or null when Intl does not know it. Each
 * answer is kept: a command asks about its zone dozens of times (each time it is shown or read).
 */
const intlName = boundedMemo(
  256,
  (zone: string) => zone,
  (zone: string): string | null => {
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone || zone;
    } catch {
      return null;
    }
  },
);

function intlKnows(zone: string): boolean {
  return intlName(zone) !== null;
}

/** The POSIX TZ strings read so far (a zone that is one of them is worked out by posix-tz.ts, not Intl). */
const posixZones = new Map<string, PosixZone>();

/** The POSIX zone `zone` is, read once; undefined for an IANA name (or not a zone). */
function posixZone(zone: string): PosixZone | undefined {
  if (posixZones.has(zone)) return posixZones.get(zone);
  if (intlKnows(zone)) return undefined;
  const read = parsePosixTz(zone);
  if (read) posixZones.set(zone, read);
  return read;
}

/** True when `zone` is an IANA zone Intl knows, or a POSIX TZ string (JST-9, CET-1CEST,M3.5.0,M10.5.0/3). */
export function isValidTimeZone(zone: string): boolean {
  if (!zone || zone.trim() !== zone) return false;
  return intlKnows(zone) || posixZone(zone) !== undefined;
}

const FORMS = 'an IANA name (Europe/Paris, :Asia/Tokyo) or a POSIX TZ string (JST-9, CET-1CEST,M3.5.0,M10.5.0/3, <+0530>-5:30)';

/** `path` with its links followed (/etc/localtime -> /usr/share/zoneinfo/Europe/Paris); itself when it cannot be. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The zone TZ names, as the C library reads it: empty is UTC; a leading ":"
 * is dropped; a path into a zoneinfo directory (/usr/share/zoneinfo/Asia/Tokyo,
 * /etc/localtime when it links there) is the zone it names, posix/ and right/
 * ones too; otherwise an IANA name, or a POSIX TZ string. Undefined: none of those.
 */
function zoneOfTz(tz: string): string | undefined {
  if (tz === '') return 'UTC';
  let name = tz.startsWith(':') ? tz.slice(1) : tz;
  if (name.startsWith('/')) {
    const path = realPath(name);
    const at = path.lastIndexOf('/zoneinfo/');
    if (at < 0) return undefined;
    name = path.slice(at + '/zoneinfo/'.length);
  }
  name = name.replace(/^(posix|right)\//, '');
  return isValidTimeZone(name) ? canonicalZone(name) : undefined;
}

/**
 * The zone to read local times in: `--tz` (validated), else env TZ as the C
 * library reads it (zoneOfTz; one that cannot be read is exit 2 naming it,
 * never UTC in silence), else the zone Intl resolves for this machine.
 */
export function resolveTimeZone(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (flag !== undefined) {
    if (!isValidTimeZone(flag)) {
      throw new UsageError(`unknown time zone "${sanitize(flag)}" in --tz`, {
        hint: `Use ${FORMS}.`,
      });
    }
    return canonicalZone(flag);
  }
  const tz = env.TZ;
  if (tz !== undefined) {
    const zone = zoneOfTz(tz);
    if (zone === undefined) {
      throw new UsageError(`TZ is "${sanitize(tz)}", which is not a time zone vidpub can read`, {
        hint: `Set TZ to ${FORMS}, or unset it to use this machine's zone.`,
      });
    }
    return zone;
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** An IANA name as Intl spells it (europe/paris: Europe/Paris); a POSIX string (read already by isValidTimeZone) as it is. */
function canonicalZone(zone: string): string {
  if (posixZones.has(zone)) return zone;
  return intlName(zone) ?? zone;
}

/** The zone's short name at `ms` when it is a POSIX TZ string (JST, CEST, +0530); undefined for an IANA zone. */
export function posixAbbreviation(ms: number, zone: string): string | undefined {
  const p = posixZones.get(zone);
  return p ? posixAt(p, ms).name : undefined;
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

/** A wall-clock time: what a clock in some zone shows. */
export interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

/** What a clock in `zone` shows at instant `ms`. */
export function wallAt(ms: number, zone: string): Wall {
  const posix = posixZones.get(zone);
  if (posix) {
    const d = new Date(ms + posixAt(posix, ms).offset * 1000);
    return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds() };
  }
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return { y: parts.year!, mo: parts.month!, d: parts.day!, h: parts.hour! % 24, mi: parts.minute!, s: parts.second! };
}

/** The instant a clock in UTC shows `w` at. */
export function wallAsUtc(w: Wall): number {
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
}

/** The calendar date `days` after `from` (a day is a calendar day, whatever the clocks do). */
export function addDays(from: Pick<Wall, 'y' | 'mo' | 'd'>, days: number): Pick<Wall, 'y' | 'mo' | 'd'> {
  const d = new Date(Date.UTC(from.y, from.mo - 1, from.d + days));
  return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate() };
}

/** The zone's offset from UTC at instant `ms`, in ms (Paris in winter: +3_600_000). */
export function offsetAt(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallAsUtc(wallAt(whole, zone)) - whole;
}

/** A wall time the clocks skipped (a DST gap) read with the offset of the day before: the time just after the gap, as GNU date reads it. */
export function afterGap(wall: Wall, zone: string): number {
  return wallAsUtc(wall) - offsetAt(wallAsUtc(wall) - 86_400_000, zone);
}

/**
 * The instant a clock in `zone` shows `wall` at, for a reader that refuses none: in an overlap the
 * earlier; in a gap the time just after it (afterGap). --at's local times refuse a gap instead
 * (local-time.ts resolveWall).
 */
export function instantOfWall(wall: Wall, zone: string): number {
  return instantsForWall(wall, zone)[0] ?? afterGap(wall, zone);
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

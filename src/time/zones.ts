/**
 * Time zones: which one local times are read in (`--tz`, env TZ, the
 * machine's), what a clock in a zone shows at an instant, the zone's offset
 * then, and the instants a wall-clock time names (none in a DST gap, two in an
 * overlap). Pure: instants are epoch ms, zones IANA names, Intl does the rest.
 */
import { UsageError, sanitize } from '../errors.js';

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

/**
 * A wall-clock time as --at reads it: checked (no month 13, no 25:00), and
 * read in a zone with the DST rules: a time in a gap (clocks move forward)
 * does not exist and is refused with a time that does; a time that occurs
 * twice (clocks move back) is the earlier one, with a note saying so.
 */
import { UsageError, sanitize } from '../errors.js';
import { malformed } from './at-grammar.js';
import { isoInZone, pad } from './iso-time.js';
import { afterGap, instantsForWall, type Wall } from './zones.js';

/** The wall time the fields of a date-time match name (1 to 6: year, month, day, hour, minute, second), checked. */
export function checkedWall(text: string, m: RegExpMatchArray): Wall {
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const s = m[6] === undefined ? 0 : Number(m[6]);
  const days = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (mo! < 1 || mo! > 12) throw malformed(text, `month ${m[2]} does not exist`);
  if (d! < 1 || d! > days) throw malformed(text, `day ${m[3]} does not exist in that month`);
  if (h! > 23 || mi! > 59 || s > 59) throw malformed(text, 'hours go to 23, minutes and seconds to 59');
  return { y: y!, mo: mo!, d: d!, h: h!, mi: mi!, s };
}

/**
 * The same wall time read with the offset in force before the gap lands just
 * after it (02:30 in a 02:00-03:00 gap is 03:30 in the new offset): suggest
 * that moment, in the date and year that were written.
 */
export function gapHint(wall: Wall, zone: string): string {
  const ms = afterGap(wall, zone);
  return `Pick a time outside the skipped hour, e.g. ${isoInZone(ms, zone)}, or give an explicit offset.`;
}

/**
 * The instant of a wall time in `zone`, with the DST rules of every local time --at reads (a
 * local date-time, a natural form): a time in a gap is refused, with a time that does exist;
 * one in an overlap is the earlier, with a note. `whole` is what was typed; the wall time it
 * names is said beside it (`"tomorrow 2:30" (2026-03-29 02:30)`) unless `written` says the
 * words are that date and time already (`2026-03-29 02:30`).
 */
export function resolveWall(whole: string, wall: Wall, zone: string, written = false): { ms: number; note?: string } {
  const instants = instantsForWall(wall, zone);
  const shown = written ? '' : ` (${pad(wall.y, 4)}-${pad(wall.mo)}-${pad(wall.d)} ${pad(wall.h)}:${pad(wall.mi)})`;
  if (instants.length === 0) {
    throw new UsageError(`the time "${sanitize(whole)}"${shown} does not exist in ${zone} (clocks move forward that day)`, {
      hint: gapHint(wall, zone),
    });
  }
  const ms = instants[0]!;
  if (instants.length === 1) return { ms };
  const later = instants[instants.length - 1]!;
  return {
    ms,
    note:
      `${whole}${shown} happens twice in ${zone} (clocks move back that day): using the earlier one, ` +
      `${isoInZone(ms, zone)}; for the later one write ${isoInZone(later, zone)}`,
  };
}

/**
 * A rhythm of times to post at (batch --slots, --every): the rule read, and
 * the times it gives from a moment on. Pure: the zone and the moments are
 * passed in.
 *
 * `--slots "mon-fri 09:00,17:00"`: days (`mon`...`sun` as --at names them, ranges
 * like `mon-fri` or `fri-mon`, `daily`, `weekdays`, `weekends`, a list with
 * commas) then times of day as --at reads them (natural-when.ts timeOfDay);
 * clauses joined with `;` (`"mon-fri 9:00; sat 11am"`); times alone are daily.
 * A time the clocks skip or repeat follows --at's rule (local-time.ts
 * resolveWall): the slot is left out, or is the earlier one, and a note says so.
 * `--every 2h`: from --from on, every so long (absolute time: a clock change
 * moves no slot).
 */
import { UsageError, sanitize } from '../errors.js';
import { parseDuration } from './duration.js';
import { parseWhen } from './parse-when.js';
import { isoInZone, pad } from './iso-time.js';
import { resolveWall } from './local-time.js';
import { timeOfDay, WEEKDAYS } from './natural-when.js';
import { addDays, offsetAt, wallAsUtc, wallAt, type Wall } from './zones.js';

export interface TimeOfDay {
  h: number;
  mi: number;
  s: number;
}

export type SlotRule =
  | { kind: 'slots'; text: string; /** Per weekday (0 Sunday), its times, sorted. */ byDay: TimeOfDay[][] }
  | { kind: 'every'; text: string; everyMs: number };

/** One time the rule gives: its instant and local day; or a time it would give that the clocks skip. */
export interface Slot {
  ms: number;
  /** The local date, YYYY-MM-DD. */
  day: string;
  /** A time that happens twice (the earlier taken), or, with `skipped`, one that does not happen. */
  note?: string;
  skipped?: boolean;
  /** The zone's offset at the slot, in ms. */
  offsetMs: number;
}

/** A local day: its date, its bounds, and whether one offset holds all through it (no clock change). */
interface SteadyDay {
  day: string;
  start: number;
  end: number;
  offsetMs: number;
  steady: boolean;
}

/** The local day of wall time `w` in `zone`: steady when the offset at its first and last moment is the same. */
function steadyDay(w: Pick<Wall, 'y' | 'mo' | 'd'>, zone: string): SteadyDay {
  const next = addDays(w, 1);
  const midnight = Date.UTC(w.y, w.mo - 1, w.d);
  const offsetMs = offsetAt(midnight - offsetAt(midnight, zone), zone);
  const start = midnight - offsetMs;
  const end = Date.UTC(next.y, next.mo - 1, next.d) - offsetMs;
  const steady = offsetAt(start, zone) === offsetMs && offsetAt(end - 1, zone) === offsetMs;
  return { day: `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}`, start, end, offsetMs, steady };
}

const DAY_WORDS = 'mon...sun (or monday...sunday), a range like mon-fri, daily, weekdays or weekends';
const ALL = [0, 1, 2, 3, 4, 5, 6];
const SETS: Record<string, number[]> = { daily: ALL, everyday: ALL, weekdays: [1, 2, 3, 4, 5], weekends: [0, 6], weekend: [0, 6] };

/** exit 2 naming the place in the rule that is wrong: the piece and the character it starts at. */
function ruleError(flag: string, text: string, at: number, piece: string, why: string): UsageError {
  const where = piece ? `"${sanitize(piece)}" (character ${at + 1})` : `at character ${at + 1}`;
  return new UsageError(`invalid rule "${sanitize(text)}" for ${flag}: ${where} ${why}`, {
    hint: 'Write days then times, e.g. --slots "mon-fri 09:00,17:00", --slots "weekends 11am; daily 18:30", or --every 2h --from "tomorrow 9:00".',
  });
}

/** The rule of --slots or --every (exactly one of them given); exit 2 at the place that is wrong. */
export function parseSlotRule(opts: { slots?: string; every?: string }): SlotRule {
  if (opts.slots !== undefined && opts.every !== undefined) {
    throw new UsageError('--slots and --every are two rules for the same times: give one of them', {
      hint: 'Use --slots "mon-fri 09:00,17:00" for times of day, or --every 2h (with --from) for a fixed interval.',
    });
  }
  if (opts.every !== undefined) {
    const text = opts.every;
    if (text.trim() === '') throw ruleError('--every', text, 0, '', 'is empty: give an interval such as 2h or 90m');
    const everyMs = parseDuration(text, '--every');
    if (everyMs < 60_000) throw ruleError('--every', text, 0, text.trim(), 'is under a minute: slots are whole minutes');
    if (everyMs % 60_000 !== 0) throw ruleError('--every', text, 0, text.trim(), 'is not a whole number of minutes');
    return { kind: 'every', text, everyMs };
  }
  const text = opts.slots ?? '';
  if (text.trim() === '') throw ruleError('--slots', text, 0, '', 'is empty: give days and times, e.g. "mon-fri 09:00,17:00"');
  const byDay: TimeOfDay[][] = ALL.map(() => []);
  let offset = 0;
  for (const clause of text.split(';')) {
    readClause(text, clause, offset, byDay);
    offset += clause.length + 1;
  }
  for (const times of byDay) {
    times.sort((a, b) => a.h - b.h || a.mi - b.mi || a.s - b.s);
    for (let i = times.length - 1; i > 0; i--) if (sameTime(times[i]!, times[i - 1]!)) times.splice(i, 1);
  }
  return { kind: 'slots', text, byDay };
}

const sameTime = (a: TimeOfDay, b: TimeOfDay): boolean => a.h === b.h && a.mi === b.mi && a.s === b.s;

/** One clause, "DAYS TIME,TIME" or "TIME,TIME" (daily), added to `byDay`. `offset`: where it starts in the rule. */
function readClause(text: string, clause: string, offset: number, byDay: TimeOfDay[][]): void {
  const lead = clause.length - clause.trimStart().length;
  const body = clause.trim().toLowerCase();
  if (body === '') throw ruleError('--slots', text, offset + lead, '', 'an empty clause: remove the extra ";" or give days and times');
  const startsWithTime = /^\d/.test(body) || body.startsWith('noon');
  const space = body.search(/\s/);
  const daysText = startsWithTime ? '' : space < 0 ? body : body.slice(0, space);
  const days = startsWithTime ? ALL : readDays(text, daysText, offset + lead);
  const timesAt = startsWithTime ? lead : lead + daysText.length;
  const timesText = clause.slice(timesAt);
  if (timesText.trim() === '') throw ruleError('--slots', text, offset + lead, daysText, 'has no times: add them, e.g. "' + daysText + ' 09:00,17:00"');
  let at = offset + timesAt;
  for (const raw of timesText.split(',')) {
    const piece = raw.trim().toLowerCase();
    const pieceAt = at + raw.length - raw.trimStart().length;
    at += raw.length + 1;
    if (piece === '') throw ruleError('--slots', text, pieceAt, '', 'a time is missing between the commas');
    const t = timeOfDay(piece, text, (why) => ruleError('--slots', text, pieceAt, piece, why));
    if (!t) throw ruleError('--slots', text, pieceAt, piece, 'is not a time of day (write 09:00, 9am or 17:30)');
    for (const d of days) byDay[d]!.push(t);
  }
}

/** "mon-fri", "sat,sun", "weekdays": the weekdays (0 Sunday) named. */
function readDays(text: string, daysText: string, start: number): number[] {
  const days = new Set<number>();
  let at = start;
  for (const part of daysText.split(',')) {
    const partAt = at;
    at += part.length + 1;
    if (part === '') throw ruleError('--slots', text, partAt, '', `a day is missing between the commas: use ${DAY_WORDS}`);
    const set = SETS[part];
    if (set) {
      for (const d of set) days.add(d);
      continue;
    }
    const [from, to, extra] = part.split('-');
    const a = WEEKDAYS[from!];
    if (a === undefined) throw ruleError('--slots', text, partAt, from!, `is not a day: use ${DAY_WORDS}`);
    if (to === undefined) {
      days.add(a);
      continue;
    }
    const b = WEEKDAYS[to];
    if (b === undefined || extra !== undefined) throw ruleError('--slots', text, partAt + from!.length + 1, to, `is not a day to end the range with: use ${DAY_WORDS}`);
    for (let d = a; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === b) break;
    }
  }
  return [...days];
}

/**
 * The slots of `rule` at or after `from`, in time order, in `zone`, up to `until` (exclusive):
 * a time the clocks skip comes with `skipped` (and the words --at says of it), one they repeat
 * is the earlier with a note.
 */
export function* slotsFrom(rule: SlotRule, from: number, until: number, zone: string): Generator<Slot> {
  if (rule.kind === 'every') {
    let day: SteadyDay | undefined;
    for (let ms = from; ms < until; ms += rule.everyMs) {
      if (!day || ms >= day.end) day = steadyDay(wallAt(ms, zone), zone);
      yield day.steady && ms >= day.start ? { ms, day: day.day, offsetMs: day.offsetMs } : { ms, day: dayOf(ms, zone), offsetMs: offsetAt(ms, zone) };
    }
    return;
  }
  const start = wallAt(from, zone);
  for (let i = 0; ; i++) {
    const date = addDays(start, i);
    const day = `${pad(date.y, 4)}-${pad(date.mo)}-${pad(date.d)}`;
    const weekday = new Date(Date.UTC(date.y, date.mo - 1, date.d)).getUTCDay();
    const times = rule.byDay[weekday]!;
    // A day the clocks do not change on: each wall time is its one instant at the day's offset.
    const steady = times.length > 0 ? steadyDay(date, zone) : undefined;
    for (const t of times) {
      const shown = `${day} ${pad(t.h)}:${pad(t.mi)}`;
      let slot: Slot;
      try {
        if (steady?.steady) {
          slot = { ms: wallAsUtc({ ...date, ...t }) - steady.offsetMs, day, offsetMs: steady.offsetMs };
        } else {
          const r = resolveWall(shown, { ...date, ...t }, zone, true);
          slot = { ms: r.ms, day, note: r.note, offsetMs: offsetAt(r.ms, zone) };
        }
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        slot = { ms: NaN, day, skipped: true, offsetMs: 0, note: `${err.message}: the slot is left out` };
      }
      if (!slot.skipped && slot.ms >= until) return;
      if (slot.skipped || slot.ms >= from) yield slot;
    }
    // Past `until` in every zone (UTC midnight less the largest offset, 14 hours): no later day can give one.
    if (Date.UTC(date.y, date.mo - 1, date.d) - 14 * 3_600_000 >= until) return;
  }
}

/** The local date (YYYY-MM-DD) of an instant. */
export function dayOf(ms: number, zone: string): string {
  return isoInZone(ms, zone).slice(0, 10);
}

/**
 * A time as --at reads it, or a date alone (its 00:00 in `zone`), for a flag that names a bound
 * (--from, --since, --until); `allowPast`: a time before `now` is taken.
 */
export function parseDayOrWhen(text: string, opts: { now: number; zone: string; flag: string; allowPast?: boolean }): number {
  const trimmed = text.trim();
  return parseWhen(/^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed} 00:00` : trimmed, opts).ms;
}

/**
 * --from as --at reads it (a date alone is its 00:00; today's date is from now on); exit 2 for
 * a time in the past, naming --from.
 */
export function parseFrom(text: string, now: number, zone: string): number {
  if (text.trim() === dayOf(now, zone)) return now;
  return parseDayOrWhen(text, { now, zone, flag: '--from' });
}

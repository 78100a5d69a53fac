/**
 * POSIX TZ strings, as the C library reads them (glibc's tzset): a standard
 * time's name and offset, and optionally a summer time's name, offset (an
 * hour ahead by default) and rule (US rules by default, as glibc's):
 *
 *   JST-9    <+0530>-5:30    CET-1CEST,M3.5.0,M10.5.0/3    EST5EDT,M3.2.0,M11.1.0
 *   NZST-12NZDT,M9.5.0,M4.1.0/3   <-03>3<-02>,M3.5.0/-2,M10.5.0/-1   XYZ0ABC,J60/2,300/2
 *
 * An offset is hours west of UTC ([+-]hh[:mm[:ss]], JST-9 is UTC+9); a rule
 * day is Mm.w.d (month, week 1-5 with 5 the last, weekday 0-6 from Sunday),
 * Jn (1-365, February 29 never counted) or n (0-365, counted), each with an
 * optional /time of day (default 02:00, -167 to 167 hours). Pure: what is in
 * force at an instant, computed as glibc does (the rule's two changes in the
 * instant's UTC year). Used only for a TZ that is not an IANA name (zones.ts).
 */

/** One end of summer time: the day (of a kind) and the local time of day it changes, in seconds. */
type RuleDay = { kind: 'J'; n: number; secs: number } | { kind: 'n'; n: number; secs: number } | { kind: 'M'; m: number; w: number; d: number; secs: number };

/** A POSIX TZ string read: offsets in seconds EAST of UTC (the opposite of the string's sign). */
export interface PosixZone {
  std: { name: string; offset: number };
  dst?: { name: string; offset: number; start: RuleDay; end: RuleDay };
}

const HOUR = 3600;

/** Reads a POSIX TZ string; undefined when it is not one. */
export function parsePosixTz(text: string): PosixZone | undefined {
  let i = 0;
  const name = (): string | undefined => {
    const quoted = /^<([A-Za-z0-9+-]{3,})>/.exec(text.slice(i));
    const plain = quoted ? null : /^[A-Za-z]{3,}/.exec(text.slice(i));
    const m = quoted ?? plain;
    if (!m) return undefined;
    i += m[0].length;
    return quoted ? quoted[1] : m[0];
  };
  /** [+-]hh[:mm[:ss]] in seconds, hours up to `maxH`. */
  const time = (maxH: number): number | undefined => {
    const m = /^([+-]?)(\d{1,3})(?::(\d{1,2})(?::(\d{1,2}))?)?/.exec(text.slice(i));
    if (!m) return undefined;
    const [h, mi, s] = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
    if (h > maxH || mi > 59 || s > 59) return undefined;
    i += m[0].length;
    return (m[1] === '-' ? -1 : 1) * (h * HOUR + mi * 60 + s);
  };
  const ruleDay = (): RuleDay | undefined => {
    const m = /^(?:J(\d{1,3})|(\d{1,3})|M(\d{1,2})\.(\d)\.(\d))/.exec(text.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    let secs = 2 * HOUR;
    if (text[i] === '/') {
      i++;
      const t = time(167);
      if (t === undefined) return undefined;
      secs = t;
    }
    if (m[1] !== undefined) return Number(m[1]) >= 1 && Number(m[1]) <= 365 ? { kind: 'J', n: Number(m[1]), secs } : undefined;
    if (m[2] !== undefined) return Number(m[2]) <= 365 ? { kind: 'n', n: Number(m[2]), secs } : undefined;
    const [mo, w, d] = [Number(m[3]), Number(m[4]), Number(m[5])];
    return mo >= 1 && mo <= 12 && w >= 1 && w <= 5 && d <= 6 ? { kind: 'M', m: mo, w, d, secs } : undefined;
  };

  const stdName = name();
  const stdOffset = stdName === undefined ? undefined : time(24);
  if (stdName === undefined || stdOffset === undefined) return undefined;
  const zone: PosixZone = { std: { name: stdName, offset: -stdOffset } };
  if (i === text.length) return zone;
  const dstName = name();
  if (dstName === undefined) return undefined;
  let dstOffset = -stdOffset + HOUR;
  if (i < text.length && text[i] !== ',') {
    const t = time(24);
    if (t === undefined) return undefined;
    dstOffset = -t;
  }
  // No rule: the US rules since 2007 (glibc's default when no posixrules file says otherwise).
  let start: RuleDay = { kind: 'M', m: 3, w: 2, d: 0, secs: 2 * HOUR };
  let end: RuleDay = { kind: 'M', m: 11, w: 1, d: 0, secs: 2 * HOUR };
  if (i < text.length) {
    if (text[i++] !== ',') return undefined;
    const s = ruleDay();
    if (s === undefined || text[i++] !== ',') return undefined;
    const e = ruleDay();
    if (e === undefined || i !== text.length) return undefined;
    [start, end] = [s, e];
  }
  return { ...zone, dst: { name: dstName, offset: dstOffset, start, end } };
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Seconds from the start of `year` (UTC) to the start of the rule's day, plus its time. */
function secondsIntoYear(r: RuleDay, year: number): number {
  if (r.kind === 'J') return ((r.n - 1) + (isLeap(year) && r.n >= 60 ? 1 : 0)) * 86_400 + r.secs;
  if (r.kind === 'n') return r.n * 86_400 + r.secs;
  const first = Date.UTC(year, r.m - 1, 1);
  const firstWeekday = new Date(first).getUTCDay();
  let day = 1 + ((r.d - firstWeekday + 7) % 7) + (r.w - 1) * 7;
  const days = new Date(Date.UTC(year, r.m, 0)).getUTCDate();
  while (day > days) day -= 7;
  return (first - Date.UTC(year, 0, 1)) / 1000 + (day - 1) * 86_400 + r.secs;
}

/** The offset (seconds east of UTC) and name in force at instant `ms`. */
export function posixAt(zone: PosixZone, ms: number): { offset: number; name: string } {
  const { std, dst } = zone;
  if (!dst) return std;
  const year = new Date(ms).getUTCFullYear();
  const yearStart = Date.UTC(year, 0, 1) / 1000;
  // Each change at local time, in the offset in force before it: summer time starts in standard time, ends in summer time.
  const start = yearStart + secondsIntoYear(dst.start, year) - std.offset;
  const end = yearStart + secondsIntoYear(dst.end, year) - dst.offset;
  const t = Math.floor(ms / 1000);
  const summer = start < end ? t >= start && t < end : t >= start || t < end;
  return summer ? dst : std;
}

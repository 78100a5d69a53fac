/**
 * The forms of --at people type: `in 2h` / `in 1 hour 30 minutes`; a time of
 * day alone (its next occurrence); `today`, `tomorrow` or a weekday followed
 * by a time; a date with a one-digit hour or am/pm (`2026-11-23 9:00`).
 */
import { malformed } from './at-grammar.js';
import { checkedWall, resolveWall } from './local-time.js';
import { addRelative, type RelativePart } from './relative.js';
import { addDays, instantsForWall, wallAt } from './zones.js';

const UNIT_WORDS: Record<string, string> = {
  s: 's', sec: 's', secs: 's', second: 's', seconds: 's',
  m: 'm', min: 'm', mins: 'm', minute: 'm', minutes: 'm',
  h: 'h', hr: 'h', hrs: 'h', hour: 'h', hours: 'h',
  d: 'd', day: 'd', days: 'd',
  w: 'w', week: 'w', weeks: 'w',
};

/** The names of the days of the week (0 Sunday to 6 Saturday), as --at and --slots read them. */
export const WEEKDAYS: Record<string, number> = {
  sun: 0, sunday: 0,
  mon: 1, monday: 1,
  tue: 2, tues: 2, tuesday: 2,
  wed: 3, weds: 3, wednesday: 3,
  thu: 4, thur: 4, thurs: 4, thursday: 4,
  fri: 5, friday: 5,
  sat: 6, saturday: 6,
};

/**
 * `9:00`, `09:00:30`, `9am`, `9:30 pm`, `noon`; undefined when it is not a time of day. `fail` makes
 * the error of a time that is one but wrong (--at's by default; --slots names its own flag).
 */
export function timeOfDay(text: string, whole: string, fail: (why: string) => Error = (why) => malformed(whole, why)): { h: number; mi: number; s: number } | undefined {
  if (text === 'noon') return { h: 12, mi: 0, s: 0 };
  if (text === 'midnight') throw fail('midnight belongs to two days: write "00:00" with the day after, or "23:59"');
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(text);
  if (!m) return undefined;
  const meridiem = m[4]?.replace(/\./g, '');
  if (m[2] === undefined && !meridiem) {
    throw fail(`"${m[1]}" alone could be a day, an hour or a duration: write ${m[1]}:00, ${m[1]}am or "in ${m[1]}h"`);
  }
  let h = Number(m[1]);
  const mi = m[2] === undefined ? 0 : Number(m[2]);
  const s = m[3] === undefined ? 0 : Number(m[3]);
  if (meridiem) {
    if (h < 1 || h > 12) throw fail(`with ${meridiem} the hour goes from 1 to 12`);
    h = (h % 12) + (meridiem === 'pm' ? 12 : 0);
  }
  if (h > 23 || mi > 59 || s > 59) throw fail('hours go to 23, minutes and seconds to 59');
  return { h, mi, s };
}

/**
 * The forms people type: `in 2h` / `in 1 hour 30 minutes`; a time of day
 * alone (its next occurrence); `today`, `tomorrow` or a weekday (the next day
 * with that name, today included while the time is still ahead) followed by a
 * time; a date with a one-digit hour or am/pm (`2026-11-23 9:00`). Undefined
 * when the text is none of these; UsageError when it is one of them but
 * ambiguous.
 */
export function parseNatural(whole: string, now: number, zone: string): { ms: number; note?: string } | undefined {
  const text = whole.toLowerCase().replace(/\s+/g, ' ').trim();

  const rel = /^in ((?:\d+ ?[a-z]+ ?(?:and )?)+)$/.exec(text);
  if (rel) {
    const parts: RelativePart[] = [];
    for (const part of rel[1]!.matchAll(/(\d+) ?([a-z]+)/g)) {
      if (part[2] === 'and') continue;
      const unit = UNIT_WORDS[part[2]!];
      if (!unit) throw malformed(whole, `"${part[2]}" is not a unit: use s, m, h, d or w (or seconds, minutes, hours, days, weeks)`);
      parts.push({ n: Number(part[1]), unit });
    }
    return addRelative(whole, parts, now, zone);
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

/**
 * Every form of TZ the C library reads (tz-forms.ts): the zone vidpub resolves
 * gives glibc's offset at each instant of the table, and glibc (date -f) still
 * gives it on this machine; local times in a POSIX zone resolve with the same
 * gap and overlap rules as an IANA zone's; a TZ that cannot be read is a usage
 * error naming it.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { zoneAbbreviation } from '../../src/time/describe.js';
import { resolveWall } from '../../src/time/local-time.js';
import { parsePosixTz } from '../../src/time/posix-tz.js';
import { isValidTimeZone, offsetAt, resolveTimeZone, wallAt } from '../../src/time/zones.js';
import { TZ_FORMS } from './tz-forms.js';

/** glibc's offsets (seconds east) for `tz` at `instants`, from date(1). */
function glibcOffsets(tz: string, instants: number[]): number[] {
  const out = execFileSync('date', ['-f', '-', '+%::z'], { env: { TZ: tz, PATH: process.env.PATH }, input: instants.map((t) => `@${t}`).join('\n') + '\n' });
  return out
    .toString()
    .trim()
    .split('\n')
    .map((z) => {
      const m = /^([+-])(\d\d):(\d\d):(\d\d)$/.exec(z)!;
      return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]));
    });
}

describe('TZ forms: offsets as glibc gives them', () => {
  it.each(TZ_FORMS.map((f) => [f.tz, f.what, f] as const))('TZ=%s (%s)', (_tz, _what, form) => {
    const instants = Object.keys(form.at).map(Number);
    const expected = instants.map((t) => form.at[t]!);
    expect(glibcOffsets(form.glibcTz ?? form.tz, instants)).toEqual(expected);
    const zone = resolveTimeZone(undefined, { TZ: form.tz });
    expect(instants.map((t) => offsetAt(t * 1000, zone) / 1000)).toEqual(expected);
    // What a clock there shows is the instant moved by that offset.
    for (const t of instants) {
      const w = wallAt(t * 1000, zone);
      expect(Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s)).toBe(t * 1000 + form.at[t]! * 1000);
    }
  });
});

describe('a POSIX zone', () => {
  const zone = resolveTimeZone(undefined, { TZ: 'CET-1CEST,M3.5.0,M10.5.0/3' });

  it('keeps its string as its name, and its own abbreviations', () => {
    expect(zone).toBe('CET-1CEST,M3.5.0,M10.5.0/3');
    expect(zoneAbbreviation(Date.parse('2027-01-15T12:00:00Z'), zone)).toBe('CET');
    expect(zoneAbbreviation(Date.parse('2027-07-15T12:00:00Z'), zone)).toBe('CEST');
    expect(zoneAbbreviation(0, resolveTimeZone(undefined, { TZ: '<+0530>-5:30' }))).toBe('+0530');
  });

  it('a local time in the spring gap does not exist, with a time that does', () => {
    let err: unknown;
    try {
      resolveWall('2027-03-28 02:30', { y: 2027, mo: 3, d: 28, h: 2, mi: 30, s: 0 }, zone);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('the time "2027-03-28 02:30" (2027-03-28 02:30) does not exist in CET-1CEST,M3.5.0,M10.5.0/3 (clocks move forward that day)');
    expect((err as UsageError).hint).toBe('Pick a time outside the skipped hour, e.g. 2027-03-28T03:30:00+02:00, or give an explicit offset.');
  });

  it('a local time in the autumn overlap is the earlier, with a note', () => {
    const r = resolveWall('2027-10-31 02:30', { y: 2027, mo: 10, d: 31, h: 2, mi: 30, s: 0 }, zone);
    expect(new Date(r.ms).toISOString()).toBe('2027-10-31T00:30:00.000Z');
    expect(r.note).toContain('happens twice in CET-1CEST,M3.5.0,M10.5.0/3');
    expect(r.note).toContain('2027-10-31T02:30:00+01:00');
  });

  it('southern hemisphere: the gap in September, the overlap in April', () => {
    const nz = resolveTimeZone(undefined, { TZ: 'NZST-12NZDT,M9.5.0,M4.1.0/3' });
    expect(() => resolveWall('x', { y: 2027, mo: 9, d: 26, h: 2, mi: 30, s: 0 }, nz)).toThrow(/does not exist/);
    expect(resolveWall('x', { y: 2027, mo: 4, d: 4, h: 2, mi: 30, s: 0 }, nz).note).toMatch(/happens twice/);
  });

  it('is a valid --tz and a valid manifest tz', () => {
    expect(isValidTimeZone('JST-9')).toBe(true);
    expect(resolveTimeZone('JST-9', {})).toBe('JST-9');
    expect(isValidTimeZone('ABC')).toBe(false);
  });
});

describe('TZ as the C library reads it', () => {
  it('empty is UTC; unset is the machine zone', () => {
    expect(resolveTimeZone(undefined, { TZ: '' })).toBe('UTC');
    expect(resolveTimeZone(undefined, {})).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  });

  it('an IANA name is spelled as Intl does, with or without a colon', () => {
    expect(resolveTimeZone(undefined, { TZ: ':Europe/Paris' })).toBe('Europe/Paris');
    expect(resolveTimeZone(undefined, { TZ: '/usr/share/zoneinfo/Asia/Tokyo' })).toBe('Asia/Tokyo');
  });

  it.each([
    ['garbage', 'a name without an offset'],
    ['ABC', 'no offset'],
    ['JS-9', 'a name of two letters'],
    ['JST-25', 'an offset past 24 hours'],
    ['JST-9:60', 'minutes past 59'],
    ['<+05-5', 'an unclosed quote'],
    ['CET-1CEST,M3.5.0', 'a rule with one end'],
    ['CET-1CEST,M13.5.0,M10.5.0/3', 'month 13'],
    ['CET-1CEST,M3.6.0,M10.5.0/3', 'week 6'],
    ['CET-1CEST,M3.5.7,M10.5.0/3', 'weekday 7'],
    ['XYZ0ABC,J0,J365', 'J0'],
    ['XYZ0ABC,366,300', 'day 366'],
    ['CET-1CEST,M3.5.0/200,M10.5.0', 'a change at 200 hours'],
    ['JST-9 ', 'a trailing blank'],
    ['Mars/Olympus_Mons', 'an unknown area'],
    [':/etc/passwd', 'a path outside a zoneinfo directory'],
    ['JST-9\u001b[2J', 'a control sequence'],
  ])('TZ=%j (%s) is a usage error naming it', (tz) => {
    expect(parsePosixTz(tz)).toBeUndefined();
    let err: unknown;
    try {
      resolveTimeZone(undefined, { TZ: tz });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/^TZ is ".*", which is not a time zone vidpub can read$/);
    expect((err as UsageError).message).not.toContain('\u001b');
  });
});

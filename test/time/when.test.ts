import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';
import { describeMoment, describeRelative } from '../../src/time/describe.js';
import { isoInZone, isoUtc } from '../../src/time/iso-time.js';
import { parseWhen } from '../../src/time/parse-when.js';
import { resolveTimeZone } from '../../src/time/zones.js';

// 2026-06-15T10:00:00Z: summer in Paris (+02:00) and New York (-04:00).
const NOW = Date.UTC(2026, 5, 15, 10, 0, 0);
const paris = { now: NOW, zone: 'Europe/Paris' };
const ny = { now: NOW, zone: 'America/New_York' };

const usage = (fn: () => unknown): UsageError => expectError(UsageError, fn);

describe('parseWhen', () => {
  it('"now" is sent as now and shown in the zone and in UTC', () => {
    const w = parseWhen('NOW', paris);
    expect(w).toMatchObject({ now: true, publishAt: 'now', local: '2026-06-15T12:00:00+02:00', utc: '2026-06-15T10:00:00Z' });
  });

  it('reads ISO 8601 with an offset or Z and keeps the written offset', () => {
    expect(parseWhen('2026-11-21T09:00:00+01:00', ny)).toMatchObject({
      now: false,
      publishAt: '2026-11-21T09:00:00+01:00',
      utc: '2026-11-21T08:00:00Z',
      zone: '+01:00',
    });
    expect(parseWhen('2026-11-21T08:00Z', paris)).toMatchObject({ publishAt: '2026-11-21T08:00:00+00:00', utc: '2026-11-21T08:00:00Z', zone: 'UTC' });
    expect(parseWhen('2026-11-21 09:00:30.250-0530', paris).utc).toBe('2026-11-21T14:30:30Z');
  });

  it('reads a local date-time in the given zone, with the offset in force that day', () => {
    expect(parseWhen('2026-11-21 09:00', paris)).toMatchObject({ publishAt: '2026-11-21T09:00:00+01:00', utc: '2026-11-21T08:00:00Z', zone: 'Europe/Paris' });
    expect(parseWhen('2026-07-04T09:00', paris).publishAt).toBe('2026-07-04T09:00:00+02:00');
    expect(parseWhen('2026-11-21 09:00:15', ny)).toMatchObject({ publishAt: '2026-11-21T09:00:15-05:00', utc: '2026-11-21T14:00:15Z' });
    expect(parseWhen('2026-07-04 09:00', ny).publishAt).toBe('2026-07-04T09:00:00-04:00');
  });

  it('reads relative times, compound ones too', () => {
    expect(parseWhen('+30m', paris)).toMatchObject({ utc: '2026-06-15T10:30:00Z', publishAt: '2026-06-15T12:30:00+02:00' });
    expect(parseWhen('+2h', ny).publishAt).toBe('2026-06-15T08:00:00-04:00');
    expect(parseWhen('+1d', paris).utc).toBe('2026-06-16T10:00:00Z');
    expect(parseWhen('+1h30m', paris).utc).toBe('2026-06-15T11:30:00Z');
  });

  it('refuses a local time in the spring-forward gap (Europe/Paris 2026-03-29 02:30)', () => {
    const err = usage(() => parseWhen('2026-03-29 02:30', { now: Date.UTC(2026, 0, 1), zone: 'Europe/Paris' }));
    expect(err.message).toMatch(/does not exist in Europe\/Paris \(clocks move forward/);
    expect(err.exitCode).toBe(2);
    // the example in the hint is that day's time as it exists, not a fixed date
    expect(err.hint).toBe('Pick a time outside the skipped hour, e.g. 2026-03-29T03:30:00+02:00, or give an explicit offset.');
    // the minute before and the hour after exist
    expect(parseWhen('2026-03-29 01:59', { now: Date.UTC(2026, 0, 1), zone: 'Europe/Paris' }).publishAt).toBe('2026-03-29T01:59:00+01:00');
    expect(parseWhen('2026-03-29 03:00', { now: Date.UTC(2026, 0, 1), zone: 'Europe/Paris' }).publishAt).toBe('2026-03-29T03:00:00+02:00');
  });

  it('refuses the New York gap too (2026-03-08 02:15)', () => {
    const err = usage(() => parseWhen('2026-03-08T02:15', { now: Date.UTC(2026, 0, 1), zone: 'America/New_York' }));
    expect(err.message).toMatch(/does not exist in America\/New_York/);
  });

  it('takes the earlier of a repeated fall-back time and says so', () => {
    const w = parseWhen('2026-11-01 01:30', { now: Date.UTC(2026, 0, 1), zone: 'America/New_York' });
    expect(w.publishAt).toBe('2026-11-01T01:30:00-04:00');
    expect(w.utc).toBe('2026-11-01T05:30:00Z');
    expect(w.note).toMatch(/happens twice in America\/New_York.*earlier.*2026-11-01T01:30:00-05:00/);
    const paris2 = parseWhen('2026-10-25 02:30', { now: Date.UTC(2026, 0, 1), zone: 'Europe/Paris' });
    expect(paris2.publishAt).toBe('2026-10-25T02:30:00+02:00');
    expect(paris2.note).toMatch(/\+01:00/);
  });

  it('refuses a past time, whatever the format', () => {
    for (const t of ['2026-06-15T09:59:59Z', '2026-06-15 11:00', '2020-01-01T00:00:00+00:00']) {
      const err = usage(() => parseWhen(t, paris));
      expect(err.message).toMatch(/is in the past/);
      expect(err.exitCode).toBe(2);
    }
  });

  it('refuses malformed times with the accepted formats in the hint', () => {
    for (const t of ['tomorrow', '2026-13-01 09:00', '2026-02-30 09:00', '2026-11-21 24:00', '21/11/2026 09:00', '+0m', '+5x', '', '2026-11-21T09:00+25:00']) {
      const err = usage(() => parseWhen(t, paris));
      expect(err.message).toMatch(/invalid time/);
      expect(err.hint).toMatch(/ISO 8601/);
    }
    expect(usage(() => parseWhen('2026-11-21', paris)).message).toMatch(/add a time of day/);
  });
});

describe('zones', () => {
  it('takes --tz first, then TZ, then the machine zone', () => {
    expect(resolveTimeZone('Asia/Tokyo', { TZ: 'Europe/Paris' })).toBe('Asia/Tokyo');
    expect(resolveTimeZone(undefined, { TZ: ':Europe/Paris' })).toBe('Europe/Paris');
    expect(resolveTimeZone(undefined, {})).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('a TZ that cannot be read is a usage error naming it, never the machine zone or UTC in silence', () => {
    const err = usage(() => resolveTimeZone(undefined, { TZ: 'Not/AZone' }));
    expect(err.message).toBe('TZ is "Not/AZone", which is not a time zone vidpub can read');
    expect(err.hint).toMatch(/^Set TZ to an IANA name \(Europe\/Paris, :Asia\/Tokyo\) or a POSIX TZ string \(JST-9, /);
  });

  it('refuses an unknown --tz', () => {
    const err = usage(() => resolveTimeZone('Mars/Olympus', {}));
    expect(err.message).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it('formats a moment with its offset and in UTC; a person reads the date, time and zone name', () => {
    const ms = Date.UTC(2026, 10, 21, 8, 0, 0);
    expect(isoInZone(ms, 'Europe/Paris')).toBe('2026-11-21T09:00:00+01:00');
    expect(isoInZone(ms, 'Asia/Kolkata')).toBe('2026-11-21T13:30:00+05:30');
    expect(isoUtc(ms)).toBe('2026-11-21T08:00:00Z');
    expect(describeMoment(ms, 'UTC')).toBe('2026-11-21 08:00 UTC (2026-11-21T08:00:00Z)');
    expect(describeMoment(ms, 'Europe/Paris')).toBe('2026-11-21 09:00 CET (2026-11-21T08:00:00Z)');
  });
});

describe('the forms people type', () => {
  // NOW is Monday 2026-06-15, 12:00 in Paris.
  const at = (t: string, o = paris) => parseWhen(t, o).publishAt;

  it('reads a time alone as its next occurrence', () => {
    expect(at('13:00')).toBe('2026-06-15T13:00:00+02:00');
    expect(at('9:00')).toBe('2026-06-16T09:00:00+02:00');
    expect(at('9am')).toBe('2026-06-16T09:00:00+02:00');
    expect(at('9:30 PM')).toBe('2026-06-15T21:30:00+02:00');
    expect(at('12am')).toBe('2026-06-16T00:00:00+02:00');
    expect(at('noon')).toBe('2026-06-16T12:00:00+02:00');
  });

  it('reads today, tomorrow and weekdays with a time', () => {
    expect(at('tomorrow 9:00')).toBe('2026-06-16T09:00:00+02:00');
    expect(at('Tomorrow 09:00')).toBe('2026-06-16T09:00:00+02:00');
    expect(at('today 18:30')).toBe('2026-06-15T18:30:00+02:00');
    expect(at('mon 09:00')).toBe('2026-06-22T09:00:00+02:00'); // today is Monday, 09:00 has passed
    expect(at('monday 1pm')).toBe('2026-06-15T13:00:00+02:00'); // still ahead today
    expect(at('monday 9am')).toBe('2026-06-22T09:00:00+02:00');
    expect(at('fri 9:00')).toBe('2026-06-19T09:00:00+02:00');
    expect(at('sunday 23:59')).toBe('2026-06-21T23:59:00+02:00');
    expect(at('tomorrow 9:00', ny)).toBe('2026-06-16T09:00:00-04:00');
  });

  it('reads a date with a one-digit hour or am/pm', () => {
    expect(at('2026-11-23 9:00')).toBe('2026-11-23T09:00:00+01:00');
    expect(at('2026-11-23 9:05pm')).toBe('2026-11-23T21:05:00+01:00');
  });

  it('reads "in 2h" and its spelled-out forms', () => {
    expect(parseWhen('in 2h', paris).utc).toBe('2026-06-15T12:00:00Z');
    expect(parseWhen('in 90 minutes', paris).utc).toBe('2026-06-15T11:30:00Z');
    expect(parseWhen('in 1 hour and 30 mins', paris).utc).toBe('2026-06-15T11:30:00Z');
    expect(parseWhen('IN 1d', paris).utc).toBe('2026-06-16T10:00:00Z');
  });

  it('keeps the DST rules: a gap is refused, an overlap takes the earlier one with a note', () => {
    // Saturday 2026-03-28 in Paris: tomorrow 02:30 does not exist.
    const sat = { now: Date.UTC(2026, 2, 28, 10), zone: 'Europe/Paris' };
    expect(usage(() => parseWhen('tomorrow 2:30', sat)).message).toMatch(/"tomorrow 2:30" \(2026-03-29 02:30\) does not exist in Europe\/Paris/);
    expect(parseWhen('tomorrow 3:30', sat).publishAt).toBe('2026-03-29T03:30:00+02:00');
    const eve = { now: Date.UTC(2026, 9, 24, 10), zone: 'Europe/Paris' };
    const w = parseWhen('sun 2:30', eve);
    expect(w.publishAt).toBe('2026-10-25T02:30:00+02:00');
    expect(w.note).toMatch(/happens twice in Europe\/Paris.*2026-10-25T02:30:00\+01:00/);
  });

  it('refuses ambiguous input with examples valid now', () => {
    const cases: [string, RegExp][] = [
      ['9', /"9" alone could be a day, an hour or a duration: write 9:00, 9am or "in 9h"/],
      ['tomorrow', /give a time of day too, e.g. "tomorrow 9:00"/],
      ['next monday 9:00', /"next" is ambiguous/],
      ['13pm', /with pm the hour goes from 1 to 12/],
      ['midnight', /midnight belongs to two days/],
      ['in 2 fortnights', /"fortnights" is not a unit/],
      ['someday', /^invalid time "someday" for --at$/],
    ];
    for (const [t, re] of cases) {
      const err = usage(() => parseWhen(t, paris));
      expect(err.message).toMatch(re);
      expect(err.exitCode).toBe(2);
      expect(err.hint).toContain('For example: now, "in 2h", +30m, 9:00, "tomorrow 9:00", "mon 09:00", "monday 9am", "2026-06-22 09:00", 2026-06-22T09:00:00Z (ISO 8601). Local times are read in Europe/Paris');
    }
    // every example in the hint is accepted at that moment
    for (const ex of ['now', 'in 2h', '+30m', '9:00', 'tomorrow 9:00', 'mon 09:00', 'monday 9am', '2026-06-22 09:00', '2026-06-22T09:00:00Z']) {
      expect(() => parseWhen(ex, paris)).not.toThrow();
    }
  });

  it('a past "today" is refused as past', () => {
    expect(usage(() => parseWhen('today 9:00', paris)).message).toMatch(/is in the past/);
  });
});

describe('describeRelative', () => {
  it('says the day, the time in the zone with its name, how far, and UTC', () => {
    const now = Date.UTC(2026, 10, 22, 20, 14, 0); // Sunday 21:14 in Berlin
    expect(describeRelative(Date.UTC(2026, 10, 23, 8, 0, 0), 'Europe/Berlin', now)).toBe('tomorrow 09:00 CET, in 11 h 46 m (2026-11-23T08:00:00Z)');
    expect(describeRelative(Date.UTC(2026, 10, 22, 20, 44, 30), 'Europe/Berlin', now)).toBe('today 21:44:30 CET, in 30 m 30 s (2026-11-22T20:44:30Z)');
    expect(describeRelative(Date.UTC(2026, 10, 25, 8, 0, 0), 'America/New_York', now)).toBe('Wed 03:00 EST, in 2 d 12 h (2026-11-25T08:00:00Z)');
    expect(describeRelative(Date.UTC(2026, 11, 25, 8, 0, 0), 'UTC', now)).toBe('2026-12-25 08:00 UTC, in 32 d 12 h (2026-12-25T08:00:00Z)');
    expect(describeRelative(now - 90_000, 'Asia/Tokyo', now)).toBe('today 05:12:30 GMT+9, 1 m 30 s ago (2026-11-22T20:12:30Z)');
  });
});

import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';
import { describeMoment, isoInZone, isoUtc, parseWhen, resolveTimeZone } from '../../src/posts/when.js';

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
    expect(resolveTimeZone(undefined, { TZ: 'Not/AZone' })).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('refuses an unknown --tz', () => {
    const err = usage(() => resolveTimeZone('Mars/Olympus', {}));
    expect(err.message).toMatch(/unknown time zone "Mars\/Olympus"/);
  });

  it('formats a moment with its offset and in UTC', () => {
    const ms = Date.UTC(2026, 10, 21, 8, 0, 0);
    expect(isoInZone(ms, 'Europe/Paris')).toBe('2026-11-21T09:00:00+01:00');
    expect(isoInZone(ms, 'Asia/Kolkata')).toBe('2026-11-21T13:30:00+05:30');
    expect(isoUtc(ms)).toBe('2026-11-21T08:00:00Z');
    expect(describeMoment(ms, 'UTC')).toBe('2026-11-21T08:00:00+00:00 (2026-11-21T08:00:00Z)');
  });
});

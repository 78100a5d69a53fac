import { describe, expect, it } from 'vitest';
import { parseWhen } from '../../src/time/parse-when.js';
import { UsageError } from '../../src/errors.js';

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error('expected a UsageError');
}

describe('the clocks-forward hint suggests a time on the date that was written', () => {
  it('2027-03-28 02:30 in Europe/Paris suggests 2027-03-28T03:30:00+02:00, not a 2026 date', () => {
    const err = usage(() => parseWhen('2027-03-28 02:30', { now: Date.UTC(2027, 0, 1), zone: 'Europe/Paris' }));
    expect(err.message).toBe('the time "2027-03-28 02:30" does not exist in Europe/Paris (clocks move forward that day)');
    expect(err.hint).toBe('Pick a time outside the skipped hour, e.g. 2027-03-28T03:30:00+02:00, or give an explicit offset.');
    expect(err.exitCode).toBe(2);
  });

  it('works in another zone and year (America/New_York 2030-03-10 02:15)', () => {
    const err = usage(() => parseWhen('2030-03-10 02:15', { now: Date.UTC(2030, 0, 1), zone: 'America/New_York' }));
    expect(err.hint).toContain('e.g. 2030-03-10T03:15:00-04:00,');
  });

  it('the suggested time is accepted as it is', () => {
    const err = usage(() => parseWhen('2027-03-28 02:30', { now: Date.UTC(2027, 0, 1), zone: 'Europe/Paris' }));
    const suggested = /e\.g\. (\S+),/.exec(err.hint ?? '')![1]!;
    expect(parseWhen(suggested, { now: Date.UTC(2027, 0, 1), zone: 'Europe/Paris' }).utc).toBe('2027-03-28T01:30:00Z');
  });
});

describe('a local date-time and a natural form read a wall time by one rule (local-time.ts resolveWall)', () => {
  const paris = (now: number) => ({ now, zone: 'Europe/Paris' });
  const saturdayBeforeSpring = paris(Date.UTC(2026, 2, 28, 11));
  const saturdayBeforeAutumn = paris(Date.UTC(2026, 9, 24, 10));

  it('in the spring gap: both refused with the same hint; the natural form also names the wall time', () => {
    const typed = usage(() => parseWhen('2026-03-29 02:30', saturdayBeforeSpring));
    const natural = usage(() => parseWhen('tomorrow 2:30', saturdayBeforeSpring));
    const dateAndLooseTime = usage(() => parseWhen('2026-03-29 2:30', saturdayBeforeSpring));
    expect(typed.message).toBe('the time "2026-03-29 02:30" does not exist in Europe/Paris (clocks move forward that day)');
    expect(natural.message).toBe('the time "tomorrow 2:30" (2026-03-29 02:30) does not exist in Europe/Paris (clocks move forward that day)');
    expect(dateAndLooseTime.message).toBe('the time "2026-03-29 2:30" (2026-03-29 02:30) does not exist in Europe/Paris (clocks move forward that day)');
    for (const e of [typed, natural, dateAndLooseTime]) {
      expect(e.hint).toBe('Pick a time outside the skipped hour, e.g. 2026-03-29T03:30:00+02:00, or give an explicit offset.');
      expect(e.exitCode).toBe(2);
    }
  });

  it('in the autumn overlap: both the earlier instant, with the same note but for the wall time named', () => {
    const typed = parseWhen('2026-10-25 02:30', saturdayBeforeAutumn);
    const natural = parseWhen('sun 2:30', saturdayBeforeAutumn);
    expect(typed.utc).toBe('2026-10-25T00:30:00Z');
    expect(natural.utc).toBe(typed.utc);
    const tail = 'happens twice in Europe/Paris (clocks move back that day): using the earlier one, 2026-10-25T02:30:00+02:00; for the later one write 2026-10-25T02:30:00+01:00';
    expect(typed.note).toBe(`2026-10-25 02:30 ${tail}`);
    expect(natural.note).toBe(`sun 2:30 (2026-10-25 02:30) ${tail}`);
  });
});

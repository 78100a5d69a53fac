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

import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';
import { planPostTimes, type PostTimesInput } from '../../src/batch/post-times.js';
import { parseSlotRule } from '../../src/time/slot-rule.js';

const BERLIN = 'Europe/Berlin';
const NOW = Date.UTC(2027, 2, 20, 12); // Saturday 2027-03-20
const FROM = Date.UTC(2027, 2, 24, 23); // Thursday 2027-03-25 00:00 in Berlin
const items = (n: number, destinations = ['dst_a']) => Array.from({ length: n }, (_, i) => ({ n: i + 1, destinations }));
const input = (over: Partial<PostTimesInput>): PostTimesInput => ({
  rule: parseSlotRule({ slots: 'mon-fri 09:00,17:00' }),
  from: FROM,
  now: NOW,
  zone: BERLIN,
  perSlot: 1,
  items: items(12),
  scheduled: [],
  ...over,
});

describe('planPostTimes', () => {
  it('12 items over the weekend and the spring-forward night, one a slot', () => {
    const { times } = planPostTimes(input({}));
    expect(times.map((t) => t.local)).toEqual([
      '2027-03-25T09:00:00+01:00', '2027-03-25T17:00:00+01:00', '2027-03-26T09:00:00+01:00', '2027-03-26T17:00:00+01:00',
      '2027-03-29T09:00:00+02:00', '2027-03-29T17:00:00+02:00', '2027-03-30T09:00:00+02:00', '2027-03-30T17:00:00+02:00',
      '2027-03-31T09:00:00+02:00', '2027-03-31T17:00:00+02:00', '2027-04-01T09:00:00+02:00', '2027-04-01T17:00:00+02:00',
    ]);
    expect(times[4]).toMatchObject({ n: 5, utc: '2027-03-29T07:00:00Z' });
  });

  it('takes the next free slots around posts already scheduled for the destination (within the minute)', () => {
    const at = (iso: string) => Date.parse(iso);
    const scheduled = [
      { ms: at('2027-03-25T08:00:30Z'), destinations: ['dst_a'] }, // Thu 09:00:30 Berlin: the 09:00 slot's minute
      { ms: at('2027-03-26T08:00:00Z'), destinations: ['dst_a', 'dst_b'] },
      { ms: at('2027-03-26T16:00:00Z'), destinations: ['dst_a'] },
      { ms: at('2027-03-25T16:00:00Z'), destinations: ['dst_b'] }, // another destination: no matter
    ];
    const { times } = planPostTimes(input({ items: items(3), scheduled }));
    expect(times.map((t) => t.local)).toEqual(['2027-03-25T17:00:00+01:00', '2027-03-29T09:00:00+02:00', '2027-03-29T17:00:00+02:00']);
    // Two destinations: a slot is free when it is free for both.
    const both = planPostTimes(input({ items: items(1, ['dst_a', 'dst_b']), scheduled }));
    expect(both.times[0]!.local).toBe('2027-03-29T09:00:00+02:00');
  });

  it('--per-slot N puts up to N posts per destination in one slot', () => {
    const { times } = planPostTimes(input({ items: items(5), perSlot: 2 }));
    expect(times.map((t) => t.local.slice(0, 16))).toEqual(['2027-03-25T09:00', '2027-03-25T09:00', '2027-03-25T17:00', '2027-03-25T17:00', '2027-03-26T09:00']);
  });

  it('skips a day whose posts would pass the daily allowance, and says so', () => {
    const rule = parseSlotRule({ every: '1h' });
    const { times, notes } = planPostTimes(input({ rule, items: items(4), dailyLimit: 3, scheduled: [{ ms: Date.parse('2027-03-25T05:00:00Z'), destinations: ['dst_z'] }] }));
    // Thursday holds 1 post already: 2 more fit; the third item goes to Friday.
    expect(times.map((t) => t.local)).toEqual(['2027-03-25T00:00:00+01:00', '2027-03-25T01:00:00+01:00', '2027-03-26T00:00:00+01:00', '2027-03-26T01:00:00+01:00']);
    expect(notes).toEqual(['2027-03-25 is skipped: 3 posts are scheduled that day, the daily allowance is 3']);
  });

  it('says which slots the clocks skip', () => {
    const { times, notes } = planPostTimes(input({ rule: parseSlotRule({ slots: 'daily 02:30' }), items: items(4) }));
    expect(times.map((t) => t.local.slice(0, 10))).toEqual(['2027-03-25', '2027-03-26', '2027-03-27', '2027-03-29']);
    expect(notes).toEqual(['the time "2027-03-28 02:30" does not exist in Europe/Berlin (clocks move forward that day): the slot is left out']);
  });

  it('never gives a time in the past: from now on when --from is earlier', () => {
    const { times } = planPostTimes(input({ from: NOW - 86_400_000, items: items(1) }));
    expect(times[0]!.local).toBe('2027-03-22T09:00:00+01:00');
  });

  it('exit 2 when the rule has too few slots within the 365 days the service schedules ahead', () => {
    const err = expectError(UsageError, () => planPostTimes(input({ rule: parseSlotRule({ slots: 'mon 9:00' }), items: items(60) })));
    expect(err.message).toBe('the rule "mon 9:00" has slots for 51 of the 60 items without a time within the 365 days the service schedules ahead; nothing was sent');
    expect(err.exitCode).toBe(2);
  });
});

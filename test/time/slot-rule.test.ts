import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';
import { isoInZone } from '../../src/time/iso-time.js';
import { parseFrom, parseSlotRule, slotsFrom, type SlotRule } from '../../src/time/slot-rule.js';

const BERLIN = 'Europe/Berlin';
// Thursday 2027-03-25 00:00 in Berlin (+01:00); the clocks move forward in the night of Sunday the 28th.
const THU = Date.UTC(2027, 2, 24, 23, 0, 0);
const usage = (fn: () => unknown): UsageError => expectError(UsageError, fn);

function first(rule: SlotRule, n: number, from = THU, zone = BERLIN): string[] {
  const out: string[] = [];
  for (const s of slotsFrom(rule, from, from + 400 * 86_400_000, zone)) {
    out.push(s.skipped ? `skipped ${s.day}` : isoInZone(s.ms, zone));
    if (out.length === n) break;
  }
  return out;
}

describe('parseSlotRule', () => {
  it('reads days, ranges and times as --at reads them, over the weekend and the spring-forward night', () => {
    expect(first(parseSlotRule({ slots: 'mon-fri 09:00,17:00' }), 6)).toEqual([
      '2027-03-25T09:00:00+01:00',
      '2027-03-25T17:00:00+01:00',
      '2027-03-26T09:00:00+01:00',
      '2027-03-26T17:00:00+01:00',
      '2027-03-29T09:00:00+02:00',
      '2027-03-29T17:00:00+02:00',
    ]);
  });

  it('takes daily, weekdays, weekends, lists, wrapping ranges, am/pm, noon and clauses joined with ";"', () => {
    expect(first(parseSlotRule({ slots: 'weekends 11am; Fri-Sat noon' }), 4)).toEqual([
      '2027-03-26T12:00:00+01:00',
      '2027-03-27T11:00:00+01:00',
      '2027-03-27T12:00:00+01:00',
      '2027-03-28T11:00:00+02:00',
    ]);
    expect(first(parseSlotRule({ slots: 'sat-mon 8:00' }), 3)).toEqual(['2027-03-27T08:00:00+01:00', '2027-03-28T08:00:00+02:00', '2027-03-29T08:00:00+02:00']);
    expect(first(parseSlotRule({ slots: '18:30' }), 2)).toEqual(['2027-03-25T18:30:00+01:00', '2027-03-26T18:30:00+01:00']);
    const rule = parseSlotRule({ slots: 'weekdays 9:00, 9am,10:00' });
    expect(rule.kind === 'slots' && rule.byDay.map((t) => t.length)).toEqual([0, 2, 2, 2, 2, 2, 0]);
  });

  it('a time the clocks skip is left out, with --at\'s words; one they repeat is the earlier, with a note', () => {
    const slots = [...slotsFrom(parseSlotRule({ slots: 'daily 02:30' }), THU, THU + 5 * 86_400_000, BERLIN)];
    const gap = slots.find((s) => s.skipped)!;
    expect(gap.day).toBe('2027-03-28');
    expect(gap.note).toMatch(/"2027-03-28 02:30" does not exist in Europe\/Berlin \(clocks move forward that day\): the slot is left out/);
    const autumn = Date.UTC(2027, 9, 30, 12);
    const twice = [...slotsFrom(parseSlotRule({ slots: 'sun 02:30' }), autumn, autumn + 2 * 86_400_000, BERLIN)];
    expect(twice).toHaveLength(1);
    expect(isoInZone(twice[0]!.ms, BERLIN)).toBe('2027-10-31T02:30:00+02:00');
    expect(twice[0]!.note).toMatch(/happens twice in Europe\/Berlin .*earlier one/);
  });

  it('--every counts absolute time from --from: a clock change moves no slot', () => {
    const from = Date.UTC(2027, 2, 27, 23, 0); // Sun 00:00 +01:00
    expect(first(parseSlotRule({ every: '2h' }), 3, from)).toEqual(['2027-03-28T00:00:00+01:00', '2027-03-28T03:00:00+02:00', '2027-03-28T05:00:00+02:00']);
  });

  it.each([
    [{ slots: 'funday 25:00' }, /invalid rule "funday 25:00" for --slots: "funday" \(character 1\) is not a day/],
    [{ slots: 'mon 25:00' }, /invalid rule "mon 25:00" for --slots: "25:00" \(character 5\) hours go to 23/],
    [{ slots: 'mon-fri 09:00,,17:00' }, /at character 15 a time is missing between the commas/],
    [{ slots: 'mon-xyz 9:00' }, /"xyz" \(character 5\) is not a day to end the range with/],
    [{ slots: 'mon 9:00; sat' }, /"sat" \(character 11\) has no times/],
    [{ slots: 'mon 9:00;' }, /at character 10 an empty clause/],
    [{ slots: 'mon 9' }, /"9" \(character 5\) "9" alone could be a day, an hour or a duration/],
    [{ slots: 'mon lunch' }, /"lunch" \(character 5\) is not a time of day/],
    [{ slots: '  ' }, /^invalid rule ".*" for --slots: at character 1 is empty/],
    [{ slots: 'weekdays 9:00,tue 10:00' }, /"tue 10:00" \(character 15\) is not a time of day/],
    [{ every: '' }, /invalid rule "" for --every: at character 1 is empty/],
    [{ every: '30s' }, /is under a minute/],
    [{ every: 'often' }, /invalid --every "often"/],
    [{ slots: 'daily 9:00', every: '2h' }, /--slots and --every are two rules for the same times: give one of them/],
  ])('refuses %j (exit 2, the place named)', (opts, message) => {
    const err = usage(() => parseSlotRule(opts));
    expect(err.message).toMatch(message);
    expect(err.exitCode).toBe(2);
  });
});

describe('parseFrom', () => {
  const now = Date.UTC(2027, 2, 20, 12);
  it('reads --at\'s forms; a date alone is its midnight, today\'s date is now', () => {
    expect(isoInZone(parseFrom('2027-03-25', now, BERLIN), BERLIN)).toBe('2027-03-25T00:00:00+01:00');
    expect(parseFrom('2027-03-20', now, BERLIN)).toBe(now);
    expect(isoInZone(parseFrom('tomorrow 9:00', now, BERLIN), BERLIN)).toBe('2027-03-21T09:00:00+01:00');
  });
  it('refuses a time in the past, naming --from', () => {
    const err = usage(() => parseFrom('2027-03-19', now, BERLIN));
    expect(err.message).toMatch(/^the time 2027-03-19T00:00:00\+01:00 \(2027-03-18T23:00:00Z\) for --from is in the past$/);
    expect(usage(() => parseFrom('someday', now, BERLIN)).message).toMatch(/invalid time "someday" for --from/);
  });
});

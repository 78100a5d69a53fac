/**
 * The emulator's Idempotency-Key store on its own: expired keys are swept, and
 * the sweep stays O(1) per key on average when every key is still within the
 * 24 h window (a sweep at a fixed size passed over all of them again on every
 * new key: a batch of 100,000 posts slowed down item by item).
 */
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_SEC } from '../../src/contract/wire-types.js';
import { IdempotencyStore } from '../../src/emulator/idempotency.js';
import { Clock } from '../../src/emulator/offset-clock.js';

function store() {
  const clock = new Clock(() => Date.parse('2026-11-28T00:00:00Z'));
  return { s: new IdempotencyStore(clock), advance: (ms: number) => clock.advance(ms / 1000) };
}

describe('IdempotencyStore sweeps', () => {
  it('80,000 keys within the window: 3 sweeps (with 10,000, 20,000 and 40,000 held), every key kept', () => {
    const { s } = store();
    for (let i = 0; i < 80_000; i++) expect(s.begin('ws', `k${i}`, 'f').kind).toBe('new');
    expect(s.sweeps).toBe(3);
    expect(s.size).toBe(80_000);
    // The first key is still held: begun and not finished, it is in flight.
    expect(() => s.begin('ws', 'k0', 'f')).toThrow('A request with this Idempotency-Key is still being handled.');
  });

  it('keys past the 24 h window are swept, and the next sweep waits for 10,000 keys again', () => {
    const { s, advance } = store();
    for (let i = 0; i < 10_000; i++) s.begin('ws', `old${i}`, 'f');
    advance(IDEMPOTENCY_WINDOW_SEC * 1000 + 1);
    s.begin('ws', 'new0', 'f'); // the 10,001st key: a sweep, the 10,000 old ones go
    expect(s.sweeps).toBe(1);
    expect(s.size).toBe(1);
    for (let i = 1; i < 9_999; i++) s.begin('ws', `new${i}`, 'f');
    expect(s.sweeps).toBe(1);
    s.begin('ws', 'new9999', 'f');
    expect(s.sweeps).toBe(1);
    s.begin('ws', 'new10000', 'f');
    expect(s.sweeps).toBe(2);
  });
});

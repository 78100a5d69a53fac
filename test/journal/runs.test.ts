/**
 * The memory of cut-off post runs (src/journal/runs.ts) on its own: what is
 * continued, what is forgotten, and files it does not trust.
 */
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_MEMORY_MS, RunStore } from '../../src/journal/runs.js';

const WHAT = 'a'.repeat(32);
/** A pid no process has (above Linux's pid_max). */
const DEAD = 2 ** 22 + 12345;

function store(now: { t: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-runs-'));
  return { dir, runs: new RunStore(dir, () => now.t) };
}

const plant = (dir: string, name: string, body: unknown) => {
  mkdirSync(join(dir, 'runs'), { recursive: true });
  writeFileSync(join(dir, 'runs', name), typeof body === 'string' ? body : JSON.stringify(body));
};

describe('the runs a rerun may continue', () => {
  it('a run of this process that has not ended is running: not continued; once ended unknown, it is', () => {
    const now = { t: 1_000_000 };
    const { runs } = store(now);
    runs.open(WHAT, { key: 'vp-one', started: now.t });
    expect(runs.cutOff(WHAT)).toBeUndefined();
    runs.end(WHAT, 'vp-one', false);
    expect(runs.cutOff(WHAT)).toEqual({ key: 'vp-one', started: 1_000_000, ended: true });
    // another post is another fingerprint
    expect(runs.cutOff('b'.repeat(32))).toBeUndefined();
    runs.end(WHAT, 'vp-one', true);
    expect(runs.cutOff(WHAT)).toBeUndefined();
  });

  it('a killed run (its process gone) is continued, the newest first, for 24 hours; then it is removed', () => {
    const now = { t: 5 * RUN_MEMORY_MS };
    const { dir, runs } = store(now);
    plant(dir, `${WHAT}.vp-old.json`, { v: 1, key: 'vp-old', started: now.t - 3_600_000, pid: DEAD, host: hostname(), publishAt: '2030-01-01T09:00:00+01:00' });
    plant(dir, `${WHAT}.vp-new.json`, { v: 1, key: 'vp-new', started: now.t - 60_000, pid: DEAD, host: hostname() });
    expect(runs.cutOff(WHAT)?.key).toBe('vp-new');
    now.t += RUN_MEMORY_MS - 90_000; // vp-new is 30 s short of a day old, vp-old over a day
    expect(runs.cutOff(WHAT)).toEqual({ key: 'vp-new', started: 5 * RUN_MEMORY_MS - 60_000 });
    expect(readdirSync(join(dir, 'runs'))).toEqual([`${WHAT}.vp-new.json`]);
    now.t += 60_000;
    expect(runs.cutOff(WHAT)).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([]);
  });

  it('a temporary file left by a run killed mid-write goes after a day', () => {
    const now = { t: Date.now() };
    const { dir, runs } = store(now);
    plant(dir, `.${WHAT}.vp-a.json.123.tmp`, '{"v":1');
    plant(dir, `.${WHAT}.vp-b.json.456.tmp`, '{"v":1');
    const old = (now.t - RUN_MEMORY_MS - 60_000) / 1000;
    utimesSync(join(dir, 'runs', `.${WHAT}.vp-a.json.123.tmp`), old, old);
    expect(runs.cutOff(WHAT)).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([`.${WHAT}.vp-b.json.456.tmp`]);
  });

  it('files it did not write are not trusted: another shape, a key that is no key, half a file', () => {
    const now = { t: 1_000_000 };
    const { dir, runs } = store(now);
    plant(dir, `${WHAT}.vp-a.json`, { v: 2, key: 'vp-a', started: now.t, pid: DEAD, host: hostname() });
    plant(dir, `${WHAT}.vp-b.json`, { v: 1, key: '../../etc', started: now.t, pid: DEAD, host: hostname() });
    plant(dir, `${WHAT}.vp-c.json`, '{"v":1,"key":"vp-c","sta');
    expect(runs.cutOff(WHAT)).toBeUndefined();
  });

  it('a state directory that cannot be written: nothing is remembered, nothing throws', () => {
    const now = { t: 1_000_000 };
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-runs-'));
    writeFileSync(join(dir, 'runs'), 'a file where the directory would be');
    const runs = new RunStore(dir, () => now.t);
    expect(() => runs.open(WHAT, { key: 'vp-x', started: now.t })).not.toThrow();
    expect(() => runs.end(WHAT, 'vp-x', false)).not.toThrow();
    expect(runs.cutOff(WHAT)).toBeUndefined();
  });
});

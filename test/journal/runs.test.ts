/**
 * The memory of cut-off post runs (src/journal/runs.ts) on its own: what is
 * continued, what is forgotten, and files it does not trust.
 */
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_MEMORY_MS, RunStore, settleRuns } from '../../src/journal/runs.js';
import { holdAddresses } from '../../src/journal/run-hold.js';

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
  it('a run of this process that has not ended is running: not continued; once ended unknown, it is', async () => {
    const now = { t: 1_000_000 };
    const { runs } = store(now);
    expect(runs.open(WHAT, { key: 'vp-one', started: now.t })).toBe(true);
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    runs.end(WHAT, 'vp-one', 'unknown');
    expect(await runs.cutOff(WHAT)).toEqual({ key: 'vp-one', started: 1_000_000, ended: true });
    // another post is another fingerprint
    expect(await runs.cutOff('b'.repeat(32))).toBeUndefined();
    runs.end(WHAT, 'vp-one', 'known');
    settleRuns();
    expect(await runs.cutOff(WHAT)).toBeUndefined();
  });

  it('a finished run keeps its note, held, until the command has printed its outcome (settleRuns); killed before, it is continued', async () => {
    const now = { t: 1_000_000 };
    const { dir, runs } = store(now);
    runs.open(WHAT, { key: 'vp-done', started: now.t });
    runs.end(WHAT, 'vp-done', 'known');
    expect(readdirSync(join(dir, 'runs')).filter((n) => n.endsWith('.json'))).toEqual([`${WHAT}.vp-done.json`]);
    // still held: a command beside it is a run of its own
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    settleRuns();
    expect(readdirSync(join(dir, 'runs'))).toEqual([]);
  });

  it('a run stopped by a signal keeps its note as it was (not marked ended), and no longer holds it', async () => {
    const now = { t: 1_000_000 };
    const { runs } = store(now);
    runs.open(WHAT, { key: 'vp-sig', started: now.t, step: 'post:fresh' });
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    runs.end(WHAT, 'vp-sig', 'cut-off');
    expect(await runs.cutOff(WHAT)).toEqual({ key: 'vp-sig', started: 1_000_000, step: 'post:fresh' });
  });

  it('a note whose process id is a live process of another program is not running: nothing holds it', async () => {
    const now = { t: Date.now() };
    const { dir, runs } = store(now);
    // pid 1 and this test's parent are alive; kill(pid, 0) said "running" for both
    plant(dir, `${WHAT}.vp-pid1.json`, { v: 1, key: 'vp-pid1', started: now.t - 2000, pid: 1, host: hostname() });
    plant(dir, `${WHAT}.vp-ppid.json`, { v: 1, key: 'vp-ppid', started: now.t - 1000, pid: process.ppid, host: hostname() });
    expect((await runs.cutOff(WHAT))?.key).toBe('vp-ppid');
    // the older one is found once the newer is gone
    runs.end(WHAT, 'vp-ppid', 'known');
    settleRuns();
    expect((await runs.cutOff(WHAT))?.key).toBe('vp-pid1');
  });

  it('a run that is held is passed over for an older one that is not', async () => {
    const now = { t: Date.now() };
    const { dir, runs } = store(now);
    plant(dir, `${WHAT}.vp-old.json`, { v: 1, key: 'vp-old', started: now.t - 5000, pid: DEAD, host: hostname() });
    runs.open(WHAT, { key: 'vp-live', started: now.t });
    try {
      expect((await runs.cutOff(WHAT))?.key).toBe('vp-old');
    } finally {
      runs.end(WHAT, 'vp-live', 'known');
      settleRuns();
    }
  });

  it('the hold is a socket beside the notes when its path fits, else one in the abstract namespace', async () => {
    const short = holdAddresses('/tmp/s/runs', `${WHAT}.vp-x.json`);
    expect(short[0]).toMatch(/^\/tmp\/s\/runs\/\.[0-9a-f]{24}\.sock$/);
    const long = holdAddresses(`/tmp/${'d'.repeat(120)}/runs`, `${WHAT}.vp-x.json`);
    expect(long).toHaveLength(1);
    expect(long[0]).toMatch(process.platform === 'linux' ? /^\0vidpub-run-[0-9a-f]{24}$/ : /vidpub-run-[0-9a-f]{24}\.sock$/);
    // a run in a directory whose socket path is too long is held, and told, all the same
    const now = { t: Date.now() };
    const base = join(mkdtempSync(join(tmpdir(), 'vidpub-runs-')), 'd'.repeat(100));
    const runs = new RunStore(base, () => now.t);
    runs.open(WHAT, { key: 'vp-long', started: now.t });
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    runs.end(WHAT, 'vp-long', 'cut-off');
    expect((await runs.cutOff(WHAT))?.key).toBe('vp-long');
  });

  it('a killed run (its process gone) is continued, the newest first, for 24 hours; then it is removed', async () => {
    const now = { t: 5 * RUN_MEMORY_MS };
    const { dir, runs } = store(now);
    plant(dir, `${WHAT}.vp-old.json`, { v: 1, key: 'vp-old', started: now.t - 3_600_000, pid: DEAD, host: hostname(), publishAt: '2030-01-01T09:00:00+01:00' });
    plant(dir, `${WHAT}.vp-new.json`, { v: 1, key: 'vp-new', started: now.t - 60_000, pid: DEAD, host: hostname() });
    expect((await runs.cutOff(WHAT))?.key).toBe('vp-new');
    now.t += RUN_MEMORY_MS - 90_000; // vp-new is 30 s short of a day old, vp-old over a day
    expect(await runs.cutOff(WHAT)).toEqual({ key: 'vp-new', started: 5 * RUN_MEMORY_MS - 60_000 });
    expect(readdirSync(join(dir, 'runs'))).toEqual([`${WHAT}.vp-new.json`]);
    now.t += 60_000;
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([]);
  });

  it('a temporary file or a socket file left by a run killed mid-write goes after a day', async () => {
    const now = { t: Date.now() };
    const { dir, runs } = store(now);
    plant(dir, `.${WHAT}.vp-a.json.123.tmp`, '{"v":1');
    plant(dir, `.${WHAT}.vp-b.json.456.tmp`, '{"v":1');
    plant(dir, '.0123456789abcdef01234567.sock', '');
    const old = (now.t - RUN_MEMORY_MS - 60_000) / 1000;
    utimesSync(join(dir, 'runs', `.${WHAT}.vp-a.json.123.tmp`), old, old);
    utimesSync(join(dir, 'runs', '.0123456789abcdef01234567.sock'), old, old);
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([`.${WHAT}.vp-b.json.456.tmp`]);
  });

  it('files it did not write are not trusted: another shape, a key that is no key, half a file', async () => {
    const now = { t: 1_000_000 };
    const { dir, runs } = store(now);
    plant(dir, `${WHAT}.vp-a.json`, { v: 2, key: 'vp-a', started: now.t, pid: DEAD, host: hostname() });
    plant(dir, `${WHAT}.vp-b.json`, { v: 1, key: '../../etc', started: now.t, pid: DEAD, host: hostname() });
    plant(dir, `${WHAT}.vp-c.json`, '{"v":1,"key":"vp-c","sta');
    expect(await runs.cutOff(WHAT)).toBeUndefined();
  });

  it('a state directory that cannot be written: writable() names the error, open() says false, nothing throws', async () => {
    const now = { t: 1_000_000 };
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-runs-'));
    writeFileSync(join(dir, 'runs'), 'a file where the directory would be');
    const runs = new RunStore(dir, () => now.t);
    expect(runs.writable()).toMatch(/^(ENOTDIR|EEXIST)$/);
    expect(runs.open(WHAT, { key: 'vp-x', started: now.t })).toBe(false);
    expect(() => runs.end(WHAT, 'vp-x', 'unknown')).not.toThrow();
    expect(await runs.cutOff(WHAT)).toBeUndefined();
  });

  it('a directory that can be written: the probe leaves nothing behind', () => {
    const now = { t: 1_000_000 };
    const { dir, runs } = store(now);
    expect(runs.writable()).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([]);
  });
});

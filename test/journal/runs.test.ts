/**
 * The memory of cut-off post runs (src/journal/runs.ts) on its own: what is
 * continued, what is forgotten, and files it does not trust.
 */
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_KEPT_MS, RUN_MEMORY_MS, RunStore, settleRuns } from '../../src/journal/runs.js';

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
    expect(await runs.open(WHAT, { key: 'vp-one', started: now.t })).toBe(true);
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
    await runs.open(WHAT, { key: 'vp-done', started: now.t });
    runs.end(WHAT, 'vp-done', 'known');
    expect(readdirSync(join(dir, 'runs')).filter((n) => n.endsWith('.json'))).toEqual([`${WHAT}.vp-done.json`]);
    // still held: a command beside it is a run of its own
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    settleRuns();
    // what stays says when it finished: a run started before then ran beside it, and continues it
    expect(readdirSync(join(dir, 'runs'))).toEqual([`${WHAT}.vp-done.done`]);
    expect(runs.finishedSince([WHAT], now.t)).toEqual({ key: 'vp-done', started: now.t, finished: now.t });
    expect(runs.finishedSince([WHAT], now.t + 1)).toBeUndefined();
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    // a day on, it goes
    now.t += RUN_MEMORY_MS + 1;
    expect(runs.finishedSince([WHAT], 0)).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([]);
  });

  it('a run stopped by a signal keeps its note as it was (not marked ended), and no longer holds it', async () => {
    const now = { t: 1_000_000 };
    const { runs } = store(now);
    await runs.open(WHAT, { key: 'vp-sig', started: now.t, step: 'post:fresh' });
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
    await runs.open(WHAT, { key: 'vp-live', started: now.t });
    try {
      expect((await runs.cutOff(WHAT))?.key).toBe('vp-old');
    } finally {
      runs.end(WHAT, 'vp-live', 'known');
      settleRuns();
    }
  });

  it('the hold is a socket file beside the notes, reached through /proc/self/fd when its path is too long for a socket address', async () => {
    const now = { t: Date.now() };
    const { dir, runs } = store(now);
    await runs.open(WHAT, { key: 'vp-short', started: now.t });
    expect(readdirSync(join(dir, 'runs')).filter((n) => n.endsWith('.sock'))).toEqual([expect.stringMatching(new RegExp(`^\\.${WHAT}\\.vp-short\\.[0-9a-f]{12}\\.sock$`))]);
    runs.end(WHAT, 'vp-short', 'cut-off');
    expect(readdirSync(join(dir, 'runs')).filter((n) => n.endsWith('.sock'))).toEqual([]);
    // a directory whose socket path is too long for sun_path (108 bytes): held, and told, all the same
    const base = join(mkdtempSync(join(tmpdir(), 'vidpub-runs-')), 'd'.repeat(100));
    const long = new RunStore(base, () => now.t);
    await long.open(WHAT, { key: 'vp-long', started: now.t });
    expect(Buffer.byteLength(join(base, 'runs', readdirSync(join(base, 'runs')).find((n) => n.endsWith('.sock'))!))).toBeGreaterThan(108);
    expect(await long.cutOff(WHAT)).toBeUndefined();
    expect(await long.running([WHAT])).toEqual([{ key: 'vp-long', note: { key: 'vp-long', started: now.t } }]);
    long.end(WHAT, 'vp-long', 'cut-off');
    expect((await long.cutOff(WHAT))?.key).toBe('vp-long');
  });

  it('claim: a second claim of the same command gives way to the first, live one (whatever its key); released, it is free', async () => {
    const now = { t: Date.now() };
    const { runs } = store(now);
    expect(await runs.claim([WHAT], WHAT, 'vp-first', false)).toEqual([]);
    expect(await runs.claim([WHAT], WHAT, 'vp-second', false)).toEqual([{ key: 'vp-first' }]);
    // with a key, only a live run under that key counts
    expect(await runs.claim([WHAT], WHAT, 'nightly-1', true)).toEqual([]);
    runs.release(WHAT, 'nightly-1');
    runs.release(WHAT, 'vp-first');
    expect(await runs.claim([WHAT], WHAT, 'vp-second', false)).toEqual([]);
    runs.release(WHAT, 'vp-second');
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

  it('a temporary file left by a run killed mid-write goes after a day; a dead socket file at once', async () => {
    const now = { t: Date.now() };
    const { dir, runs } = store(now);
    plant(dir, `.${WHAT}.vp-a.json.123.tmp`, '{"v":1');
    plant(dir, `.${WHAT}.vp-b.json.456.tmp`, '{"v":1');
    // nothing listens on it (a plain file: a connect is refused, as for a dead run's socket)
    plant(dir, `.${WHAT}.vp-c.0123456789ab.sock`, '');
    const old = (now.t - RUN_MEMORY_MS - 60_000) / 1000;
    utimesSync(join(dir, 'runs', `.${WHAT}.vp-a.json.123.tmp`), old, old);
    expect(await runs.cutOff(WHAT)).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([`.${WHAT}.vp-b.json.456.tmp`]);
  });

  it("a note over a day old by this machine's clock is judged by the service's: kept while it says younger, or cannot tell (up to a week)", async () => {
    const now = { t: 10 * RUN_MEMORY_MS };
    const { dir, runs } = store(now);
    plant(dir, `${WHAT}.vp-skewed.json`, { v: 1, key: 'vp-skewed', started: now.t - RUN_MEMORY_MS - 60_000, serviceStarted: 1_000, pid: DEAD, host: hostname() });
    // the service says 5 s old: continued
    expect((await runs.cutOff(WHAT, async (run) => 6_000 - run.serviceStarted!))?.key).toBe('vp-skewed');
    // the service's time unknown: the safe side, continued
    expect((await runs.cutOff(WHAT, async () => undefined))?.key).toBe('vp-skewed');
    // the service says over a day: it goes
    expect(await runs.cutOff(WHAT, async () => RUN_MEMORY_MS + 1)).toBeUndefined();
    expect(readdirSync(join(dir, 'runs'))).toEqual([]);
    // unknown, a week old: it goes too
    plant(dir, `${WHAT}.vp-week.json`, { v: 1, key: 'vp-week', started: now.t - RUN_KEPT_MS - 1, pid: DEAD, host: hostname() });
    expect(await runs.cutOff(WHAT, async () => undefined)).toBeUndefined();
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
    expect(await runs.open(WHAT, { key: 'vp-x', started: now.t })).toBe(false);
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

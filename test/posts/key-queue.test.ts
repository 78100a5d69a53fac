/**
 * Goodput on a shared key (issue 52): different `post` runs on one machine share the key's
 * writes through its queue in the state directory. On a key of 6 writes a minute (2 posts),
 * in-process, on a clock that moves only while every run waits on it: 6 posts take the
 * allowance's 3 minutes, no upload is left without its post, and a run whose turn would come
 * after its --timeout stops at once, sending nothing, with the line that runs it again. Identical
 * runs that wait for the one posting report its settled post from the key's cache, reading nothing. The
 * scale cases (40 and 100 runs on a Standard key, 3 machines of 4, 50 identical runs) are
 * bench/shared-key.bench.mjs's.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { defaultFixture } from '../../src/emulator/default-fixture.js';
import { decide, lookAgain, noteCounter, roll } from '../../src/posts/post/key-queue.js';
import type { QueueState } from '../../src/journal/write-queue.js';
import { runCli } from '../support/cli.js';
import { aheadBy, manualClock, tickWhileAllAsleep, type ManualClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { copyVideo } from '../support/video-copy.js';

let clock: ManualClock = manualClock(Date.now());
const fixture = defaultFixture();
fixture.accounts[0]!.limits = { requests_per_minute: { write: 6 } };
const emu = useEmulator({ processingMs: 20, publishMs: 20, fixture, now: () => clock.now() });

// Each run its own video (the same content would be uploaded once and reused, and refused as a duplicate).
const videos = mkdtempSync(join(tmpdir(), 'vidpub-queue-videos-'));
let made = 0;
const post = (caption: string, ...more: string[]) => {
  const file = copyVideo('test/fixtures/clip.mp4', join(videos, `clip-${made}.mp4`), made++);
  return ['post', file, '--to', 'linkedin', '--caption', caption, '--no-input', '--no-wait', ...more];
};

// The runs started and not yet ended; the clock moves only while each of them sleeps on it (their --timeout aside).
let running = 0;
const started = (run: ReturnType<typeof runCli>) => {
  running++;
  return run.finally(() => running--);
};
const DEADLINES = [600_000, 40_000];
const freshClock = () => {
  clock = manualClock(Date.now());
  running = 0;
  onTestFinished(tickWhileAllAsleep(clock, () => running, DEADLINES));
};

describe("the key's write queue", () => {
  it('6 different posts on a key of 6 writes a minute: posted in 3 minutes, every upload with its post, no 429', async () => {
    freshClock();
    await emu.api.freshMinute();
    const base = mkdtempSync(join(tmpdir(), 'vidpub-queue-'));
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_CACHE_DIR: join(base, 'cache'), TZ: 'UTC' };
    const start = await emu.api.clockNow();
    // The seventh's place is kept from the start: the clock stands still until it has run, so the six wait for it
    // where they are, all in the queue, the first of them let through.
    running++;
    const six = Array.from({ length: 6 }, (_, i) => started(runCli(post(`Queued ${i + 1}`, '--timeout', '10m'), { env, clock })));
    // Then the seventh: its turn is in the 4th minute, after its --timeout.
    const queued = (): number => {
      const dir = join(base, 'state', 'queue');
      const file = existsSync(dir) ? readdirSync(dir).find((n) => n.endsWith('.json')) : undefined;
      return file ? (JSON.parse(readFileSync(join(dir, file), 'utf8')) as QueueState).entries.length : 0;
    };
    await waitFor(async () => queued(), (n) => n >= 6, 20_000);
    // A second later than the six: on a clock that stood still they all joined at one instant, and the queue
    // orders runs by when they joined.
    const lateRun = started(runCli(post('Too late', '--timeout', '40s'), { env, clock: aheadBy(clock, 1000) }));
    running--;
    const late = await lateRun;
    const runs = await Promise.all(six);
    const ended = await emu.api.clockNow();
    const all = runs.map((r) => r.stderr).join('\n');
    expect(runs.map((r) => r.code), all).toEqual(Array(6).fill(0));
    const log = await emu.requests();
    const made = (path: string) => log.filter((q) => q.method === 'POST' && q.path === path && q.status === 201 && !q.replayed).length;
    expect([made('/v1/media/uploads'), made('/v1/posts')]).toEqual([6, 6]);
    expect(log.filter((q) => q.status === 429)).toEqual([]);
    // 18 writes at 6 a minute: the minute it started in and the two after it.
    expect(Math.floor(ended / 60_000) - Math.floor(start / 60_000)).toBeLessThanOrEqual(2);
    expect(all).toMatch(/This key's writes this minute are promised to \d+ runs? ahead of this one on this machine: waiting about/);

    expect(late.code, late.stderr).toBe(7);
    expect(late.stderr).toMatch(/Stopped before its first write: the key's writes are promised to \d+ runs ahead of this one on this machine, and its turn comes in about .+, too late to finish within --timeout; nothing was uploaded or posted\./);
    expect(late.stderr).toMatch(/Rerun to continue it \(nothing is done twice\): .*vidpub post .*--idempotency-key vp-/);
    // The queue's file: one per key, named by a hash (never the key), 0600 in a 0700 directory.
    const dir = join(base, 'state', 'queue');
    const files = readdirSync(dir).filter((n) => n.endsWith('.json'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{32}\.json$/);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  }, 60_000);

  it('3 machines (separate state directories), 2 runs each, on a key of 6 writes a minute: all 6 posted, every upload with its post', async () => {
    freshClock();
    await emu.api.freshMinute();
    const machine = () => {
      const base = mkdtempSync(join(tmpdir(), 'vidpub-queue-machine-'));
      return { ...emu.env(), VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_CACHE_DIR: join(base, 'cache'), TZ: 'UTC' };
    };
    const machines = [machine(), machine(), machine()];
    const start = await emu.api.clockNow();
    // Each machine's queue knows only its own runs: the others' writes reach it through the service's counter
    // (X-RateLimit-*, GET /me) and its 429s, waited out per Retry-After plus a random part.
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => started(runCli(post(`Machine ${(i % 3) + 1} run ${i + 1}`, '--timeout', '10m'), { env: machines[i % 3], clock }))));
    const ended = await emu.api.clockNow();
    expect(runs.map((r) => r.code), runs.map((r) => r.stderr).join('\n')).toEqual(Array(6).fill(0));
    const log = await emu.requests();
    const made = (path: string) => log.filter((q) => q.method === 'POST' && q.path === path && q.status === 201 && !q.replayed).length;
    expect([made('/v1/media/uploads'), made('/v1/posts')]).toEqual([6, 6]);
    // 18 writes at 6 a minute: 3 minutes of the allowance, and at most 2 more lost to the machines' 429s.
    expect(Math.floor(ended / 60_000) - Math.floor(start / 60_000)).toBeLessThanOrEqual(4);
  }, 60_000);

  it('a run further back looks at the queue less often (0.3 s at the head, 3 s at most), with a random part of at most 0.3 s', () => {
    expect([lookAgain(0, () => 0), lookAgain(1, () => 0), lookAgain(4, () => 0), lookAgain(39, () => 0)]).toEqual([300, 600, 1500, 3000]);
    expect(lookAgain(0, () => 0.999_999)).toBe(600);
    expect(lookAgain(39, () => 0.999_999)).toBe(3300);
  });

  it('work already started goes first: a run let through keeps its writes across the reset, a continued run goes before new ones', () => {
    const t = 1_000_000;
    const state: QueueState = {
      entries: [
        { id: 'a', pid: 1, host: 'h', since: t, need: 1, admitted: t },
        { id: 'b', pid: 1, host: 'h', since: t + 1, need: 3 },
        { id: 'c', pid: 1, host: 'h', since: t + 2, need: 3, started: true },
      ],
      window: { limit: 6, resetAt: t + 10_000, spent: 6 },
    };
    expect(decide(state, 'b', t + 1_000)).toMatchObject({ state: 'wait', ahead: 1, admitAt: t + 10_000 });
    // The reset: a's post is the new minute's first write; then c (started), not b.
    roll(state, t + 10_001);
    expect(state.window).toEqual({ limit: 6, resetAt: t + 70_000, spent: 1 });
    expect(decide(state, 'b', t + 10_001).state).toBe('wait');
    expect(decide(state, 'c', t + 10_001).state).toBe('go');
    expect(decide(state, 'b', t + 10_002)).toMatchObject({ state: 'wait', ahead: 0, admitAt: t + 70_000 });
    // Other machines' writes, as the service counts them, leave less.
    noteCounter(state, { limit: 6, remaining: 0, resetSec: 60 }, t + 10_003);
    expect(state.window!.spent).toBe(6);
  });
});

describe('identical runs waiting for the one posting', () => {
  it.each([
    ['', false],
    [' (the daily allowance nearly spent: not trusted from the cache, and not read by a run that writes nothing)', true],
  ])('5 waiters: no request of theirs (no GET /me, no GET /posts/{id}: the settled post is in the key\'s cache), each prints the post, exit 0%s', async (_, low) => {
    clock = manualClock(Date.now());
    running = 0;
    const base = mkdtempSync(join(tmpdir(), 'vidpub-settled-'));
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_CACHE_DIR: join(base, 'cache'), TZ: 'UTC' };
    const file = copyVideo('test/fixtures/clip.mp4', join(videos, 'identical.mp4'), made++);
    const same = ['post', file, '--to', 'linkedin', '--caption', 'Settled once', '--no-input', '--timeout', '10m'];
    const asleep = () => clock.pending().filter((ms) => !DEADLINES.includes(ms)).length;
    const first = started(runCli(same, { env, clock }));
    // Its sleeps before the post (the video's processing) ended as they come, none after it: a sleep ends only when
    // the clock moves, so one seen before a log without the post is a sleep before the post.
    await waitFor(
      async () => {
        const before = clock.pending().filter((ms) => !DEADLINES.includes(ms));
        const posted = (await emu.requests()).some((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201);
        if (!posted && before.length > 0) clock.tick(Math.min(...before));
        return posted && asleep() >= 1;
      },
      (yes) => yes,
      20_000,
    );
    if (low) {
      // What the first run kept of GET /me, made 3 posts left: a run that posts reads GET /me afresh.
      // The file itself once the first run's write of it is over (an atomic write: a hidden .tmp file, then renamed).
      const dir = join(base, 'cache', 'api');
      const name = await waitFor(
        async () => readdirSync(dir),
        (names) => names.some((n) => n.endsWith('.json')) && !names.some((n) => n.endsWith('.tmp')),
        20_000,
      ).then((names) => names.find((n) => n.endsWith('.json') && !n.startsWith('.')));
      const cached = JSON.parse(readFileSync(join(dir, name!), 'utf8')) as { entries: { daily: { value: { remaining: number } } } };
      cached.entries.daily.value.remaining = 3;
      writeFileSync(join(dir, name!), JSON.stringify(cached));
    }
    // 5 identical runs: each claims the command, finds the first live, and waits for it.
    const seen = (await emu.requests()).length;
    const waiters = Array.from({ length: 5 }, () => started(runCli(same, { env, clock })));
    await waitFor(async () => asleep(), (n) => n >= 6, 20_000);
    onTestFinished(tickWhileAllAsleep(clock, () => running, DEADLINES));

    const one = await first;
    expect(one.code, one.stderr).toBe(0);
    const id = /^id\t(post_\w+)$/m.exec(one.stdout)?.[1];
    expect(id).toMatch(/^post_/);
    for (const r of await Promise.all(waiters)) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`id\t${id}\nstatus\tcompleted\n`);
      expect(r.stdout).toMatch(/\tpublished\thttp/);
      expect(r.stderr).toContain(`The identical run waited for has ended and made post ${id} (key `);
      expect(r.stderr).toContain('reporting it as it is now; nothing was uploaded or posted again.');
    }
    // Since the waiters started (the first run asleep in its follow): its one look at its post, which saw it settled; nothing of the waiters'.
    const since = (await emu.requests()).slice(seen).filter((q) => q.path.startsWith('/v1/'));
    expect(since.map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v1/posts/${id}`]);
  }, 60_000);
});

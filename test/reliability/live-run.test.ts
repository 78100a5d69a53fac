/**
 * For one command, at most one post, whatever the other processes, the clock
 * and the paths do. Each case is the built vidpub over real HTTP against the
 * emulator, then a plain rerun (no --idempotency-key), counted from the
 * emulator's log of POST /v1/posts (a replay is not a post):
 *
 * - the first run orphaned (its parent shell killed) and still watching;
 * - the first run stopped by SIGSTOP during POST /v1/posts, the rerun ending
 *   at its --timeout (exit 7, the line that continues it), then SIGCONT;
 * - two identical commands started together, ten times (live-run-together.test.ts, a file of its own
 *   so that it runs beside these);
 * - the rerun on a clock a day ahead (faketime): the service's clock judges;
 * - a full state directory at the rerun (a tmpfs under unshare), then the
 *   command it advises;
 * - two runs in two network namespaces sharing one state directory.
 *
 * The first runs, and every run whose process is the point (faketime's clock,
 * a mount or network namespace), are the built bin; a rerun that only waits
 * for, continues or reports another process's run is in-process (runCli: the
 * same main over real HTTP, a process of its own beside the first run's).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, useEmulator, type TestEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { dirs, post, postId, postsMadeOn, vidpubOn } from './live-run-helpers.js';
import { spawnWatched } from '../support/spawned.js';
import { createTestHost } from '../support/test-host.js';
import { missing } from '../support/tools.js';
import { escapeRegExp } from '../support/regexp.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

const WAITING = /^An identical run of this command is running, started .* under the key (vp-[\w-]+): waiting for it to end \(up to --timeout\), so that what it posts is reported, not posted twice\. To post beside it instead, add --force-new\.$/m;
const RERUN = /^Rerun to continue it \(nothing is done twice\): (vidpub post .*)$/m;

const postSent = (on: TestEmulator = emu) => async () => (await on.requests()).some((q) => q.method === 'POST' && q.path === '/v1/posts');


const vidpub = (args: string[], env: Record<string, string>, on: TestEmulator = emu) => vidpubOn(on, args, env);
/**
 * The same command in-process on a clock 20 times real time (a --timeout 20s is a second of the wall), timed
 * from its start on that clock.
 */
async function inProcess(args: string[], env: Record<string, string>, on: TestEmulator = emu) {
  const clock = scaledClock(20);
  const started = clock.now();
  const r = await runCli(args, { clock, env: { ...on.env(), ...env } });
  return { ...r, ms: clock.now() - started };
}
const postsMade = (on: TestEmulator = emu) => postsMadeOn(on);

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('an identical run still running is never duplicated', () => {
  it('the first run orphaned (its parent shell killed) and still watching its post: the rerun waits for it and reports that post; one post', async () => {
    // Publishing ends only when the test moves the emulator's clock: the first run is still watching when the rerun
    // starts, however loaded the machine (with 6 s of real time, an orphan could end before a late rerun looked, and
    // the rerun was then a command of its own, refused as the same video).
    const slow = await startTestEmulator({ processingMs: 20, publishMs: 600_000 });
    const env = dirs();
    const out = join(env.VIDPUB_STATE_DIR!, '..', 'first.out');
    const args = post('Orphaned', '--timeout', '60s');
    // sh starts vidpub in the background and waits for it: killed, it leaves vidpub orphaned, running on.
    const shell = spawn('sh', ['-c', '"$NODE" "$BIN" "$@" >"$OUT" 2>&1 & echo $!; wait', 'sh', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...slow.env(), ...env, NODE: process.execPath, BIN, OUT: out },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const shellEnded = new Promise((resolve) => shell.on('close', resolve));
    const pid = await new Promise<number>((resolve) => shell.stdout.setEncoding('utf8').once('data', (c: string) => resolve(Number(c.trim()))));
    try {
      await waitFor(() => slow.requests(), (log) => log.some((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201), 20_000);
      shell.kill('SIGKILL');
      await shellEnded;
      expect(alive(pid)).toBe(true);

      // Once the rerun says it waits for the orphan, the publishing ends (the emulator's clock moved past it).
      let waiting: () => void = () => {};
      const saidWaiting = new Promise<void>((resolve) => (waiting = resolve));
      const rerunning = runCli(args, { env: { ...slow.env(), ...env }, onStderr: (c) => /waiting for it to end/.test(c) && waiting() });
      await saidWaiting;
      await slow.api.advance(700);
      const rerun = await rerunning;
      // Its post read from the journal (the run's note names it): reported, nothing sent again (issue 52).
      expect(rerun.stderr).toMatch(/^The identical run waited for has ended and made post post_\w+ \(key vp-[\w-]+\): reporting it as it is now; nothing was uploaded or posted again/m);
      expect(rerun.code).toBe(0);
      await waitFor(async () => alive(pid), (a) => !a, 20_000);
      expect(postId(rerun.stdout)).toBe(postId(readFileSync(out, 'utf8')));
      expect(await postsMade(slow)).toBe(1);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      await slow.close();
    }
  }, 60_000);

  it('the first run stopped (SIGSTOP) during POST /v1/posts: the rerun waits, ends 7 at its --timeout with the line that continues it; after SIGCONT, one post, and that line reports it', async () => {
    const env = dirs();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 1000, times: 1 });
    const first = vidpub(post('Stopped', '--no-wait'), env);
    await waitFor(postSent(), (sent) => sent, 20_000);
    process.kill(first.pid!, 'SIGSTOP');
    let rerun: Awaited<ReturnType<typeof inProcess>>;
    try {
      rerun = await inProcess(post('Stopped', '--no-wait', '--timeout', '20s'), env);
    } finally {
      process.kill(first.pid!, 'SIGCONT');
    }
    const key = WAITING.exec(rerun.stderr)?.[1];
    expect(key).toBeDefined();
    expect(rerun.stderr).toMatch(/^Error: Stopped \(--timeout reached\) while an identical run of this command was still running \(stopped, or still working\); this run sent nothing\.$/m);
    expect(RERUN.exec(rerun.stderr)?.[1]).toBe(`vidpub post test/fixtures/clip.mp4 --to linkedin --caption Stopped --no-input --no-wait --timeout 20s --idempotency-key ${key}`);
    expect(rerun.code).toBe(7);
    expect(rerun.stdout).toBe('');
    // it waited out its --timeout (counted from its start, on its clock), and no longer (10 s of the wall)
    expect(rerun.ms).toBeGreaterThanOrEqual(20_000);
    expect(rerun.ms).toBeLessThan(20_000 + 20 * 10_000);

    const ended = await first.ended;
    expect(ended.code).toBe(0);
    expect(await postsMade()).toBe(1);
    const line = await inProcess([...post('Stopped', '--no-wait'), '--idempotency-key', key!], env);
    expect(line.stderr).toMatch(/^Post post_\w+ was already created by an earlier run with this --idempotency-key; reporting it\.$/m);
    expect(line.code).toBe(0);
    expect(postId(line.stdout)).toBe(postId(ended.stdout));
    expect(await postsMade()).toBe(1);
  }, 60_000);

});

describe('the clock that judges a note is the service’s', () => {
  it.skipIf(missing('faketime'))('the rerun on a machine whose clock jumped a day ahead continues the run cut off 5 s before: one post, and stderr says the clocks disagree', async () => {
    const env = dirs();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 1 });
    const first = vidpub(post('Skewed', '--no-wait'), env);
    await waitFor(postSent(), (sent) => sent, 20_000);
    first.kill('SIGKILL');
    await first.ended;

    const rerun = await spawnWatched(['-f', '+1d', process.execPath, BIN, ...post('Skewed', '--no-wait')], { ...emu.env(), ...env }, { command: 'faketime' }).ended;
    expect(rerun.stderr).toMatch(/^! This machine's clock is 2[34]h( \d+m)?( \d+s)? ahead of the service's \(its Date header\): the age of an earlier run of this command is judged by the service's clock\.$/m);
    expect(rerun.stderr).toMatch(/^An earlier run of this command, started .* was cut off: continuing it under its key vp-[\w-]+/m);
    expect(rerun.code).toBe(0);
    expect(postId(rerun.stdout)).toBeDefined();
    expect(await postsMade()).toBe(1);
  }, 60_000);

  it('a note a day old by the service too (its clock moved on 25 h) is forgotten: the rerun posts anew, as the service would', async () => {
    const env = dirs();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 1 });
    const first = vidpub(post('Day old', '--no-wait'), env);
    await waitFor(postSent(), (sent) => sent, 20_000);
    first.kill('SIGKILL');
    await first.ended;
    await emu.advance(25 * 3600);

    const rerun = await spawnWatched(['-f', '+25h', process.execPath, BIN, ...post('Day old', '--no-wait')], { ...emu.env(), ...env }, { command: 'faketime' }).ended;
    expect(rerun.stderr).not.toMatch(/An earlier run|This machine's clock/);
    expect(rerun.code).toBe(0);
    expect(await postsMade()).toBe(1);
    expect(readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).filter((n) => n.endsWith('.json'))).toEqual([]);
  }, 60_000);
});

describe('a refusal that knows the run to continue names its key', () => {
  it('a full state directory at the rerun: exit 1, the line with the cut-off run\'s key (never a new key or --no-journal); that line run there: one post', async () => {
    const env = dirs();
    // The post is made; its answer trickles: the first run is killed waiting for it.
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'trickle', ms: 60_000, times: 1 });
    const first = vidpub(post('Full disk', '--no-wait'), env);
    await waitFor(() => postsMade(), (n) => n === 1, 20_000);
    first.kill('SIGKILL');
    await first.ended;
    const [note] = readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).filter((n) => n.endsWith('.json'));
    const key = /\.(vp-[\w-]+)\.json$/.exec(note!)![1]!;

    // Each run in a mount namespace of its own: STATE a 64 KiB tmpfs holding the note, filled to the last block.
    const full = join(mkdtempSync(join(tmpdir(), 'vidpub-live-full-')), 'state');
    mkdirSync(full);
    const inFullState = (args: string[]) => {
      const setup = 'mount -t tmpfs -o size=64k tmpfs "$STATE"; mkdir -m 700 "$STATE/runs"; cp "$NOTES"/*.json "$STATE/runs/"; head -c 1M /dev/zero > "$STATE/fill" 2>/dev/null || true';
      // After the run, any lock file it left in the queue's directory is said on stderr.
      const leftBehind = 'for f in "$STATE"/queue/*.lock; do if [ -e "$f" ]; then echo "lock left behind: $f" >&2; fi; done';
      const script = `set -e; ${setup}; set +e; "$NODE" "$BIN" "$@"; code=$?; ${leftBehind}; exit $code`;
      const e = { ...emu.env(), ...env, STATE: full, NOTES: join(env.VIDPUB_STATE_DIR!, 'runs'), NODE: process.execPath, BIN, VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_STATE_DIR: full };
      return spawnWatched(['--mount', '--map-root-user', 'sh', '-c', script, 'sh', ...args], e, { command: 'unshare' }).ended;
    };
    const rerun = await inFullState(post('Full disk', '--no-wait'));
    expect(rerun.stderr).toMatch(
      new RegExp(
        `^Error: The state directory cannot be written \\(${escapeRegExp(full)}/runs: no space left on the device\\); nothing was uploaded or posted by this run, which continues the earlier run under the key ${key}\\. `,
        'm',
      ),
    );
    const line = RERUN.exec(rerun.stderr)?.[1];
    expect(line).toBe(`vidpub post test/fixtures/clip.mp4 --to linkedin --caption 'Full disk' --no-input --no-wait --idempotency-key ${key}`);
    expect(rerun.stderr).toMatch(new RegExp(`^Run the line above \\(with --idempotency-key ${key}\\): it continues that run without a note`, 'm'));
    expect(rerun.stderr).not.toMatch(/--no-journal|--idempotency-key KEY/);
    expect(rerun.code).toBe(1);
    expect(rerun.stdout).toBe('');

    const advised = await inFullState([...post('Full disk', '--no-wait'), '--idempotency-key', key]);
    expect(advised.code, advised.stderr).toBe(0);
    // The key's write queue could not be used on the full disk: its lock file, created but not written, is not left
    // behind (it held up this run 10 s, on a lock nobody held, and would every other run with this key).
    expect(advised.stderr).not.toMatch(/lock left behind/);
    expect(rerun.stderr).not.toMatch(/lock left behind/);
    expect(postId(advised.stdout)).toBeDefined();
    expect(await postsMade()).toBe(1);
  }, 60_000);
});

describe('a refusal that knows the run to continue names its key (2)', () => {
  it('a continued run stopped by --timeout while it waits for the video: exit 7, and the line with the earlier run\'s key', async () => {
    // Processing takes a minute here: both runs wait for it.
    const slow = await startTestEmulator({ processingMs: 60_000, publishMs: 20 });
    try {
      const env = dirs();
      const args = post('Slow video', '--no-wait');
      const first = vidpub(args, env, slow);
      await waitFor(async () => (await slow.requests()).some((q) => q.path.endsWith('/complete') && q.status === 200), (yes) => yes, 20_000);
      first.kill('SIGKILL');
      await first.ended;
      const [note] = readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).filter((n) => n.endsWith('.json'));
      const key = /\.(vp-[\w-]+)\.json$/.exec(note!)![1]!;

      const rerun = await inProcess([...args, '--timeout', '20s'], env, slow);
      expect(rerun.stderr).toMatch(new RegExp(`was cut off: continuing it under its key ${key}`));
      expect(rerun.stderr).toMatch(/^Error: Stopped waiting \(--timeout reached\): video med_\w+ is still processing/m);
      expect(RERUN.exec(rerun.stderr)?.[1]).toBe(`vidpub post test/fixtures/clip.mp4 --to linkedin --caption 'Slow video' --no-input --no-wait --timeout 20s --idempotency-key ${key}`);
      expect(rerun.code).toBe(7);
      expect(await postsMade(slow)).toBe(0);
      // one video: the rerun's upload was the first run's, replayed
      expect((await slow.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads' && q.status === 201 && !q.replayed)).toHaveLength(1);
    } finally {
      await slow.close();
    }
  }, 60_000);
});

describe('liveness every process sharing the state directory sees', () => {
  it('two runs in two network namespaces sharing one state directory: the second sees the first as running (exit 7, nothing posted); once the first is killed, it continues it: one post', async () => {
    const host = createTestHost();
    const wide = await startTestEmulator({ host: '0.0.0.0', processingMs: 20, publishMs: 20 });
    // The key goes over http only to loopback: inside the namespace, its own loopback forwards to the emulator.
    execFileSync('ip', ['netns', 'exec', host.namespace, 'ip', 'link', 'set', 'lo', 'up']);
    const forward = `const n = require('node:net'); n.createServer((c) => c.pipe(n.connect(${wide.port}, '${host.hostAddress}')).pipe(c)).listen(${wide.port}, '127.0.0.1', () => console.log('up'))`;
    const forwarder = spawn('ip', ['netns', 'exec', host.namespace, process.execPath, '-e', forward], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => forwarder.stdout.once('data', resolve));
    try {
      const env = { ...dirs(), ...wide.env() };
      await wide.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 1 });
      const first = spawnWatched(post('Two namespaces', '--no-wait'), env);
      await waitFor(postSent(wide), (sent) => sent, 20_000);
      const inNs = (args: string[]) => spawnWatched(['netns', 'exec', host.namespace, process.execPath, BIN, ...args], env, { command: 'ip' }).ended;
      const second = await inNs(post('Two namespaces', '--no-wait', '--timeout', '3s'));
      expect(second.stderr).toMatch(WAITING);
      expect(second.code).toBe(7);
      expect(await postsMade(wide)).toBe(0);

      first.kill('SIGKILL');
      await first.ended;
      const third = await inNs(post('Two namespaces', '--no-wait'));
      expect(third.stderr).toMatch(/^An earlier run of this command, started .* was cut off: continuing it under its key vp-[\w-]+/m);
      expect(third.code).toBe(0);
      expect(await postsMade(wide)).toBe(1);
    } finally {
      forwarder.kill('SIGKILL');
      host.remove();
      await wide.close();
    }
  }, 60_000);
});

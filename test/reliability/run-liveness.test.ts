/**
 * "Is the first run still running?", asked by a plain rerun of a `post` that
 * finds the first run's note: answered by the socket the run holds while it
 * runs, which the kernel closes when its process dies, reaped or not. A run
 * killed but never reaped (a zombie: its parent never waits, as under
 * `timeout -s KILL` in a container whose PID 1 never reaps) reads as not
 * running, so the rerun continues it: one post. A live run reads as running.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { manualClock, scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { LOOK_MS } from '../../src/posts/post/live-run.js';
import { spawnWatched } from '../support/spawned.js';
import { sleep, waitFor } from '../support/poll.js';
import { TcpRelay } from '../support/relay.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

const CLIP = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'Zombie', '--no-input', '--no-wait'];
const CONTINUED = /An earlier run of this command, started .* was cut off: continuing it under its key vp-[\w-]+/;

/** Posts the service made (a replay of one is not another). */
const postsMade = async () => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201 && !q.replayed).length;

function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-zombie-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state') };
}

/** The state of a process, as /proc says it (R, S, Z...), or undefined once it is gone. */
function procState(pid: number): string | undefined {
  try {
    return /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is a zombie whose every thread has ended. A killed process's main thread shows Z
 * while its other threads (Node's: libuv's pool, V8's, a worker) may still be on their way out,
 * holding the descriptors they share: the kernel closes them as the last thread ends. On a busy
 * machine that moment comes visibly later, and a rerun asking then still finds the run's socket
 * listening (and waits for it, as it should).
 */
function zombieWhole(pid: number): boolean {
  try {
    return procState(pid) === 'Z' && readdirSync(`/proc/${pid}/task`).length === 1;
  } catch {
    return false;
  }
}

/**
 * vidpub started by a shell that then becomes `sleep`, which never waits for
 * children: once killed, vidpub stays a zombie until `sleep` goes.
 */
function startUnreaped(env: Record<string, string>): { vidpub: Promise<number>; stop: () => void } {
  const shell = spawn('sh', ['-c', '"$NODE" "$BIN" "$@" >/dev/null 2>&1 & echo $!; exec sleep 60', 'sh', ...CLIP], {
    cwd: ROOT,
    env: { ...process.env, ...emu.env(), ...env, NODE: process.execPath, BIN, TZ: 'UTC', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const vidpub = new Promise<number>((resolve) => shell.stdout.setEncoding('utf8').once('data', (c: string) => resolve(Number(c.trim()))));
  return { vidpub, stop: () => shell.kill('SIGKILL') };
}

describe('whether the run that left a note is still running', () => {
  it('a run killed and never reaped (a zombie) is not running: the rerun continues it, one post', async () => {
    const env = dirs();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 1 });
    const { vidpub, stop } = startUnreaped(env);
    try {
      const pid = await vidpub;
      await waitFor(() => emu.requests(), (log) => log.some((q) => q.method === 'POST' && q.path === '/v1/posts'), 60_000);
      process.kill(pid, 'SIGKILL');
      await waitFor(async () => zombieWhole(pid), (whole) => whole, 60_000);
      // kill(pid, 0) still succeeds on a zombie: the check it replaced would have said "running"
      expect(() => process.kill(pid, 0)).not.toThrow();

      const r = await runCli(CLIP, { clock: scaledClock(20), env: { ...emu.env(), ...env, TZ: 'UTC', NO_COLOR: '1' } });
      expect(r.stderr).toMatch(CONTINUED);
      expect(r.code).toBe(0);
      expect(procState(pid)).toBe('Z');
      expect(await postsMade()).toBe(1);
    } finally {
      stop();
    }
  });

  it('a live run (its answer held back) is running: the same command started beside it waits for it, then reports its post; both end 0, one post', async () => {
    const env = dirs();
    // The first run's post is made and its answer held back (a relay in front of the service) until the run beside it
    // waits for it: however slow the machine, the first run is still running when the second looks, and ends once
    // the answer comes; no real-time hold to outlast.
    const relay = await new TcpRelay(emu.port).start();
    onTestFinished(() => relay.lose());
    relay.holdAnswers('POST /v1/posts ');
    const first = spawnWatched(CLIP, { ...emu.env(), ...env, VIDPUB_BASE_URL: relay.baseUrl });
    await waitFor(() => emu.requests(), (log) => log.some((q) => q.method === 'POST' && q.path === '/v1/posts'), 60_000);
    expect(relay.held).toBe(1);

    // The run beside it (the same command: the same service too) on a clock the test moves: each pause between two
    // looks at the first run ends as it begins.
    const clock = manualClock(Date.now());
    let done = false;
    const running = runCli(CLIP, { clock, env: { ...emu.env(), ...env, VIDPUB_BASE_URL: relay.baseUrl, TZ: 'UTC', NO_COLOR: '1' } }).finally(() => (done = true));
    for (let released = false; !done; await sleep(10)) {
      const looks = clock.pending().filter((ms) => ms >= LOOK_MS && ms < 3 * LOOK_MS);
      if (looks.length === 0) continue;
      if (!released) {
        released = true;
        relay.release();
      }
      clock.tick(Math.max(...looks));
    }
    const beside = await running;
    expect(beside.stderr).toMatch(/^An identical run of this command is running, started .* under the key vp-[\w-]+: waiting for it to end/m);
    // Its post read from the journal (the run's note names it): reported, nothing sent again (issue 52).
    expect(beside.stderr).toMatch(/The identical run waited for has ended and made post post_\w+ \(key vp-[\w-]+\): reporting it as it is now; nothing was uploaded or posted again\./);
    expect(beside.code).toBe(0);
    const ended = await first.ended;
    expect(ended.code).toBe(0);
    expect(ended.stderr).not.toMatch(/An earlier run|An identical run/);
    expect(/^id\tpost_\w+$/m.exec(beside.stdout)?.[0]).toBe(/^id\tpost_\w+$/m.exec(ended.stdout)?.[0]);
    expect(await postsMade()).toBe(1);
  });
});

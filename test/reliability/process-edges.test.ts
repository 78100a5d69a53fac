/**
 * The real binary where the process meets its surroundings: a key from a pipe
 * that never writes ends on SIGTERM (143), or at --timeout (exit 7) when the
 * pipe is its stdin; a reader of stdout or stderr that goes away stops the
 * output, not the post. Beside them, in-process, where the process is not the
 * point: a FIFO that never writes, as --api-key-file, ends at --timeout (it is
 * opened without waiting for a writer, in any process), and a --timeout longer
 * than Node's timers hold (2^31 ms, about 24.8 days) works (the timers are
 * Node's either way, and its warnings are seen as the events they are).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { manualClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface SpawnOptions {
  env?: Record<string, string>;
  /** Called once with the child as soon as it is spawned. */
  onStart?(child: ReturnType<typeof spawn>): void;
  /** Called with each chunk of stderr (or stdout), with the child. */
  onStderr?(chunk: string, child: ReturnType<typeof spawn>): void;
  onStdout?(chunk: string, child: ReturnType<typeof spawn>): void;
  /** stdin: nothing, or a file descriptor of this process. */
  stdin?: 'ignore' | number;
  command?: string[];
}

/** Runs the binary (or `command`) to its end; a child still running after 30 s is killed, which fails the test's exit code. */
function run(args: string[], o: SpawnOptions = {}): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const [cmd, ...pre] = o.command ?? [process.execPath, BIN];
    const child = spawn(cmd!, [...pre, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...emu.env(), VIDPUB_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1', VIDPUB_DUPLICATE_WINDOW: '0', ...o.env },
      stdio: [o.stdin ?? 'ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    o.onStart?.(child);
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      o.onStdout?.(c, child);
    });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      o.onStderr?.(c, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(kill);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Whether process `pid` has `path` open (Linux: /proc/PID/fd). */
function holds(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

async function postsMade(): Promise<number> {
  return (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts').length;
}

/**
 * `args` in-process on a clock only the test moves: its --timeout (1 s unless said) runs out once this process holds the FIFO
 * `key` open (the command waits on it), not before, whatever the machine's speed, and no wall time is sat out.
 */
async function timedOutWhileKeyAwaited(key: string, args: string[], timeoutMs = 1000) {
  const clock = manualClock(Date.now());
  const running = runCli(args, { clock, env: { ...emu.env(), VIDPUB_API_KEY: '' } });
  await timeUpWhen(clock, timeoutMs, async () => holds(process.pid, key), { inFlight: true });
  return running;
}

describe('a key from a pipe that never writes', () => {
  it('a FIFO as --api-key-file with --timeout 1s: the command ends, exit 7, nothing sent (in-process)', async () => {
    const key = join(mkdtempSync(join(tmpdir(), 'vidpub-fifo-')), 'key');
    execFileSync('mkfifo', [key]);
    const r = await timedOutWhileKeyAwaited(key, ['me', '--api-key-file', key, '--timeout', '1s']);
    expect(r.stderr).toContain(`Error: Stopped: the API key file ${key} gave no key within the --timeout of the command (1s); nothing was sent.`);
    expect(r.code).toBe(7);
    expect(await emu.requests()).toEqual([]);
  });

  it("the wait for a key from a FIFO ends on the command's clock (--timeout 1h of it, in-process): exit 7", async () => {
    const key = join(mkdtempSync(join(tmpdir(), 'vidpub-fifo-')), 'key');
    execFileSync('mkfifo', [key]);
    const r = await timedOutWhileKeyAwaited(key, ['me', '--api-key-file', key, '--timeout', '1h'], 3_600_000);
    expect(r.stderr).toContain(`Error: Stopped: the API key file ${key} gave no key within the --timeout of the command (1h); nothing was sent.`);
    expect(r.code).toBe(7);
  });

  it('post with a FIFO as --api-key-file and --timeout 1s: the command ends, exit 7, nothing sent (in-process)', async () => {
    const key = join(mkdtempSync(join(tmpdir(), 'vidpub-fifo-')), 'key');
    execFileSync('mkfifo', [key]);
    const r = await timedOutWhileKeyAwaited(key, ['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--api-key-file', key, '--timeout', '1s']);
    expect(r.stderr).toMatch(/Error: Stopped/);
    expect(r.code).toBe(7);
    expect(await emu.requests()).toEqual([]);
  });

  it('--api-key-file /dev/stdin with stdin a pipe left open and --timeout 1s: exit 7', async () => {
    // stdin a pipe whose writer (this process, the FIFO opened read-write) never writes nor closes it.
    const fifo = join(mkdtempSync(join(tmpdir(), 'vidpub-fifo-')), 'stdin');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, 'r+');
    onTestFinished(() => closeSync(fd));
    const r = await run(['me', '--api-key-file', '/dev/stdin', '--timeout', '1s'], { stdin: fd, env: { VIDPUB_API_KEY: '' } });
    expect(r.stderr).toContain('Error: Stopped: the API key file /dev/stdin gave no key within the --timeout of the command (1s); nothing was sent.');
    expect(r.code).toBe(7);
  });

  it('a FIFO as --api-key-file, then SIGTERM: exit 143 (the event loop was never blocked)', async () => {
    const key = join(mkdtempSync(join(tmpdir(), 'vidpub-fifo-')), 'key');
    execFileSync('mkfifo', [key]);
    // Sent once the child has the FIFO open (its signal handlers are in place by then, and the wait has begun).
    const r = await run(['me', '--api-key-file', key], {
      env: { VIDPUB_API_KEY: '' },
      onStart: (child) => {
        const look = setInterval(() => {
          if (!holds(child.pid!, key)) return;
          clearInterval(look);
          child.kill('SIGTERM');
        }, 20);
        child.on('close', () => clearInterval(look));
      },
    });
    expect(r.stderr).toContain(`Error: Interrupted while waiting for the API key from ${key}; nothing was sent.`);
    expect(r.code).toBe(143);
    expect(await emu.requests()).toEqual([]);
  });
});

describe('a reader of stdout or stderr that goes away: the post is made once and the command exits 0', () => {
  const POST = ['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--caption', 'reader gone', '--no-input'];
  // Where the watch of the post adds nothing to what is proved, it is left out (a second of the wall until its first
  // look): the upload and its processing still write their lines after the reader went away.
  const NO_WAIT = [...POST, '--no-wait'];

  it('stderr destroyed after its first byte', async () => {
    const r = await run(POST, { onStderr: (_c, child) => child.stderr!.destroy() });
    expect(r.code).toBe(0);
    expect(await postsMade()).toBe(1);
  });

  it('stderr closed before the start (2>&-)', async () => {
    const r = await run(['-c', `"$0" "$1" ${NO_WAIT.map((a) => `'${a}'`).join(' ')} 2>&-`, process.execPath, BIN], { command: ['sh'] });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id\tpost_\w+$/m);
    expect(await postsMade()).toBe(1);
  });

  it('stdout destroyed after its first byte (| head -c1), --json', async () => {
    const r = await run([...NO_WAIT, '--json'], { onStdout: (_c, child) => child.stdout!.destroy() });
    expect(r.code).toBe(0);
    expect(await postsMade()).toBe(1);
  });

  it('stderr piped with stdout into a reader that stops after one line (2>&1 | head -1)', async () => {
    const line = NO_WAIT.map((a) => `'${a}'`).join(' ');
    // bash: PIPESTATUS[0] is the exit code of vidpub, the first command of the pipe.
    const r = await run(['-c', `"$0" "$1" ${line} 2>&1 | head -1; echo "vidpub exit \${PIPESTATUS[0]}"`, process.execPath, BIN], { command: ['bash'] });
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toEqual([expect.stringMatching(/^Posting test\/fixtures\/clip\.mp4 to/), 'vidpub exit 0']);
    expect(await postsMade()).toBe(1);
  });
});

describe('a --timeout longer than one Node timer holds', () => {
  it('--timeout 30d: the post is made and followed to the end (exit 0), no TimeoutOverflowWarning', async () => {
    // Node emits the warning on `process` (the bin prints it on stderr): seen here as the event.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    onTestFinished(() => void process.off('warning', onWarning));
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'thirty days', '--timeout', '30d', '--json'], {
      env: { ...emu.env(), VIDPUB_DUPLICATE_WINDOW: '0', VIDPUB_REQUEST_TIMEOUT: '30d' },
    });
    expect(warnings.filter((w) => w.startsWith('TimeoutOverflowWarning'))).toEqual([]);
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed' });
    expect(r.code).toBe(0);
    expect(await postsMade()).toBe(1);
  });
});

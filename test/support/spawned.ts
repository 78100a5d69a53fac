/**
 * A program started by a test and watched as it runs: its output as it comes,
 * and how it ended (exit code or signal). For runs a test stops with a real
 * signal; without one, runAsync (build.ts) is simpler.
 */
import { spawn } from 'node:child_process';
import { BIN, ROOT } from './build.js';
import { sleep } from './poll.js';

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from start to end. */
  ms: number;
}

export interface Spawned {
  pid: number | undefined;
  stdout(): string;
  stderr(): string;
  /** Called with all of stderr so far, each time more comes. */
  onStderr(listener: (all: string) => void): void;
  kill(signal: NodeJS.Signals): void;
  ended: Promise<Ended>;
}

/** Starts `command` (default: the built vidpub, under this Node) in the checkout with `env` over this process's; killed after `guardMs` whatever happens. */
export function spawnWatched(args: string[], env: Record<string, string>, opts: { command?: string; guardMs?: number } = {}): Spawned {
  const started = Date.now();
  const [command, argv] = opts.command ? [opts.command, args] : [process.execPath, [BIN, ...args]];
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const listeners: ((all: string) => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
    for (const l of listeners) l(stderr);
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), opts.guardMs ?? 30_000);
  const ended = new Promise<Ended>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  return {
    pid: child.pid,
    stdout: () => stdout,
    stderr: () => stderr,
    onStderr: (l) => listeners.push(l),
    kill: (signal) => child.kill(signal),
    ended,
  };
}

/**
 * Sends `signal` to `run` once its stderr matches `when`, or once `when()` holds
 * (asked again 20 ms after each answer, never two at once); resolves with how the
 * run ended, and only once no question is left in flight, so nothing the test
 * asked can outlive it (the emulator closing under it would reset it).
 */
export async function signalWhen(run: Spawned, when: RegExp | (() => Promise<boolean>), signal: NodeJS.Signals): Promise<Ended> {
  let sent = false;
  const send = () => {
    if (sent) return;
    sent = true;
    run.kill(signal);
  };
  if (when instanceof RegExp) {
    run.onStderr((all) => when.test(all) && send());
    return run.ended;
  }
  let over = false;
  const ended = run.ended.finally(() => (over = true));
  const asking = (async () => {
    while (!over && !sent) {
      if (await when()) send();
      else await sleep(20);
    }
  })();
  const [end] = await Promise.all([ended, asking]);
  return end;
}

/**
 * The built package (dist/, made by `npm run build`; `npm test` builds first).
 * Tests of the installed shape run bin/vidpub.js as a user would. When dist/
 * is missing (vitest run on its own in a fresh checkout), it is built once,
 * under a lock so that parallel test files do not build over each other.
 */
import { execFileSync, spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'vidpub.js');

function built(): boolean {
  return existsSync(join(ROOT, 'dist', 'main.js')) && existsSync(join(ROOT, 'dist', 'fast.cjs')) && existsSync(join(ROOT, 'dist', 'assets', 'clip.mp4'));
}

export async function ensureBuilt(): Promise<void> {
  const lock = join(tmpdir(), `vidpub-build-lock-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`);
  for (let waited = 0; !built(); waited += 200) {
    try {
      mkdirSync(lock);
    } catch {
      if (waited > 60_000) throw new Error('dist/ is missing and another build did not finish within 60 s');
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    try {
      if (!built()) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'pipe' });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Runs the built bin (node bin/vidpub.js ARGS) in a child process. */
export function runBin(args: string[], opts: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    input: opts.input,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program without blocking this process's event loop (an emulator
 * started by the test in this process must go on answering the child).
 */
export function runAsync(
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

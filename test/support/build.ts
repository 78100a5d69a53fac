/**
 * The built package (dist/, made by `npm run build`; `npm test` builds first,
 * and ensureBuilt() rebuilds a stale one), and running programs as child processes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'vidpub.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds dist/ (node scripts/build.mjs) when it is missing or older than src/ or the build script. */
export function ensureBuilt(): void {
  const main = join(ROOT, 'dist', 'main.js');
  const sources = Math.max(newestMtime(join(ROOT, 'src')), statSync(join(ROOT, 'scripts', 'build.mjs')).mtimeMs);
  if (existsSync(main) && statSync(main).mtimeMs >= sources) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
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
    // A program that exits without reading its input (a shell that is done) closes the pipe: not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Running the built package (dist/, made by `npm run build`; `npm test` builds
 * first, and ensureBuilt() from test/helpers/build.ts rebuilds a stale one).
 */
import { spawn } from 'node:child_process';
import { ROOT } from '../helpers/build.js';

export { BIN, ROOT, ensureBuilt } from '../helpers/build.js';

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
    // A program that exits without reading its input (fish -c, tmux) closes the pipe first: not an error.
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(opts.input ?? '');
  });
}

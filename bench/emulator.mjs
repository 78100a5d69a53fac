// Shared by the benchmarks: the emulator in a child process (`vidpub emulator
// --port 0 --json`), resolved once it prints where it listens.
import { spawn } from 'node:child_process';

/**
 * @param {string} bin path of bin/vidpub.js
 * @param {{ env?: NodeJS.ProcessEnv, args?: string[] }} [opts] extra emulator flags (e.g. --processing-ms 0)
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, info: { base_url: string, admin_url: string, keys: { key: string, workspace: string, access: string }[] } }>}
 */
export function startEmulator(bin, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'emulator', '--port', '0', '--json', ...(opts.args ?? [])], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: opts.env ?? process.env,
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        try {
          resolve({ child, info: JSON.parse(out.slice(0, nl)) });
        } catch (err) {
          reject(err);
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}) before it was ready`)));
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './build.js';

/** Starts `vidpub emulator --port 0 --json` from the build and reads its base URL. */
export async function startBuiltEmulator(args: string[] = []): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/vidpub.js'), 'emulator', '--port', '0', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve((JSON.parse(line!) as { base_url: string }).base_url);
    });
    child.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
  return { child, baseUrl: url };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ROOT, ensureBuilt } from './build.js';
import { Rest } from './rest.js';

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

/** A built emulator with fast background steps, a throwaway HOME and a working directory. */
export interface Sandbox {
  readonly baseUrl: string;
  readonly home: string;
  readonly cwd: string;
  /**
   * Moves the emulator's clock just past its next minute, so that what
   * runs next has the minute's read and write allowances whole instead of
   * waiting out the ones spent before it in real time.
   */
  freshMinute(): Promise<void>;
}

/**
 * For tests that run shell text against the built CLI (the README, the
 * --help examples): starts `vidpub emulator` from the build before the file's
 * tests (100 ms steps) with a HOME and a working directory of its own, and
 * removes them after. Hooks a file adds after this one run after it, so they
 * can put files in place.
 */
export function useBuiltEmulatorSandbox(name: string): Sandbox {
  let child: ChildProcess | undefined;
  const box = {
    baseUrl: '',
    home: '',
    cwd: '',
    freshMinute: () => new Rest({ baseUrl: box.baseUrl, adminUrl: `${new URL(box.baseUrl).origin}/_emulator` }).freshMinute(),
  };
  beforeAll(async () => {
    ensureBuilt();
    const started = await startBuiltEmulator(['--processing-ms', '100', '--publish-ms', '100']);
    child = started.child;
    box.baseUrl = started.baseUrl;
    box.home = mkdtempSync(join(tmpdir(), `vidpub-${name}-home-`));
    box.cwd = mkdtempSync(join(tmpdir(), `vidpub-${name}-work-`));
  }, 60_000);
  afterAll(() => {
    child?.kill();
    for (const d of [box.home, box.cwd]) if (d) rmSync(d, { recursive: true, force: true });
  });
  return box;
}

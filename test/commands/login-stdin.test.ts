/**
 * login --with-key reads stdin to its end. A pipe that is never closed (a
 * caller that leaves stdin open and sends nothing) must not hang it: Ctrl-C
 * stops the read (exit 130), and so does --timeout when stdin is not a
 * terminal (exit 7). Nothing is stored, nothing is sent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.js';
import { makeContext, tempConfigDir, type RunOptions } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

/** Runs vidpub with a stdin that stays open and never sends anything; `onRead` once the command starts reading it. */
async function runWithOpenStdin(argv: string[], opts: RunOptions & { onRead?: () => void }) {
  const { ctx, stdout, stderr } = makeContext(opts);
  const stdin = new PassThrough();
  const reading = (event: string | symbol) => {
    if (event !== 'data' && event !== 'readable') return;
    stdin.off('newListener', reading);
    // After the listener is in place: the read is under way when the callback runs.
    setImmediate(() => opts.onRead?.());
  };
  stdin.on('newListener', reading);
  ctx.io.stdin = stdin;
  const code = await main(argv, ctx);
  stdin.destroy();
  await new Promise((r) => setImmediate(r));
  return { code, stdout: stdout(), stderr: stderr() };
}

describe('login --with-key with stdin left open', () => {
  test('Ctrl-C stops the read: exit 130, nothing stored', async () => {
    const dir = tempConfigDir();
    const interrupt = new AbortController();
    // Ctrl-C once the command reads stdin (it attaches its reader), not after a guess of how long that takes.
    const r = await runWithOpenStdin(['login', '--with-key'], {
      signal: interrupt.signal,
      onRead: () => interrupt.abort(),
      env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl },
    });
    expect(interrupt.signal.aborted).toBe(true);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Interrupted: nothing was stored.');
    expect(r.code).toBe(130);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(await emu.requests()).toEqual([]);
  }, 10_000);

  test('--timeout ends the wait for stdin to end when it is not a terminal: exit 7, nothing stored', async () => {
    const dir = tempConfigDir();
    // 1 s of the command's time is 20 ms of the test's.
    const r = await runWithOpenStdin(['login', '--with-key', '--timeout', '1s'], { clock: scaledClock(50), env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Error: Stopped: stdin did not end within the --timeout of the command (1s), so no key was read; nothing was stored.');
    expect(r.stderr).toContain('vidpub login --with-key < key.txt');
    expect(r.code).toBe(7);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(await emu.requests()).toEqual([]);
  }, 10_000);
});

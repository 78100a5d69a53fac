/**
 * login and logout meet a config file locked by another live vidpub: the wait
 * for the lock ends at login's --timeout (exit 7) and at Ctrl-C (exit 130),
 * never later, and nothing is stored.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli, tempConfigDir } from '../support/cli.js';
import { manualClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

/** A config dir holding one profile, its config.json locked by a live process (the parent of this test process). */
function lockedConfig(): { dir: string; path: string; before: string } {
  const dir = tempConfigDir();
  const path = join(dir, 'config.json');
  const before = JSON.stringify({ profiles: { default: { api_key: 'vp_live_keep', base_url: emu.baseUrl } } });
  writeFileSync(path, before, { mode: 0o600 });
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), at: Date.now() }));
  return { dir, path, before };
}

describe('a config file locked by another vidpub', () => {
  test('login --timeout: the wait for the lock ends at the deadline, exit 7, nothing stored', async () => {
    const { dir, path, before } = lockedConfig();
    // On a clock the test moves, once the key's check (a GET /me, which comes first) is over and the login sleeps
    // between two tries of the lock: its 5 s deadline then runs out in the lock's wait, half-way through the 10 s
    // that wait gives a holder, however slow the machine (the wait runs on the command's clock).
    const clock = manualClock(Date.now());
    const running = runCli(['login', '--with-key', '--profile', 'ci', '--timeout', '5s'], {
      stdin: emu.key() + '\n',
      clock,
      env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl },
    });
    await timeUpWhen(clock, 5000, async () => (await emu.requests()).some((q) => q.path === '/v1/me' && q.status === 200));
    const r = await running;
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Error: Stopped: the --timeout of the command was reached while waiting for the lock on ${path} (another vidpub login or logout is using it); nothing was stored.`);
    expect(r.code).toBe(7);
    expect(readFileSync(path, 'utf8')).toBe(before);
  }, 30_000);

  test('logout: Ctrl-C during the wait for the lock stops it, exit 130, nothing changed', async () => {
    const { dir, path, before } = lockedConfig();
    const interrupt = new AbortController();
    // Ctrl-C pressed at once, not after a guess of when the wait begins: logout tries the lock first whatever the
    // signal (file-lock.ts), finds it held, and the abort ends the wait that follows, so this is the wait's Ctrl-C.
    interrupt.abort();
    const r = await runCli(['logout'], { signal: interrupt.signal, env: { VIDPUB_CONFIG_DIR: dir } });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Interrupted: nothing was changed.');
    expect(r.code).toBe(130);
    expect(readFileSync(path, 'utf8')).toBe(before);
  }, 30_000);
});

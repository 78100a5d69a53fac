/**
 * A Secret Service that accepts every call and never answers (it owns
 * org.freedesktop.secrets on a real session bus, and reads without replying):
 * `me`, `destinations` and `options` with a key kept in the keyring end at
 * their --timeout with exit 7, and at once on Ctrl-C (SIGINT) with 130, the
 * keychain's helper process killed either way (none left blocked on the bus).
 * The deadlines run on a clock the test moves once the helper has asked the
 * service (in-process runs); Ctrl-C is a real signal to the built bin, sent
 * once the helper has asked. The keyring's own 3 s count from the helper's
 * word that it asks, not from its start: on a busy machine Node's start alone
 * took more than 3 s, and vidpub gave up on a keyring it had never asked.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { KEYCHAIN_START_MS, KEYCHAIN_TIMEOUT_MS } from '../../src/config/keychain.js';
import { ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { manualClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { spawnWatched } from '../support/spawned.js';
import { withStall } from '../support/stall.js';
import { describeWithSecretService, vidpub } from './cli.js';
import { useSilentSecretService } from '../support/secret-service.js';

const emu = useEmulator();
beforeAll(() => ensureBuilt());

/** Loaded by NODE_OPTIONS=--require in the keychain's helper: says it is held, then waits for the test's word. */
const HOLD = `
const { existsSync, writeFileSync } = require('node:fs');
const dir = process.env.VIDPUB_TEST_HOLD;
writeFileSync(dir + '/held', '');
const pause = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(dir + '/go')) Atomics.wait(pause, 0, 0, 10);
`;

/** The processes (other than the test's own) whose environment names this bus: a keychain helper left behind would be one. */
function processesOnBus(address: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.includes('keyring')) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`DBUS_SESSION_BUS_ADDRESS=${address}`)) found.push(Number(pid));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

describeWithSecretService('a Secret Service that accepts and never answers', () => {
  const service = useSilentSecretService();

  const keychainProfile = () => {
    const v = vidpub(emu, () => service.env);
    v.writeConfig({ default: { key_storage: 'keychain', key_masked: 'vp_live_…s3Td', base_url: emu.baseUrl } });
    return v;
  };

  /**
   * `args` run in-process on a clock that moves only when told, with a profile whose key is in the keyring (however
   * slow the machine is to start the keychain's helper, no time passes for vidpub meanwhile). `held`: the helper is
   * held at its start (NODE_OPTIONS reaches it: it is no secret) until `release()`.
   */
  function inProcess(args: string[], opts: { held?: boolean } = {}) {
    const v = keychainProfile();
    const clock = manualClock(Date.now());
    const hold = mkdtempSync(join(tmpdir(), 'vidpub-hold-'));
    writeFileSync(join(hold, 'hold.cjs'), HOLD);
    const held = opts.held ? { NODE_OPTIONS: `--require ${join(hold, 'hold.cjs')}`, VIDPUB_TEST_HOLD: hold } : {};
    const before = service.calls();
    let ended = false;
    const run = runCli(args, { env: { VIDPUB_BASE_URL: emu.baseUrl, NO_COLOR: '1', ...service.env, ...held, VIDPUB_CONFIG_DIR: v.dir }, clock }).finally(() => (ended = true));
    return {
      clock,
      run,
      ended: () => ended,
      /** Once the helper is held at its start. */
      held: () => waitFor(() => existsSync(join(hold, 'held')), (yes) => yes, 30_000),
      release: () => writeFileSync(join(hold, 'go'), ''),
      /** Once the helper has asked the service (vidpub waits on the keyring), the run still going. */
      async asked() {
        await waitFor(() => ended || service.calls() > before, (yes) => yes, 30_000);
        expect(ended).toBe(false);
      },
    };
  }

  /** Lets what a tick of the clock set off run: a few turns of the event loop. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };

  describe.each([[['me']], [['destinations']], [['options', 'linkedin']]])('%j with --timeout 2s', (args) => {
    test('exit 7 at the deadline, not before, saying the keyring did not answer; its helper killed', async () => {
      const { clock, run, ended, asked } = inProcess([...args, '--timeout', '2s']);
      await asked();
      // Its helper is there, blocked on the bus, until the deadline.
      expect(processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!).length).toBeGreaterThan(0);
      clock.tick(1999);
      await settle();
      expect(ended()).toBe(false);
      clock.tick(1);
      const r = await run;
      expect(r.stderr).toContain('Stopped: the Secret Service keyring did not answer within the --timeout of the command (2s); nothing was sent.');
      expect(r.stderr).toContain('Unlock the keyring (or start a desktop session), or give a longer --timeout; or set VIDPUB_API_KEY.');
      expect(r.code).toBe(7);
      expect(r.stdout).toBe('');
      // Killed, it goes (a SIGKILLed process on a loaded machine takes a moment to be gone); one not killed would stay
      // blocked on the bus, which never answers.
      await waitFor(() => processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!), (left) => left.length === 0, 10_000);
      // Nothing reached the service either.
      expect((await emu.requests()).length).toBe(0);
    });
  });

  test("post with --timeout 1s: exit 7 at the flow's deadline, nothing sent, no helper left", async () => {
    const { clock, run, asked } = inProcess(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--timeout', '1s']);
    await asked();
    // The flow's deadline ends the wait for the client (its key); the helper goes with it.
    clock.tick(1000);
    const r = await run;
    expect(r.stderr).toContain('Stopped: the --timeout of the command was reached.');
    expect(r.code).toBe(7);
    await waitFor(() => processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!), (left) => left.length === 0, 10_000);
    expect((await emu.requests()).length).toBe(0);
  });

  test("the keyring's own 3 s count from when the helper asks it, not from the helper's start (slow on a busy machine)", async () => {
    const { clock, run, ended, held, release, asked } = inProcess(['me'], { held: true });
    await held();
    // Far more than the keyring's 3 s while the helper starts: nothing is given up.
    clock.tick(KEYCHAIN_START_MS - 1);
    await settle();
    expect(ended()).toBe(false);
    release();
    await asked();
    clock.tick(KEYCHAIN_TIMEOUT_MS - 1);
    await settle();
    expect(ended()).toBe(false);
    clock.tick(1);
    const r = await run;
    expect(r.stderr).toContain('The key of profile "default" is kept in the Secret Service keyring, which could not be read: the Secret Service keyring did not answer within 3 s.');
    expect(r.code).toBe(3);
    await waitFor(() => processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!), (left) => left.length === 0, 10_000);
  });

  test('a helper that never starts is given up after KEYCHAIN_START_MS, saying so', async () => {
    const { clock, run, held } = inProcess(['me'], { held: true });
    await held();
    clock.tick(KEYCHAIN_START_MS);
    const r = await run;
    expect(r.stderr).toContain(`which could not be read: the keychain helper did not start within ${KEYCHAIN_START_MS / 1000} s (is the machine very busy?).`);
    expect(r.code).toBe(3);
    await waitFor(() => processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!), (left) => left.length === 0, 10_000);
  });

  test.each([[['me']], [['destinations']], [['options', 'linkedin']]])('%j: Ctrl-C (SIGINT) while the keyring is asked ends it at once, exit 130, its helper killed', async (args) => {
    const v = keychainProfile();
    const before = service.calls();
    const run = spawnWatched(args, { VIDPUB_CONFIG_DIR: v.dir, VIDPUB_BASE_URL: emu.baseUrl, NO_COLOR: '1', ...service.env }, { guardMs: 20_000 });
    // The helper has called the service: vidpub is waiting on the keyring (and has listened for signals since its start).
    await waitFor(() => service.calls() > before || run.stderr() !== '', (yes) => yes, 30_000);
    expect(run.stderr()).toBe('');
    // Its helper is there, blocked on the bus (what must not outlive the signal).
    expect(processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!).length).toBeGreaterThan(0);
    const signalled = Date.now();
    run.kill('SIGINT');
    // At once: within 1 s, plus the time this process could not run meanwhile (test/support/stall.ts).
    const { value: end, stallMs } = await withStall(() => run.ended);
    expect(end.stderr).toContain('Interrupted while reading the Secret Service keyring; nothing was sent.');
    expect(end.code).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(1000 + stallMs);
    await waitFor(() => processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!), (left) => left.length === 0, 10_000);
  });
});

/**
 * A Secret Service that accepts every call and never answers (it owns
 * org.freedesktop.secrets on a real session bus, and reads without replying):
 * `me`, `destinations` and `options` with a key kept in the keyring end at
 * their --timeout with exit 7, and at once on Ctrl-C (SIGINT) with 130, the
 * keychain's helper process killed either way (none left blocked on the bus).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { spawnWatched } from '../support/spawned.js';
import { withStall } from '../support/stall.js';
import { describeWithSecretService, vidpub } from './cli.js';
import { startSilentSecretService } from './secret-service.js';

const emu = useEmulator();
beforeAll(() => ensureBuilt());

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
  let service: Awaited<ReturnType<typeof startSilentSecretService>>;
  beforeAll(async () => {
    service = await startSilentSecretService();
  });
  afterAll(() => service?.stop());

  const keychainProfile = () => {
    const v = vidpub(emu, () => service.env);
    v.writeConfig({ default: { key_storage: 'keychain', key_masked: 'vp_live_…s3Td', base_url: emu.baseUrl } });
    return v;
  };

  // 2 s: time for the keychain's helper (a second Node process) to start and call the service on a loaded machine,
  // and still short of the keychain's own 3 s.
  describe.each([[['me']], [['destinations']], [['options', 'linkedin']]])('%j with --timeout 2s', (args) => {
    test('exit 7 within the deadline + 1 s, saying the keyring did not answer; its helper killed', async () => {
      const v = keychainProfile();
      const before = service.calls();
      const started = Date.now();
      const { value: r, stallMs } = await withStall(() => v.run([...args, '--timeout', '2s']));
      const ended = Date.now();
      expect(r.stderr).toContain('Stopped: the Secret Service keyring did not answer within the --timeout of the command (2s); nothing was sent.');
      expect(r.stderr).toContain('Unlock the keyring (or start a desktop session), or give a longer --timeout; or set VIDPUB_API_KEY.');
      expect(r.status).toBe(7);
      expect(r.stdout).toBe('');
      // It was asked (the helper's calls reached the service), and gave up at the deadline, not at the keychain's own 3 s.
      expect(service.calls()).toBeGreaterThan(before);
      // Not before the deadline; and from the helper's call (without Node's own start on a loaded machine) within
      // the deadline + 1 s (plus the time this process could not run meanwhile: test/support/stall.ts).
      expect(ended - started).toBeGreaterThanOrEqual(2000);
      const asked = service.firstCallAfter(started)!;
      expect(ended - asked).toBeLessThan(3000 + stallMs);
      // Never the keychain's own 3 s, after which it used to exit 3 (its message and exit code are checked above).
      expect(ended - started).toBeLessThan(3000 + 1000 + stallMs);
      // Killed, it goes (a SIGKILLed process on a loaded machine takes a moment to be gone); one not killed would stay
      // blocked on the bus, which never answers.
      await waitFor(() => processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!), (left) => left.length === 0, 10_000);
      // Nothing reached the service either.
      expect((await emu.requests()).length).toBe(0);
    });
  });

  test("post with --timeout 1s: exit 7 at the flow's deadline, nothing sent, no helper left", async () => {
    const args = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--timeout', '1s'];
    const v = keychainProfile();
    const started = Date.now();
    const r = await v.run(args);
    const ended = Date.now();
    // The flow's deadline ends the wait for the client (its key); the helper goes when vidpub exits.
    expect(r.stderr).toContain('Stopped: the --timeout of the command was reached.');
    expect(r.status).toBe(7);
    expect(ended - started).toBeGreaterThanOrEqual(1000);
    expect(ended - service.firstCallAfter(started)!).toBeLessThan(2000);
    expect(processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!)).toEqual([]);
    expect((await emu.requests()).length).toBe(0);
  });

  test.each([[['me']], [['destinations']], [['options', 'linkedin']]])('%j: Ctrl-C (SIGINT) while the keyring is asked ends it at once, exit 130, its helper killed', async (args) => {
    const v = keychainProfile();
    const before = service.calls();
    const run = spawnWatched(args, { VIDPUB_CONFIG_DIR: v.dir, VIDPUB_BASE_URL: emu.baseUrl, NO_COLOR: '1', ...service.env }, { guardMs: 20_000 });
    const deadline = Date.now() + 15_000;
    // The helper has called the service: vidpub is waiting on the keyring.
    while (service.calls() === before) {
      if (Date.now() > deadline) throw new Error(`the keyring was never asked; vidpub said: ${run.stderr()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Its helper is there, blocked on the bus (what must not outlive the signal).
    expect(processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!).length).toBeGreaterThan(0);
    const signalled = Date.now();
    run.kill('SIGINT');
    const end = await run.ended;
    expect(end.stderr).toContain('Interrupted while reading the Secret Service keyring; nothing was sent.');
    expect(end.code).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(1000);
    expect(processesOnBus(service.env.DBUS_SESSION_BUS_ADDRESS!)).toEqual([]);
  });
});

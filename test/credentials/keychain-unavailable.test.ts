/**
 * Where the OS store cannot take the key: no D-Bus at all, a bus address where
 * nothing listens, a bus that accepts and never answers, no unlocked keyring,
 * a keyring locked after login. No hang, no crash: login stores in the file
 * and says why, once; a key that is in the keyring and cannot be read is an
 * error saying what to do; logout changes nothing it cannot finish.
 * vidpub runs in-process (its keychain helper a child process, as always;
 * the keyring's 3 s on a manual clock), but for the built CLI's login on a bus
 * that never answers: that process ends, its helper killed, however the bus
 * holds it (the one real 3 s wait of the file, the deadline being the point).
 */
import { realpathSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KEYCHAIN_TIMEOUT_MS } from '../../src/config/keychain.js';
import { ensureBuilt } from '../support/build.js';
import { manualClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { describeWithSecretService, vidpub, type Vidpub } from './cli.js';
import { waitFor } from '../support/poll.js';
import { silentBus, useSecretService } from '../support/secret-service.js';

const emu = useEmulator();
beforeAll(() => ensureBuilt());

/**
 * Logs in where the keyring cannot take the key: the file, and one line on stderr saying `why`
 * (then, with `left`, the lines that say where an earlier key stays).
 */
async function loginToFile(v: Vidpub, why: string | RegExp, left = ''): Promise<void> {
  const r = await v.run(['login', '--with-key', '--json'], { input: emu.key() });
  expect(r.status).toBe(0);
  const prefix = '! No system keychain could take the key (';
  const suffix = `): it is stored in ${v.configPath} (mode 0600).\n`;
  const first = r.stderr.slice(0, r.stderr.length - left.length);
  expect(r.stderr.endsWith(left) && first.startsWith(prefix) && first.endsWith(suffix) && !first.slice(0, -1).includes('\n') ? 'one line' : r.stderr).toBe('one line');
  const reason = first.slice(prefix.length, -suffix.length);
  if (typeof why === 'string') expect(reason).toBe(why);
  else expect(reason).toMatch(why);
  expect(JSON.parse(r.stdout)).toMatchObject({ storage: 'file', config_path: v.configPath });
  expect(v.profile()).toMatchObject({ api_key: emu.key() });
  expect(v.profile()?.key_storage).toBeUndefined();
}

describe('no D-Bus session', () => {
  test('DBUS_SESSION_BUS_ADDRESS unset: the file, said once; the key then works from there', async () => {
    const v = vidpub(emu, () => ({}), 'in-process');
    await loginToFile(v, 'no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set');
    const me = await v.run(['me']);
    expect([me.status, me.stderr]).toEqual([0, '']);
    expect(me.stdout).toMatch(new RegExp(`^Key from\\tprofile "default", kept in ${v.configPath}$`, 'm'));
  });

  test('an address where nothing listens: the file, naming the D-Bus failure', async () => {
    const bus = await silentBus(false);
    const v = vidpub(emu, () => ({ DBUS_SESSION_BUS_ADDRESS: bus.address }), 'in-process');
    await loginToFile(v, /^Platform failure: DBus error: .*\S/);
  });

  describe('a bus that accepts connections and never answers', () => {
    let bus: Awaited<ReturnType<typeof silentBus>>;
    beforeAll(async () => {
      bus = await silentBus(true);
    });
    afterAll(() => bus.close());

    test('login does not hang: the keyring is given up after 3 s and the key goes to the file (the built CLI, which exits)', async () => {
      const v = vidpub(emu, () => ({ DBUS_SESSION_BUS_ADDRESS: bus.address }));
      await loginToFile(v, 'the Secret Service keyring did not answer within 3 s');
    });

    test('a key kept in the keyring cannot be read: exit 3 saying why and what to do; VIDPUB_API_KEY still works', async () => {
      const v = vidpub(emu, () => ({ DBUS_SESSION_BUS_ADDRESS: bus.address }), 'in-process');
      v.writeConfig({ default: { key_storage: 'keychain', key_masked: 'vp_live_…s3Td', base_url: emu.baseUrl } });
      // The keyring's 3 s run on the command's clock: they run out once the helper has asked and waits.
      const clock = manualClock();
      const running = v.run(['me'], { clock });
      await waitFor(() => clock.pending(), (sleeps) => sleeps.includes(KEYCHAIN_TIMEOUT_MS), 20_000);
      clock.tick(KEYCHAIN_TIMEOUT_MS);
      const me = await running;
      expect(me.status).toBe(3);
      expect(me.stderr).toContain('The key of profile "default" is kept in the Secret Service keyring, which could not be read: the Secret Service keyring did not answer within 3 s.');
      expect(me.stderr).toContain('run "vidpub login --insecure-storage" to keep the key in the config file');
      // The environment's key is used without asking the keyring.
      const env = await v.run(['me', '--json'], { env: { VIDPUB_API_KEY: emu.key() } });
      expect([env.status, env.stderr]).toEqual([0, '']);
    });
  });
});

describeWithSecretService('a keyring that refuses', () => {
  const locked = useSecretService({ unlock: true });
  const none = useSecretService({ unlock: false });

  test('no unlocked keyring (gnome-keyring started without --unlock): the file, naming the refusal', async () => {
    const v = vidpub(emu, () => none.env, 'in-process');
    await loginToFile(v, "Couldn't access platform storage: Secret Service: no result found");
    expect(none.lookup(`default@${v.configPath}`)).toBeUndefined();
  });

  test('a keyring locked after login: me exits 3, logout exits 1 and changes nothing, a new login goes to the file', async () => {
    const v = vidpub(emu, () => locked.env, 'in-process');
    expect((await v.run(['login', '--with-key'], { input: emu.key() })).status).toBe(0);
    expect(locked.lookup(`default@${v.configPath}`)).toBe(emu.key());
    locked.lock();

    const me = await v.run(['me']);
    expect(me.status).toBe(3);
    expect(me.stderr).toContain('The key of profile "default" is kept in the Secret Service keyring, which could not be read: ');
    expect(me.stderr).toContain('Unlock the keyring (or start a desktop session) and run the command again');

    const before = v.configText();
    const out = await v.run(['logout']);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('Could not remove the key of profile "default" from the Secret Service keyring: ');
    expect(out.stderr).toContain('Nothing was changed.');
    expect(v.configText()).toBe(before);

    // The unlock prompt cannot be shown (no display): the Secret Service refuses. The earlier key stays there, said.
    const refusal = "Couldn't access platform storage: Secret Service: unlock prompt was dismissed";
    await loginToFile(
      v,
      refusal,
      `! The key stored earlier stays in the Secret Service keyring under "default@${realpathSync(v.dir)}/config.json" (${refusal}).\n` +
        '! When it can be reached, "vidpub login" puts this key there in its place, or "vidpub logout" removes both.\n',
    );
  });
});

/**
 * Keys in a real Secret Service (gnome-keyring in a private D-Bus session),
 * through vidpub in-process (its keychain helper a child process, as always)
 * and, for two logins racing on config.json, two built CLIs: login stores there and says so, secret-tool finds
 * the key and config.json holds none; me and profiles say where the key is;
 * logout removes it; a key in the file keeps working and moves at the next
 * login; the environment and --api-key-file still win.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { describeWithSecretService, vidpub } from './cli.js';
import { useSecretService } from '../support/secret-service.js';

const emu = useEmulator();
const STORED_IN_KEYRING = /^Stored in\tthe Secret Service keyring$/m;

describeWithSecretService('keys in the Secret Service (an unlocked gnome-keyring)', () => {
  beforeAll(() => ensureBuilt());
  const ss = useSecretService({ unlock: true });
  const cli = () => vidpub(emu, () => ss.env, 'in-process');

  test('login stores the key in the keyring, says so, and config.json holds none; me and profiles say where it is', async () => {
    const v = cli();
    const login = await v.run(['login', '--with-key'], { input: emu.key() + '\n' });
    expect([login.status, login.stderr]).toEqual([0, '']);
    expect(login.stdout).toMatch(STORED_IN_KEYRING);
    expect(ss.lookup(`default@${v.configPath}`)).toBe(emu.key());
    expect(v.configText()).not.toContain(emu.key());
    expect(v.profile()).toEqual({ key_storage: 'keychain', key_masked: 'vp_live_…s3Td', base_url: emu.baseUrl, workspace: 'Demo', logged_in_at: expect.any(String) });

    const me = await v.run(['me']);
    expect([me.status, me.stderr]).toEqual([0, '']);
    expect(me.stdout).toMatch(/^Key from\tprofile "default", kept in the Secret Service keyring$/m);

    const json = await v.run(['profiles', '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ name: 'default', key: 'vp_live_…s3Td', storage: 'keychain' })]);
    const text = await v.run(['profiles']);
    expect(text.stdout).toBe(`default\t${emu.baseUrl}\tDemo\tvp_live_…s3Td\t${v.profile()!.logged_in_at}\tkeychain\n`);
  });

  test("watch --print-secret keeps the profile's webhook secret in the keyring beside its key, made once", async () => {
    const v = cli();
    expect((await v.run(['login', '--with-key'], { input: emu.key() })).status).toBe(0);
    const first = await v.run(['watch', '--print-secret']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^Made the webhook secret of profile "default", kept in the Secret Service keyring:/);
    const secret = first.stdout.trim();
    expect(ss.lookup(`webhook-secret:default@${v.configPath}`)).toBe(secret);
    expect(existsSync(join(v.dir, 'webhook-secrets.json'))).toBe(false);
    expect(v.configText()).not.toContain(secret);
    const again = await v.run(['watch', '--print-secret']);
    expect([again.status, again.stdout]).toEqual([0, first.stdout]);
  });

  test('logout removes the key from the keyring and keeps the base URL', async () => {
    const v = cli();
    expect((await v.run(['login', '--with-key', '--profile', 'ci'], { input: emu.key() })).status).toBe(0);
    expect(ss.lookup(`ci@${v.configPath}`)).toBe(emu.key());
    const out = await v.run(['logout', '--profile', 'ci']);
    expect(out.status).toBe(0);
    expect(out.stderr).toBe('Logged out: the key of profile "ci" was removed from the Secret Service keyring.\nThe key is still valid at the service; revoke it in the web app (API settings) if it was exposed.\n');
    expect(out.stdout).toBe('');
    expect(ss.lookup(`ci@${v.configPath}`)).toBeUndefined();
    expect(v.profile('ci')).toEqual({ base_url: emu.baseUrl });
    const me = await v.run(['me', '--profile', 'ci']);
    expect(me.status).toBe(3);
    expect(me.stderr).toContain('No API key: none was given and none is stored in profile "ci".');
  });

  test('a key in the file (the layout of earlier versions) keeps working; logging in again moves it to the keyring; logout from the file', async () => {
    const v = cli();
    v.writeConfig({ default: { api_key: emu.key(), base_url: emu.baseUrl }, old: { api_key: emu.key('Demo', 'read'), base_url: emu.baseUrl } });
    const me = await v.run(['me']);
    expect([me.status, me.stderr]).toEqual([0, '']);
    expect(me.stdout).toMatch(new RegExp(`^Key from\\tprofile "default", kept in ${v.configPath}$`, 'm'));
    expect(JSON.parse((await v.run(['profiles', '--json', 'name,storage'])).stdout)).toEqual([
      { name: 'default', storage: 'file' },
      { name: 'old', storage: 'file' },
    ]);

    const again = await v.run(['login', '--with-key'], { input: emu.key() });
    expect([again.status, again.stderr]).toEqual([0, '']);
    expect(ss.lookup(`default@${v.configPath}`)).toBe(emu.key());
    expect(v.profile()?.api_key).toBeUndefined();
    expect(v.profile('old')?.api_key).toBe(emu.key('Demo', 'read')); // the other profile is left as it was

    const out = await v.run(['logout', '--profile', 'old']);
    expect(out.stderr).toBe(`Logged out: the key of profile "old" was removed from ${v.configPath}.\nThe key is still valid at the service; revoke it in the web app (API settings) if it was exposed.\n`);
    expect(out.stdout).toBe('');
    expect(v.configText()).not.toContain(emu.key('Demo', 'read'));
  });

  test('--insecure-storage keeps the key in the file without a word about the keyring, and moves one out of the keyring', async () => {
    const v = cli();
    expect((await v.run(['login', '--with-key'], { input: emu.key() })).status).toBe(0);
    expect(ss.lookup(`default@${v.configPath}`)).toBe(emu.key());
    const r = await v.run(['login', '--with-key', '--insecure-storage'], { input: emu.key() });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(new RegExp(`^Stored in\\t${v.configPath}$`, 'm'));
    expect(v.profile()?.api_key).toBe(emu.key());
    expect(v.profile()?.key_storage).toBeUndefined();
    expect(ss.lookup(`default@${v.configPath}`)).toBeUndefined();
  });

  test('VIDPUB_NO_KEYRING=1 turns the keyring off: the file, without a word', async () => {
    const v = cli();
    const r = await v.run(['login', '--with-key', '--json'], { input: emu.key(), env: { VIDPUB_NO_KEYRING: '1' } });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ storage: 'file', config_path: v.configPath });
    expect(v.profile()?.api_key).toBe(emu.key());
    expect(ss.lookup(`default@${v.configPath}`)).toBeUndefined();
  });

  test('VIDPUB_API_KEY and --api-key-file win over a key in the keyring', async () => {
    const v = cli();
    expect((await v.run(['login', '--with-key'], { input: emu.key() })).status).toBe(0);
    const env = await v.run(['me'], { env: { VIDPUB_API_KEY: emu.key('Demo', 'read') } });
    expect(env.status).toBe(0);
    expect(env.stdout).toMatch(/^Key\tvp_live_…1Ye5 \(read\)/m);
    expect(env.stdout).toMatch(/^Key from\tthe environment \(VIDPUB_API_KEY\)$/m);
    const file = join(v.dir, 'key.txt');
    writeFileSync(file, emu.key('Demo', 'read'));
    const flag = await v.run(['me', '--api-key-file', file]);
    expect(flag.status).toBe(0);
    expect(flag.stdout).toMatch(/^Key\tvp_live_…1Ye5 \(read\)/m);
  });

  test('two logins at the same instant, to two profiles: both keys in the keyring, both profiles in the file', async () => {
    await emu.reset();
    // Two OS processes racing on config.json's lock: the built CLI.
    const v = vidpub(emu, () => ss.env);
    const runs = await Promise.all([
      v.run(['login', '--with-key', '--profile', 'a'], { input: emu.key() }),
      v.run(['login', '--with-key', '--profile', 'b'], { input: emu.key('Demo', 'read') }),
    ]);
    expect(runs.map((r) => [r.status, r.stderr])).toEqual([
      [0, ''],
      [0, ''],
    ]);
    expect(ss.lookup(`a@${v.configPath}`)).toBe(emu.key());
    expect(ss.lookup(`b@${v.configPath}`)).toBe(emu.key('Demo', 'read'));
    expect(v.profile('a')).toMatchObject({ key_storage: 'keychain', key_masked: 'vp_live_…s3Td' });
    expect(v.profile('b')).toMatchObject({ key_storage: 'keychain', key_masked: 'vp_live_…1Ye5' });
  });

  test('a key removed from the keyring behind vidpub: exit 3, saying where it should be and what to do', async () => {
    const v = cli();
    v.writeConfig({ default: { key_storage: 'keychain', key_masked: 'vp_live_…s3Td', base_url: emu.baseUrl } });
    const me = await v.run(['me']);
    expect(me.status).toBe(3);
    expect(me.stderr).toContain('The key of profile "default" should be in the Secret Service keyring, but it holds none (was it removed there?).');
    expect(me.stderr).toContain('Run "vidpub login" to store a key again, or set VIDPUB_API_KEY.');
  });
});

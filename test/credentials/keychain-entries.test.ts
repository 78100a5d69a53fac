/**
 * Which keychain entry holds a profile's key, with a real Secret Service
 * (gnome-keyring in a private D-Bus session) and vidpub in-process (its
 * keychain helper a child process, as always; a lock on config.json held by
 * another live process), a project's runs with the project as their Context's
 * cwd (a relative VIDPUB_CONFIG_DIR is read against it, as the built bin reads
 * it against its working directory). The entry is
 * named after the canonical absolute path of config.json, so two projects
 * with the same relative VIDPUB_CONFIG_DIR keep two keys; entries of earlier
 * versions are read where they can only be this profile's; a login refused
 * by the lock stores nothing anywhere; a key moved to the file while the
 * keyring is locked leaves a copy that is said, recorded and removed by
 * logout; hints name the profile.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { DEFAULT_LOCK_WAIT_MS } from '../../src/util/file-lock.js';
import { runCli } from '../support/cli.js';
import { manualClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { describeWithSecretService, vidpub } from './cli.js';
import { useSecretService, type SecretService } from '../support/secret-service.js';

const emu = useEmulator();

/**
 * A project directory (its real path: /tmp may be a link) where vidpub runs with VIDPUB_CONFIG_DIR=.vidpub:
 * in-process, the project its Context's cwd (this process's working directory is another).
 */
function project(ss: () => SecretService) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vidpub-project-')));
  const configPath = join(dir, '.vidpub', 'config.json');
  return {
    dir,
    configPath,
    account: (profile = 'default') => `${profile}@${configPath}`,
    run: async (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) => {
      const r = await runCli(args, {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', VIDPUB_CONFIG_DIR: '.vidpub', VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_BASE_URL: emu.baseUrl, NO_COLOR: '1', ...ss().env, ...opts.env },
        stdin: opts.input ?? '',
      });
      return { status: r.code, stdout: r.stdout, stderr: r.stderr };
    },
    profile: (name = 'default') => (JSON.parse(readFileSync(configPath, 'utf8')) as { profiles: Record<string, Record<string, string>> }).profiles[name],
    writeConfig(profiles: Record<string, Record<string, string>>) {
      mkdirSync(join(dir, '.vidpub'), { recursive: true, mode: 0o700 });
      writeFileSync(configPath, JSON.stringify({ profiles }), { mode: 0o600 });
    },
  };
}

const LEGACY = 'default@.vidpub/config.json';
const OUR_KEY = 'vp_live_…s3Td';

describeWithSecretService('keychain entries named after the canonical config location', () => {
  const ss = useSecretService({ unlock: true });

  test('two projects with VIDPUB_CONFIG_DIR=.vidpub keep two keys and post to two workspaces; logout in one leaves the other', async () => {
    const a = project(() => ss);
    const b = project(() => ss);
    expect((await a.run(['login', '--with-key'], { input: emu.key('Demo') })).status).toBe(0);
    expect((await b.run(['login', '--with-key'], { input: emu.key('Demo Second') })).status).toBe(0);
    expect(ss.lookup(a.account())).toBe(emu.key('Demo'));
    expect(ss.lookup(b.account())).toBe(emu.key('Demo Second'));
    expect(ss.accounts()).not.toContain(LEGACY);
    expect(existsSync(join(process.cwd(), '.vidpub'))).toBe(false); // the projects', not this process's directory

    const postA = await a.run(['post', '--media', 'med_demo_sample', '--to', 'dst_demo_youtube', '--caption', 'from A', '--no-input', '--json']);
    const postB = await b.run(['post', '--media', 'med_second_sample', '--to', 'dst_second_youtube', '--caption', 'from B', '--no-input', '--json']);
    expect([postA.status, JSON.parse(postA.stdout).status]).toEqual([0, 'completed']);
    expect([postB.status, JSON.parse(postB.stdout).status]).toEqual([0, 'completed']);
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
    const posts = Object.fromEntries(state.workspaces.map((w) => [w.name, w.posts.total]));
    expect(posts['Demo']).toBeGreaterThanOrEqual(1);
    expect(posts['Demo Second']).toBeGreaterThanOrEqual(1);
    expect(JSON.parse((await a.run(['me', '--json'])).stdout).workspace.name).toBe('Demo');
    expect(JSON.parse((await b.run(['me', '--json'])).stdout).workspace.name).toBe('Demo Second');

    const out = await a.run(['logout']);
    expect([out.status, out.stderr.split('\n')[0]]).toEqual([0, 'Logged out: the key of profile "default" was removed from the Secret Service keyring.']);
    expect(ss.lookup(a.account())).toBeUndefined();
    expect(ss.lookup(b.account())).toBe(emu.key('Demo Second'));
    expect(JSON.parse((await b.run(['me', '--json'])).stdout).workspace.name).toBe('Demo Second');
    expect((await b.run(['logout'])).status).toBe(0);
  });

  test("an earlier vidpub's shared entry (relative path) is used only for the key this profile stored, copied to its own entry; logout removes it then", async () => {
    ss.store(LEGACY, emu.key('Demo'));
    const mine = project(() => ss);
    const other = project(() => ss);
    mine.writeConfig({ default: { key_storage: 'keychain', key_masked: OUR_KEY, base_url: emu.baseUrl } });
    other.writeConfig({ default: { key_storage: 'keychain', key_masked: 'vp_live_…Zz99', base_url: emu.baseUrl } });

    const refused = await other.run(['me']);
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain(
      `Error: The key of profile "default" is not in the Secret Service keyring under this config directory's entry; the entry "${LEGACY}" of an earlier vidpub holds another key (${OUR_KEY}), which any directory with the same relative VIDPUB_CONFIG_DIR may have stored, so it is not used.`,
    );
    expect(refused.stderr).toContain(`Run "vidpub login" to store this directory's key under its own entry, or set VIDPUB_API_KEY.`);
    expect(ss.lookup(other.account())).toBeUndefined();

    const me = await mine.run(['me', '--json']);
    expect([me.status, me.stderr]).toEqual([0, '']);
    expect(JSON.parse(me.stdout).workspace.name).toBe('Demo');
    expect(ss.lookup(mine.account())).toBe(emu.key('Demo')); // migrated
    expect(ss.lookup(LEGACY)).toBe(emu.key('Demo')); // left for the other directories that share it

    // Another directory's logout leaves the shared entry (it holds a key that is not this profile's) and says so.
    other.writeConfig({ default: { api_key: emu.key('Demo Second'), base_url: emu.baseUrl } });
    const otherOut = await other.run(['logout']);
    expect(otherOut.status).toBe(0);
    expect(otherOut.stderr).toContain(`Left in place: the entry "${LEGACY}" of an earlier vidpub holds another key (another directory's with the same VIDPUB_CONFIG_DIR?) and was left as it was.`);
    expect(ss.lookup(LEGACY)).toBe(emu.key('Demo'));

    const out = await mine.run(['logout']);
    expect([out.status, out.stderr.split('\n')[0]]).toEqual([0, 'Logged out: the key of profile "default" was removed from the Secret Service keyring.']);
    expect(ss.lookup(mine.account())).toBeUndefined();
    expect(ss.lookup(LEGACY)).toBeUndefined();
  });

  test("an earlier vidpub's entry under an absolute path through a link names this file alone: read, and moved to the canonical entry", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'vidpub-linked-')));
    mkdirSync(join(base, 'real'), { mode: 0o700 });
    symlinkSync(join(base, 'real'), join(base, 'link'));
    const old = `default@${join(base, 'link', 'config.json')}`;
    const canonical = `default@${join(base, 'real', 'config.json')}`;
    ss.store(old, emu.key('Studio'));
    writeFileSync(join(base, 'real', 'config.json'), JSON.stringify({ profiles: { default: { key_storage: 'keychain', key_masked: 'vp_live_…x', base_url: emu.baseUrl } } }), { mode: 0o600 });
    // An absolute config dir: in-process.
    const env = { PATH: process.env.PATH ?? '', VIDPUB_CONFIG_DIR: join(base, 'link'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_BASE_URL: emu.baseUrl, ...ss.env };
    const me = await runCli(['me', '--json'], { env });
    expect([me.code, me.stderr]).toEqual([0, '']);
    expect(JSON.parse(me.stdout).workspace.name).toBe('Studio');
    expect(ss.lookup(canonical)).toBe(emu.key('Studio'));
    expect(ss.lookup(old)).toBeUndefined();
    expect((await runCli(['logout'], { env })).code).toBe(0);
    expect(ss.accounts().filter((a) => a.startsWith('default@' + base))).toEqual([]);
  });
});

describeWithSecretService('a keyring of its own: a refused login, copies left behind, hints while it is locked', () => {
  const ss = useSecretService({ unlock: true });

  test('a login refused because another process holds the lock on config.json stores nothing anywhere', async () => {
    // The lock's owner is another live process of this machine than the login's (in-process, this one's): Vitest's own.
    const owner = process.ppid;
    expect(owner).not.toBe(process.pid);
    const v = vidpub(emu, () => ss.env, 'in-process');
    mkdirSync(v.dir, { recursive: true });
    writeFileSync(`${v.configPath}.lock`, JSON.stringify({ pid: owner, host: hostname(), at: Date.now() }));
    // The wait for the lock runs on the Context's clock: once the login sleeps between its tries (its only
    // sleeps of a few ms), the whole wait (10 s) runs out.
    const clock = manualClock();
    const running = v.run(['login', '--with-key', '--profile', 'refused'], { input: emu.key(), clock });
    await timeUpWhen(clock, DEFAULT_LOCK_WAIT_MS, () => Promise.resolve(clock.pending().some((ms) => ms < 100)));
    const r = await running;
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`Error: The config file ${v.configPath} is locked by process ${owner} (another vidpub login or logout); nothing was stored.`);
    expect(ss.lookup(`refused@${v.configPath}`)).toBeUndefined();
    expect(ss.accounts()).toEqual([]); // secret-tool search: nothing
    expect(v.configText()).toBe('');
  }, 30_000);

  test('a key in the file with a copy in the keyring: logout removes both and says so', async () => {
    const v = vidpub(emu, () => ss.env, 'in-process');
    const account = `default@${realpathSync(v.dir)}/config.json`;
    ss.store(account, emu.key());
    v.writeConfig({ default: { api_key: emu.key(), base_url: emu.baseUrl } });
    const out = await v.run(['logout']);
    expect(out.status).toBe(0);
    expect(out.stderr.split('\n')[0]).toBe(`Logged out: the key of profile "default" was removed from ${v.configPath} and an earlier copy from the Secret Service keyring.`);
    expect(ss.lookup(account)).toBeUndefined();
  });

  test('hints keep --profile; the copy left in the keyring is said, recorded, and removed by logout once the keyring opens', async () => {
    const v = vidpub(emu, () => ss.env, 'in-process');
    const account = `kc@${realpathSync(v.dir)}/config.json`;
    expect((await v.run(['login', '--with-key', '--profile', 'kc'], { input: emu.key() })).status).toBe(0);
    expect(ss.lookup(account)).toBe(emu.key());
    ss.lock();

    const me = await v.run(['me', '--profile', 'kc']);
    expect(me.status).toBe(3);
    expect(me.stderr).toContain('run "vidpub login --profile kc --insecure-storage" to keep the key in the config file.');
    const logout = await v.run(['logout', '--profile', 'kc']);
    expect(logout.status).toBe(1);
    expect(logout.stderr).toContain('Unlock the keyring (or start a desktop session) and run "vidpub logout --profile kc" again.');
    expect(logout.stderr).not.toContain('"vidpub logout" again');

    // Logging in again goes to the file; the earlier key stays in the keyring, and login says where.
    const again = await v.run(['login', '--with-key', '--profile', 'kc'], { input: emu.key('Demo', 'read') });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/^! No system keychain could take the key \(Couldn't access platform storage: Secret Service: \S/m);
    expect(again.stderr).toContain(`The key stored earlier stays in the Secret Service keyring under "${account}" (`);
    expect(again.stderr).toContain('When it can be reached, "vidpub login --profile kc" puts this key there in its place, or "vidpub logout --profile kc" removes both.');
    expect(v.profile('kc')).toMatchObject({ api_key: emu.key('Demo', 'read'), keychain_leftover: account });
    expect(v.profile('kc')?.key_storage).toBeUndefined();

    // Logout while still locked: the file's key goes, the copy is said and stays recorded for the next logout.
    const locked = await v.run(['logout', '--profile', 'kc']);
    expect(locked.status).toBe(0);
    expect(locked.stderr).toContain(`Logged out: the key of profile "kc" was removed from ${v.configPath}.`);
    expect(locked.stderr).toContain(`Left in place: the Secret Service keyring refused to remove the earlier key kept there under "${account}" (`);
    expect(locked.stderr).toContain('run "vidpub logout --profile kc" again');
    expect(v.configText()).not.toContain(emu.key('Demo', 'read'));
    expect(v.profile('kc')).toEqual({ base_url: emu.baseUrl, keychain_leftover: account });

    await ss.unlock();
    expect(ss.lookup(account)).toBe(emu.key());
    const out = await v.run(['logout', '--profile', 'kc']);
    expect([out.status, out.stderr.split('\n')[0]]).toEqual([0, 'Logged out: the key of profile "kc" was removed from the Secret Service keyring.']);
    expect(ss.lookup(account)).toBeUndefined();
    expect(ss.accounts()).toEqual([]);
    expect(v.profile('kc')).toEqual({ base_url: emu.baseUrl });
  }, 60_000);

});

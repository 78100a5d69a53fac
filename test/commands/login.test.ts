import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Prompter } from '../../src/cli/run/context.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { noPrompter, scriptedPrompter } from '../support/prompter.js';

const emu = useEmulator();

const FREE_KEY = 'vp_live_free_rw_Z5c1Rm7Ue3Kp8Dw4';
const REVOKED_KEY = 'vp_live_demo_revoked_X2v6Bn4Ts8Hj';

function config(dir: string): { profiles?: Record<string, Record<string, string>> } {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
}

/** Login with the key on stdin, into a fresh config dir, against the emulator. */
async function login(key: string, extra: string[] = [], env: Record<string, string> = {}) {
  const dir = env.VIDPUB_CONFIG_DIR ?? tempConfigDir();
  const r = await runCli(['login', '--with-key', ...extra], { stdin: key + '\n', env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir, ...env } });
  return { ...r, dir };
}

describe('vidpub login', () => {
  test('--with-key: checks the key, stores key and base URL (0600 in 0700), prints workspace, plan and access', async () => {
    const { code, stdout, stderr, dir } = await login(emu.key());
    expect(code).toBe(0);
    // No D-Bus session in the test's environment: the file, said once (test/credentials/ has the keychain).
    expect(stderr).toBe(
      `! No system keychain could take the key (no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set): it is stored in ${join(dir, 'config.json')} (mode 0600).\n`,
    );
    expect(stdout).toMatch(/^Stored in\t.*config\.json$/m);
    expect(stdout).toMatch(/^Workspace\tDemo$/m);
    expect(stdout).toMatch(/^Plan\tstandard$/m);
    expect(stdout).toMatch(/^Access\tread_write$/m);
    expect(stdout).toMatch(/^Key\tvp_live_…s3Td$/m);
    expect(stdout).not.toContain(emu.key());
    const profile = config(dir).profiles!.default!;
    expect(profile).toMatchObject({ api_key: emu.key(), base_url: emu.baseUrl, workspace: 'Demo' });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // The stored profile is then used with nothing in the environment.
    const me = await runCli(['me', '--json'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).workspace.name).toBe('Demo');
  });

  test('the key is trimmed; --json prints the record without the key', async () => {
    const { code, stdout, dir } = await login(`  ${emu.key()}  \n\n`, ['--json']);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ profile: 'default', workspace: 'Demo', plan: 'standard', access: 'read_write', key: 'vp_live_…s3Td', base_url: emu.baseUrl });
    expect(stdout).not.toContain(emu.key());
    expect(config(dir).profiles!.default!.api_key).toBe(emu.key());
  });

  test('a masked prompt on a terminal', async () => {
    const { prompter, asked } = scriptedPrompter([emu.key()]);
    const dir = tempConfigDir();
    const r = await runCli(['login'], { tty: true, prompter, env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir, NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(asked).toEqual([{ kind: 'password', message: 'API key (input is hidden)', mask: '*' }]);
    expect(r.stdout).toMatch(/Logged in to workspace Demo/);
    expect(config(dir).profiles!.default!.api_key).toBe(emu.key());
  });

  test('--api-key-file: the key from a file, no prompt needed (CI)', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'key.txt');
    writeFileSync(file, emu.key() + '\n');
    const r = await runCli(['login', '--api-key-file', file, '--no-input'], { env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(config(dir).profiles!.default!.api_key).toBe(emu.key());
    const both = await runCli(['login', '--with-key', '--api-key-file', file], { stdin: emu.key(), env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/Error: give the key one way: --with-key \(stdin\) or --api-key-file, not both/);
  });

  test('Ctrl-C at the prompt: exit 130, nothing stored', async () => {
    const dir = tempConfigDir();
    const cancelled: Prompter = {
      ...noPrompter,
      password: () => Promise.reject(Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' })),
    };
    const r = await runCli(['login'], { tty: true, prompter: cancelled, env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir, NO_COLOR: '1' } });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/^Cancelled: nothing was stored\./);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  test('no terminal and no --with-key: exit 2 saying how to pipe the key (also --no-input and VIDPUB_NO_INPUT=1)', async () => {
    for (const [argv, env] of [
      [['login'], {}],
      [['login', '--no-input'], {}],
      [['login'], { VIDPUB_NO_INPUT: '1' }],
    ] as [string[], Record<string, string>][]) {
      const tty = argv.includes('--no-input') || env.VIDPUB_NO_INPUT ? true : false;
      const r = await runCli([...argv, '--no-color'], { tty, prompter: scriptedPrompter([emu.key()]).prompter, env: { VIDPUB_BASE_URL: emu.baseUrl, ...env } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Error: no terminal to ask for the key/);
      expect(r.stderr).toMatch(/vidpub login --with-key < key.txt/);
    }
    expect(await emu.requests()).toEqual([]);
  });

  test('a key without the _live_ prefix is refused before any request: exit 3, nothing stored, key not echoed', async () => {
    const { code, stderr, dir } = await login('sk_test_abcdefgh12345678');
    expect(code).toBe(3);
    expect(stderr).toMatch(/Error: that is not a live API key: keys start with a prefix ending in "_live_"/);
    expect(stderr).not.toContain('abcdefgh12345678');
    expect(await emu.requests()).toEqual([]);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  test('an empty key on stdin: exit 2', async () => {
    const { code, stderr } = await login('   ');
    expect(code).toBe(2);
    expect(stderr).toMatch(/Error: no API key was given/);
  });

  test('an invalid key: exit 3, nothing stored', async () => {
    const { code, stderr, dir } = await login('vp_live_doesnotexist0000');
    expect(code).toBe(3);
    expect(stderr).toMatch(/Error: The API key was refused: .*\(HTTP 401 invalid_key\)/);
    expect(stderr).toMatch(/vidpub login/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  test('a revoked key: exit 3, nothing stored, hint to create a new key', async () => {
    const { code, stderr, dir } = await login(REVOKED_KEY);
    expect(code).toBe(3);
    expect(stderr).toMatch(/Error: The API key was refused: .*\(HTTP 401 revoked_key\)/);
    expect(stderr).toMatch(/Create a new key/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  test('a Free-plan key: exit 3 naming the plan, nothing stored', async () => {
    const { code, stderr, dir } = await login(FREE_KEY);
    expect(code).toBe(3);
    expect(stderr).toMatch(/Error: The workspace is on the Free plan, which has no API access/);
    expect(stderr).toMatch(/Standard and Studio/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  test('a read-only key logs in (login only reads) and says what it cannot do', async () => {
    const { code, stdout, dir } = await login(emu.key('Demo', 'read'));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Access\tread \(look things up only; posting needs a read_write key\)$/m);
    expect(config(dir).profiles!.default!.api_key).toBe(emu.key('Demo', 'read'));
  });

  test('--profile stores under that name and leaves the others alone (VIDPUB_PROFILE too)', async () => {
    const first = await login(emu.key());
    expect(first.code).toBe(0);
    const second = await login(emu.key('Studio'), ['--profile', 'studio'], { VIDPUB_CONFIG_DIR: first.dir });
    expect(second.code).toBe(0);
    const third = await login(emu.key('Demo Second'), [], { VIDPUB_CONFIG_DIR: first.dir, VIDPUB_PROFILE: 'second' });
    expect(third.code).toBe(0);
    const profiles = config(first.dir).profiles!;
    expect(Object.keys(profiles).sort()).toEqual(['default', 'second', 'studio']);
    expect(profiles.default!.workspace).toBe('Demo');
    expect(profiles.studio!.workspace).toBe('Studio');
    expect(profiles.second!.workspace).toBe('Demo Second');
    const me = await runCli(['me', '--json', '--profile', 'studio'], { env: { VIDPUB_CONFIG_DIR: first.dir } });
    expect(JSON.parse(me.stdout).workspace.name).toBe('Studio');
  });

  test('--base-url is checked and stored', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['login', '--with-key', '--base-url', emu.baseUrl + '/'], { stdin: emu.key(), env: { VIDPUB_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(config(dir).profiles!.default!.base_url).toBe(emu.baseUrl);
  });

  test('--base-url http:// off loopback: exit 2 before any request, nothing stored', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['login', '--with-key', '--base-url', 'http://videos.example.com/v1'], { stdin: emu.key(), env: { VIDPUB_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing the http:\/\/ base URL/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  test('--workspace that does not match the key: exit 3 naming both, nothing stored', async () => {
    const { code, stderr, dir } = await login(emu.key(), ['--workspace', 'Studio']);
    expect(code).toBe(3);
    expect(stderr).toMatch(/belongs to workspace "Demo", not "Studio"/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  test('VIDPUB_API_KEY set: a warning that it wins over the stored key', async () => {
    const { code, stderr } = await login(emu.key(), [], { VIDPUB_API_KEY: emu.key('Studio') });
    expect(code).toBe(0);
    expect(stderr).toMatch(/VIDPUB_API_KEY is set: it takes precedence/);
  });

  const corrupt: [string, string][] = [
    ['truncated JSON', '{"profiles": {"default": {"api_key": "vp_live_secretsecret'],
    ['empty', ''],
    ['a bare key', 'vp_live_secretsecret'],
  ];
  for (const [name, content] of corrupt) {
    test(`a corrupt config file (${name}): me and login exit 1 naming the file, never its contents, never overwriting it`, async () => {
      const dir = tempConfigDir();
      const path = join(dir, 'config.json');
      writeFileSync(path, content);
      const me = await runCli(['me'], { env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl } });
      expect(me.code).toBe(1);
      expect(me.stderr).toContain(`Error: The config file ${path}`);
      expect(me.stderr).not.toContain('secretsecret');
      const l = await runCli(['login', '--with-key'], { stdin: emu.key(), env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl } });
      expect(l.code).toBe(1);
      expect(l.stderr).toContain(`Error: The config file ${path}`);
      expect(l.stderr).toMatch(/never overwrites it/);
      expect(l.stderr).not.toContain('secretsecret');
      expect(readFileSync(path, 'utf8')).toBe(content);
      expect(await emu.requests()).toEqual([]);
    });
  }

  test('a corrupt config file is not read when the environment gives both key and base URL', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), '{oops');
    const r = await runCli(['me', '--json'], { env: { ...emu.env(), VIDPUB_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
  });
});

describe('vidpub logout', () => {
  test('forgets the stored key (keeping the base URL); then me exits 3; a second logout is a no-op', async () => {
    const { dir } = await login(emu.key());
    const out = await runCli(['logout'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(out.code).toBe(0);
    // a message, not data: on stderr
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^Logged out: the key of profile "default" was removed from .*config\.json\.$/m);
    expect(out.stderr).toMatch(/still valid at the service; revoke it/);
    expect(config(dir).profiles!.default).toEqual({ base_url: emu.baseUrl });
    const me = await runCli(['me'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(me.code).toBe(3);
    expect(me.stderr).toMatch(/Error: No API key/);
    const again = await runCli(['logout', '--json'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ profile: 'default', removed: false });
  });

  test('--profile: only that profile is forgotten', async () => {
    const { dir } = await login(emu.key());
    await login(emu.key('Studio'), ['--profile', 'studio'], { VIDPUB_CONFIG_DIR: dir });
    const out = await runCli(['logout', '--profile', 'studio'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(out.code).toBe(0);
    expect(config(dir).profiles!.default!.api_key).toBe(emu.key());
    expect(config(dir).profiles!.studio!.api_key).toBeUndefined();
  });

  test('with VIDPUB_API_KEY set: warns that the environment still provides a key', async () => {
    const { dir } = await login(emu.key());
    const out = await runCli(['logout'], { env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_API_KEY: emu.key() } });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/VIDPUB_API_KEY is still set/);
  });

  test('a profile that is not stored: exit 2, saying so, with the stored ones; nothing changed', async () => {
    const { dir } = await login(emu.key());
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const out = await runCli(['logout', '--profile', 'nope'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe('Error: no profile "nope" is stored: nothing to log out of\nStored profiles: default ("vidpub profiles" lists them).\n');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    const none = await runCli(['logout'], { env: { VIDPUB_CONFIG_DIR: tempConfigDir() } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Error: no profile "default" is stored: nothing to log out of\nNo profile is stored \("vidpub login" stores one\)\.$/m);
  });

  test('an invalid profile name: exit 2', async () => {
    const out = await runCli(['logout', '--profile', '../etc'], {});
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/invalid profile name/);
  });
});

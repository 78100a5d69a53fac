/**
 * Empty values of the credential flags, as a script's unset variable gives
 * them (`--workspace "$WS"`, `--api-key-file "$KEY_FILE"`): refused before any
 * request, never taken as "no flag".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
const CLIP = join(__dirname, '../fixtures/clip.mp4');

describe('empty credential flags', () => {
  test('--workspace "": exit 2 before any request, not a write with the workspace check turned off', async () => {
    const r = await runCli(['upload', CLIP, '--no-wait', '--workspace', ''], { env: emu.env('Demo Second') });
    expect(r.stderr).toContain('Error: --workspace is empty: give the name of the workspace writes must go to, or leave the flag out');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(await emu.requests()).toEqual([]);
  });

  test('--api-key-file "": exit 2 saying the path is empty, not that the working directory cannot be read', async () => {
    for (const argv of [['me'], ['login', '--no-input']]) {
      const r = await runCli([...argv, '--api-key-file', ''], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
      expect(r.stderr).toContain('Error: --api-key-file is empty: give the path of a file that holds only the key');
      expect(r.stderr).not.toContain('EISDIR');
      expect(r.code).toBe(2);
    }
    expect(await emu.requests()).toEqual([]);
  });
});

/**
 * A refused key's hint says where to put a good one: the variable or file it
 * came from, or `vidpub login` for the profile in use (not the default one).
 */
describe('the hint after a refused or missing key names where the key comes from', () => {
  const REVOKED = 'vp_live_demo_revoked_X2v6Bn4Ts8Hj';

  test('a revoked key of profile "ci": the hint is to log in to that profile', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { ci: { api_key: REVOKED, base_url: emu.baseUrl } } }), { mode: 0o600 });
    const r = await runCli(['me', '--profile', 'ci'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(r.stderr).toMatch(/Error: The API key was refused: .*\(HTTP 401 revoked_key\)/);
    expect(r.stderr).toContain('Create a new key in the web app (API settings), then run "vidpub login --profile ci".');
    expect(r.code).toBe(3);
  });

  test('a revoked key from VIDPUB_API_KEY: the hint is to change the variable (a login would not be used)', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_API_KEY: REVOKED } });
    expect(r.stderr).toMatch(/\(HTTP 401 revoked_key\)/);
    expect(r.stderr).toContain('Create a new key in the web app (API settings), then set VIDPUB_API_KEY to it (it wins over any key "vidpub login" stores).');
    expect(r.code).toBe(3);
  });

  test('an invalid key from --api-key-file: the hint names the file', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'key.txt');
    writeFileSync(file, 'vp_live_doesnotexist0000\n');
    const r = await runCli(['me', '--api-key-file', file], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.stderr).toMatch(/\(HTTP 401 invalid_key\)/);
    expect(r.stderr).toContain(`Put a valid key in ${file} (the --api-key-file).`);
    expect(r.code).toBe(3);
  });

  test('a read-only key of profile "ci" writing: the hint is to log in to that profile with a read_write key', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { ci: { api_key: emu.key('Demo', 'read'), base_url: emu.baseUrl } } }), { mode: 0o600 });
    const r = await runCli(['upload', CLIP, '--no-wait', '--profile', 'ci'], { env: { VIDPUB_CONFIG_DIR: dir } });
    expect(r.stderr).toMatch(/\(HTTP 403 read_only_key\)/);
    expect(r.stderr).toContain('Create a key with read and write access in the web app (API settings), then run "vidpub login --profile ci".');
    expect(r.code).toBe(3);
  });

  test('no key in profile "ci": the hint is to log in to that profile', async () => {
    const r = await runCli(['me', '--profile', 'ci'], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.stderr).toContain('Error: No API key: none was given and none is stored in profile "ci".');
    expect(r.stderr).toContain('Run "vidpub login --profile ci" to store one, or set VIDPUB_API_KEY (or pass --api-key-file PATH).');
    expect(r.code).toBe(3);
    expect(await emu.requests()).toEqual([]);
  });
});

describe('an invalid profile name says where it came from', () => {
  test('VIDPUB_PROFILE set to an empty or invalid name: exit 2 naming the variable', async () => {
    for (const value of ['', 'a b']) {
      const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_PROFILE: value } });
      expect(r.stderr).toContain(`Error: invalid profile name "${value}" (from VIDPUB_PROFILE): use letters, digits, "-" and "_" (at most 64)`);
      expect(r.code).toBe(2);
    }
    const flag = await runCli(['me', '--profile', 'a/b'], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(flag.stderr).toContain('Error: invalid profile name "a/b" (from --profile): use letters');
    expect(flag.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  });
});

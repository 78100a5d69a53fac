import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { configDir, openConfigStore } from '../../src/config/store.js';
import { VidpubError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'vidpub-store-'));
const mode = (p: string) => statSync(p).mode & 0o777;


describe('config location', () => {
  test('VIDPUB_CONFIG_DIR, then XDG_CONFIG_HOME/vidpub, then ~/.config/vidpub', () => {
    expect(configDir({ VIDPUB_CONFIG_DIR: '/a/b', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/a/b');
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/vidpub');
    expect(configDir({ HOME: '/h' })).toBe('/h/.config/vidpub');
  });
});

describe('config store', () => {
  test('writes profiles whole to config.json, mode 0600 in a directory created 0700', async () => {
    const dir = join(tmp(), 'nested', 'vidpub');
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, { writable: true });
    store.setProfile('default', { api_key: 'vp_live_a', base_url: 'https://x.example/v1' });
    store.setProfile('ci', { api_key: 'vp_live_b', workspace: '' });
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(mode(store.path)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      profiles: { default: { api_key: 'vp_live_a', base_url: 'https://x.example/v1' }, ci: { api_key: 'vp_live_b' } },
    });
    const read = await openConfigStore({ VIDPUB_CONFIG_DIR: dir });
    expect(read.listProfiles()).toEqual(['ci', 'default']);
    expect(read.getProfile('ci')).toEqual({ api_key: 'vp_live_b' });
    expect(read.getProfile('nope')).toBeUndefined();
  });

  test('profile names with dots are one key, not a path', async () => {
    const dir = tmp();
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, { writable: true });
    store.setProfile('a.b', { api_key: 'vp_live_x' });
    expect(JSON.parse(readFileSync(store.path, 'utf8')).profiles['a.b']).toEqual({ api_key: 'vp_live_x' });
  });

  test('a world-readable existing file becomes 0600 on the next write; other top-level keys are kept', async () => {
    const dir = tmp();
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ other: 1, profiles: {} }));
    chmodSync(path, 0o644);
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, { writable: true });
    store.setProfile('default', { api_key: 'vp_live_x' });
    expect(mode(path)).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).other).toBe(1);
  });

  test('deleteProfile says whether there was one', async () => {
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: tmp() }, { writable: true });
    store.setProfile('x', { api_key: 'vp_live_x' });
    expect(store.deleteProfile('x')).toBe(true);
    expect(store.deleteProfile('x')).toBe(false);
    expect(store.getProfile('x')).toBeUndefined();
  });

  test('a store opened read-only refuses to write', async () => {
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: tmp() });
    expect(() => store.setProfile('x', {})).toThrow(/read-only/);
  });

  const corrupt: [string, string, RegExp][] = [
    ['truncated JSON', '{"profiles": {"default": {"api_key": "vp_live_sec', /is not valid JSON/],
    ['empty', '', /is empty/],
    ['a bare key', 'vp_live_supersecret123', /is not valid JSON/],
    ['a JSON string', '"vp_live_supersecret123"', /does not hold a JSON object/],
    ['profiles of the wrong shape', '{"profiles": {"default": "vp_live_supersecret123"}}', /profile "default" that is not an object/],
    ['a key that is not a string', '{"profiles": {"default": {"api_key": 12}}}', /api_key is not a string/],
  ];
  for (const [name, content, message] of corrupt) {
    test(`a corrupt file (${name}): an error naming the file, never its contents, and the file is left alone`, async () => {
      const dir = tmp();
      const path = join(dir, 'config.json');
      writeFileSync(path, content);
      for (const writable of [false, true]) {
        const err = await expectError(VidpubError, () => openConfigStore({ VIDPUB_CONFIG_DIR: dir }, { writable }));
        expect(err).toBeInstanceOf(VidpubError);
        expect(err.exitCode).toBe(1);
        expect(err.message).toContain(path);
        expect(err.message).toMatch(message);
        expect(err.message + (err.hint ?? '')).not.toContain('supersecret');
        expect(err.message + (err.hint ?? '')).not.toContain('vp_live_sec');
      }
      expect(readFileSync(path, 'utf8')).toBe(content);
    });
  }

  test('a file that turns corrupt after opening is not overwritten by a write', async () => {
    const dir = tmp();
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, { writable: true });
    store.setProfile('default', { api_key: 'vp_live_x' });
    writeFileSync(store.path, '{"profiles":');
    expect(() => store.setProfile('default', { api_key: 'vp_live_y' })).toThrow(/is not valid JSON/);
    expect(readFileSync(store.path, 'utf8')).toBe('{"profiles":');
  });

  test('a config path that cannot be read (a file where the directory should be): an error naming it', async () => {
    const parent = tmp();
    writeFileSync(join(parent, 'file'), '');
    const err = await expectError(VidpubError, () => openConfigStore({ VIDPUB_CONFIG_DIR: join(parent, 'file', 'sub') }, { writable: true }));
    expect(err).toBeInstanceOf(VidpubError);
    expect(err.message).toMatch(/^Cannot read the config file .*file\/sub\/config.json \(ENOTDIR\)/);
  });

  test('an existing default directory that is too open is tightened to 0700', async () => {
    const xdg = tmp();
    const dir = join(xdg, 'vidpub');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const store = await openConfigStore({ XDG_CONFIG_HOME: xdg }, { writable: true });
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(mode(dir)).toBe(0o700);
  });
});

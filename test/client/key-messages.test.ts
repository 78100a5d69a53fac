/**
 * Messages about keys tell the truth and never show one: a key with a space,
 * a non-ASCII or a control character inside gets its own sentence (exit 3,
 * before any request), and a service error that echoes the key is redacted.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { errorFromResponse, keyCharacterError, redactSecrets } from '../../src/api/send/http-errors.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

describe('vidpub login: what is wrong with the characters of the key, in its own sentence', () => {
  const cases: [string, string, RegExp][] = [
    ['a space inside', 'vp_live_demo_rw_AB CDEFGH', /Error: The key on stdin has a space or line break inside it \(character 19 of 25\): a key is one unbroken word/],
    ['a line break inside', 'vp_live_demo_rw_ABCD\nEFGH', /Error: The key on stdin has a space or line break inside it \(character 21 of 25\)/],
    ['a non-breaking space inside', 'vp_live_demo\u00a0rw_ABCDEFGH', /Error: The key on stdin has a space or line break inside it \(character 13 of 24\)/],
    ['a curly quote', '\u201cvp_live_demo_rw_ABCDEFGH\u201d', /Error: The key on stdin has a character that is not plain ASCII \(character 1 of 26\), often a curly quote/],
    ['an accented letter', 'vp_live_démo_rw_ABCDEFGH', /Error: The key on stdin has a character that is not plain ASCII \(character 10 of 24\)/],
    ['a control character', 'vp_live_demo\u0007rw_ABCDEFGH', /Error: The key on stdin has a control character \(character 13 of 24\)/],
  ];
  for (const [name, key, message] of cases) {
    test(`${name}: exit 3, no request, nothing stored, the key not echoed`, async () => {
      const dir = tempConfigDir();
      const r = await runCli(['login', '--with-key'], { stdin: key + '\n', env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir } });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toContain('ABCD');
      expect(r.stdout).toBe('');
      expect(await emu.requests()).toEqual([]);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });
  }

  test('from --api-key-file the sentence names the file', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'key.txt');
    writeFileSync(file, 'vp_live_demo rw_ABCDEFGH\n');
    const r = await runCli(['login', '--api-key-file', file, '--no-input'], { env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`Error: The key in ${file} has a space or line break inside it (character 13 of 24)`);
    expect(await emu.requests()).toEqual([]);
  });

  test('a clean key is not refused by the check', () => {
    expect(keyCharacterError(emu.key(), 'the key')).toBeUndefined();
  });
});

describe('a service error that echoes the key', () => {
  test('vidpub me: the 401 message quoting the key shows it masked (prefix and last 4), exit 3', async () => {
    const key = emu.key();
    await emu.fault({
      method: 'GET', path: '/v1/me', action: 'status', status: 401, content_type: 'application/json',
      body: JSON.stringify({ error: { type: 'authentication_error', code: 'invalid_key', message: `The key ${key} is not valid (Authorization: Bearer ${key}).` } }),
    });
    const r = await runCli(['me'], { env: emu.env() });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).not.toContain(key.slice(8, -4));
    expect(r.stderr).toContain(`The key vp_live_…${key.slice(-4)} is not valid`);
  });

  test('vidpub me --json: the error record carries no key either', async () => {
    const key = emu.key();
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 400, content_type: 'text/plain', body: `bad request from key=${key}` });
    const r = await runCli(['me', '--json'], { env: emu.env() });
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).not.toContain(key);
    expect(r.stderr).toContain(`key=vp_live_…${key.slice(-4)}`);
  });

  test('redactSecrets: the given secret anywhere, key-shaped text, Bearer tokens', () => {
    expect(redactSecrets('got abc_live_SECRET123456 here', [])).toBe('got abc_live_…3456 here');
    expect(redactSecrets('{"k":"custom-secret-value"}', ['custom-secret-value'])).toBe('{"k":"[redacted key]"}');
    expect(redactSecrets('Authorization: Bearer sometoken12345', [])).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('a post_live_ish word', [])).toBe('a post_live_ish word');
    const err = errorFromResponse({
      status: 400, method: 'POST', url: 'https://api.example/v1/posts', headers: { 'content-type': 'application/json' },
      bodyText: JSON.stringify({ error: { type: 'invalid_request', code: 'invalid_field', message: 'bad thing for zz_live_abcdefgh9876', param: 'caption' } }),
    });
    expect(err.message).toBe('The service refused the request (caption): bad thing for zz_live_…9876 (HTTP 400 invalid_field)');
    expect(JSON.stringify(err.http?.body)).not.toContain('abcdefgh');
  });
});


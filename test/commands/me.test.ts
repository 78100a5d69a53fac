import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { runCli, tempConfigDir } from '../support/cli.js';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { manualClock } from '../support/clock.js';
import { localTime } from '../../src/cli/commands/me.js';
import { describeRelative } from '../../src/time/describe.js';

const emu = useEmulator();

async function closedPortUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}/v1`;
}

describe('vidpub me', () => {
  test('pipe: stable key/value lines: masked key, workspace, plan, usage, both limits with used, remaining, reset', async () => {
    const r = await runCli(['me'], { env: emu.env() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(['Key', 'Key from', 'Service', 'Emulator', 'Workspace', 'Plan', 'Usage', 'Reads/min', 'Writes/min', 'Posts/day']);
    expect(r.stdout).toMatch(/^Key\tvp_live_…s3Td \(read_write\) "Demo read\/write"$/m);
    expect(r.stdout).toMatch(/^Workspace\tDemo \(ws_demo\)$/m);
    expect(r.stdout).toMatch(/^Plan\tstandard$/m);
    expect(r.stdout).toMatch(/^Usage\t0 posts today, 2 videos, 0 posts$/m);
    expect(r.stdout).toMatch(/^Reads\/min\t1 used of 60, 59 left, resets .+$/m);
    expect(r.stdout).toMatch(/^Writes\/min\t0 used of 20, 20 left, resets .+$/m);
    expect(r.stdout).toMatch(/^Posts\/day\t0 used of 30, 30 left, resets .+ \(shared by every workspace of the account\)$/m);
    expect(r.stdout).not.toContain(emu.key());
    expect(r.stderr).toBe('');
  });

  test('the resets are shown in the one form of a time for a person, whatever the locale: day, time, zone, how far', async () => {
    for (const env of [{ LANG: 'C.UTF-8' }, { LC_TIME: 'de_DE.UTF-8' }, { TZ: 'UTC' }]) {
      // A fresh minute of the emulator's clock, and vidpub's now standing at the emulator's before the command: the
      // minute's reset is then 1 to 59 s ahead of it however long the request takes. (On real time, a look at the end
      // of a minute, the minute over by the time the answer was shown, rightly said "now": seen once in a run of test/commands.)
      await emu.api.freshMinute();
      const clock = manualClock(await emu.api.clockNow());
      const r = await runCli(['me'], { env: { ...emu.env(), LC_ALL: '', ...env }, clock });
      expect(r.stdout).toMatch(/^Reads\/min\t\d+ used of 60, \d+ left, resets (today|tomorrow) \d\d:\d\d(:\d\d)? (UTC|GMT[+-]\d+(:\d\d)?), in \d+ s$/m);
      expect(r.stdout).toMatch(/^Posts\/day\t0 used of 30, 30 left, resets (today|tomorrow) \d\d:\d\d (UTC|GMT[+-]\d+(:\d\d)?), in (\d+ h( \d+ m)?|\d+ m( \d+ s)?|\d+ s) \(shared by every workspace of the account\)$/m);
      expect(r.stdout).not.toMatch(/ (AM|PM)\b/);
    }
  });

  test('a terminal: aligned fields (colour off with NO_COLOR)', async () => {
    const r = await runCli(['me'], { env: { ...emu.env(), NO_COLOR: '1' }, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Key: {8}vp_live_…s3Td/m);
    expect(r.stdout).toMatch(/^Writes\/min: 0 used of 20/m);
    expect(r.stdout).not.toContain('\u001b[');
  });

  test('FORCE_COLOR colours a pipe; --no-color wins over it', async () => {
    const forced = await runCli(['me'], { env: { ...emu.env(), FORCE_COLOR: '1' }, tty: { stdout: true } });
    expect(forced.stdout).toContain('\u001b[2m');
    const off = await runCli(['me', '--no-color'], { env: { ...emu.env(), FORCE_COLOR: '1' }, tty: { stdout: true } });
    expect(off.stdout).not.toContain('\u001b[');
  });

  test('--json: the /me record', async () => {
    const r = await runCli(['me', '--json'], { env: emu.env() });
    expect(r.code).toBe(0);
    const me = JSON.parse(r.stdout);
    expect(me).toMatchObject({
      key: { access: 'read_write', prefix: 'vp_live_', last4: 's3Td' },
      workspace: { id: 'ws_demo', name: 'Demo' },
      plan: { name: 'standard' },
      usage: { posts_today: 0 },
      limits: { requests_per_minute: { read: { limit: 60 }, write: { limit: 20 } }, api_posts_per_day: { limit: 30, scope: 'account' } },
    });
  });

  test('no key anywhere: exit 3 with the hint (vidpub login, or VIDPUB_API_KEY), before any request', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^Error: No API key: none was given and none is stored\.$/m);
    expect(r.stderr).toMatch(/Run "vidpub login" to store one, or set VIDPUB_API_KEY/);
    expect(await emu.requests()).toEqual([]);
  });

  test('no key in the profile in use: the hint names the stored profiles that hold one, as logout does (the built bin)', async () => {
    ensureBuilt();
    const dir = tempConfigDir();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ profiles: { ci: { api_key: emu.key(), base_url: emu.baseUrl }, kc: { key_storage: 'keychain', key_masked: 'vp_live_…s3Td' }, bare: { base_url: emu.baseUrl } } }),
      { mode: 0o600 },
    );
    const env = { PATH: process.env.PATH ?? '', VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_NO_KEYRING: '1' };
    const r = await runAsync(process.execPath, [BIN, 'me'], { env });
    expect(r.status).toBe(3);
    expect(r.stderr).toBe(
      'Error: No API key: none was given and none is stored.\n' +
        'Run "vidpub login" to store one, or set VIDPUB_API_KEY (or pass --api-key-file PATH). Profiles "ci", "kc" hold keys: choose one with --profile NAME.\n',
    );
    const one = await runAsync(process.execPath, [BIN, 'me', '--profile', 'bare'], { env });
    expect(one.status).toBe(3);
    expect(one.stderr).toContain('Profiles "ci", "kc" hold keys: choose one with --profile NAME.');
    const alone = await runAsync(process.execPath, [BIN, 'me', '--profile', 'ci'], { env: { ...env, VIDPUB_CONFIG_DIR: tempConfigDir() } });
    expect(alone.stderr).toBe('Error: No API key: none was given and none is stored in profile "ci".\nRun "vidpub login --profile ci" to store one, or set VIDPUB_API_KEY (or pass --api-key-file PATH).\n');
  });

  test('no key in a named profile: the message names it', async () => {
    const r = await runCli(['me', '--profile', 'ci'], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/none is stored in profile "ci"/);
  });

  test('an invalid or revoked key: exit 3', async () => {
    const bad = await runCli(['me'], { env: { ...emu.env(), VIDPUB_API_KEY: 'vp_live_nobody_0000' } });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/Error: The API key was refused: .*\(HTTP 401 invalid_key\)/);
    const revoked = await runCli(['me'], { env: { ...emu.env(), VIDPUB_API_KEY: 'vp_live_demo_revoked_X2v6Bn4Ts8Hj' } });
    expect(revoked.code).toBe(3);
    expect(revoked.stderr).toMatch(/\(HTTP 401 revoked_key\)/);
  });

  test('a Free-plan key: exit 3 naming the plan', async () => {
    const r = await runCli(['me'], { env: { ...emu.env(), VIDPUB_API_KEY: 'vp_live_free_rw_Z5c1Rm7Ue3Kp8Dw4' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Error: The workspace is on the Free plan, which has no API access \(HTTP 403 plan_without_api_access\)\.\n/);
    // said once, not twice in other words
    expect(r.stderr).not.toMatch(/The Free plan has no API access/);
  });

  test('--api-key-file wins over VIDPUB_API_KEY, which wins over the profile', async () => {
    const dir = tempConfigDir();
    const login = await runCli(['login', '--with-key'], { stdin: emu.key('Demo Second'), env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl } });
    expect(login.code).toBe(0);
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, emu.key('Studio') + '\n');
    const ws = async (argv: string[], env: Record<string, string>) =>
      JSON.parse((await runCli(['me', '--json', ...argv], { env: { VIDPUB_CONFIG_DIR: dir, ...env } })).stdout).workspace.name;
    expect(await ws([], {})).toBe('Demo Second');
    expect(await ws([], { VIDPUB_API_KEY: emu.key() })).toBe('Demo');
    expect(await ws(['--api-key-file', keyFile], { VIDPUB_API_KEY: emu.key() })).toBe('Studio');
  });

  test('--api-key-file that is missing or empty: exit 2 naming the file', async () => {
    const dir = tempConfigDir();
    const missing = await runCli(['me', '--api-key-file', join(dir, 'nope.txt')], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Error: the API key file .*nope\.txt: no such file/);
    writeFileSync(join(dir, 'empty.txt'), '\n');
    const empty = await runCli(['me', '--api-key-file', join(dir, 'empty.txt')], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/Error: the API key file .*empty\.txt is empty/);
  });

  test('a key with a space or control character in it: its own sentence, exit 3, without echoing it or sending it', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_API_KEY: 'vp_live_ab cd\u0007ef' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/The API key from VIDPUB_API_KEY has a space or line break inside it \(character 11 of 16\)/);
    expect(r.stderr).not.toContain('ab cd');
    expect(await emu.requests()).toEqual([]);
  });

  test('a key with a non-ASCII character (a curly quote from a document): its own sentence, exit 3', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_API_KEY: 'vp_live_abc\u2019def' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/The API key from VIDPUB_API_KEY has a character that is not plain ASCII \(character 12 of 15\)/);
  });

  test('--base-url wins over VIDPUB_BASE_URL, which wins over the profile', async () => {
    const dead = await closedPortUrl();
    const viaFlag = await runCli(['me', '--json', '--base-url', emu.baseUrl], { env: { VIDPUB_API_KEY: emu.key(), VIDPUB_BASE_URL: dead } });
    expect(viaFlag.code).toBe(0);
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { api_key: emu.key(), base_url: dead } } }));
    const viaEnv = await runCli(['me', '--json'], { env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl } });
    expect(viaEnv.code).toBe(0);
  });

  test('--workspace / VIDPUB_WORKSPACE do not block reads (they guard writes)', async () => {
    const r = await runCli(['me', '--json', '--workspace', 'Studio'], { env: emu.env() });
    expect(r.code).toBe(0);
    const r2 = await runCli(['me', '--json'], { env: { ...emu.env(), VIDPUB_WORKSPACE: 'Studio' } });
    expect(r2.code).toBe(0);
  });

  test('the emulator is told by the Server header of GET /me: no second request, wherever it runs', async () => {
    const raw = await emu.api.get('/me');
    expect(raw.headers.server).toBe('vidpub-emulator');
    const r = await runCli(['me'], { env: emu.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Emulator\tyes$/m);
  });

  /**
   * A service on this machine answering GET /v1/me with the emulator's record and `server`
   * (or no Server header), and GET /_emulator as an emulator does; counts what it was asked.
   */
  async function lookalike(server: string | undefined): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
    const record = (await emu.api.get('/me')).body;
    const asked: string[] = [];
    const s = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      const body = req.url === '/_emulator' ? { controls: [] } : record;
      res.writeHead(200, { 'content-type': 'application/json', ...(server !== undefined ? { server } : {}) });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
    return { url, asked, close: () => new Promise((r) => s.close(() => r())) };
  }

  test('a Server header that names another server: not the emulator, and /_emulator is not asked', async () => {
    const svc = await lookalike('nginx');
    try {
      const r = await runCli(['me'], { env: { VIDPUB_API_KEY: emu.key(), VIDPUB_BASE_URL: svc.url } });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Emulator\tno$/m);
      expect(svc.asked).toEqual(['GET /v1/me']);
    } finally {
      await svc.close();
    }
  });

  test('no Server header from a service on this machine (an earlier emulator): GET /_emulator decides', async () => {
    const svc = await lookalike(undefined);
    try {
      const r = await runCli(['me'], { env: { VIDPUB_API_KEY: emu.key(), VIDPUB_BASE_URL: svc.url } });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Emulator\tyes$/m);
      expect(svc.asked).toEqual(['GET /v1/me', 'GET /_emulator']);
    } finally {
      await svc.close();
    }
  });

  test('an invalid --max-wait: exit 2 before any request', async () => {
    const r = await runCli(['me', '--max-wait', 'soon'], { env: emu.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid --max-wait "soon"/);
    expect(await emu.requests()).toEqual([]);
  });
});

describe('localTime (the one form, by hand, without Intl)', () => {
  const base = new Date(2026, 10, 21, 0, 0, 7).getTime();
  test('the form every other time a person reads has (describeRelative), with the zone named by its offset', () => {
    // In UTC the zone's short name and its offset name agree: the two forms are one.
    const inUtc = Date.UTC(2026, 10, 21, 23, 1, 0);
    const nowUtc = Date.UTC(2026, 10, 21, 22, 0, 0);
    const offset = -new Date(inUtc).getTimezoneOffset();
    if (offset === 0) expect(localTime(new Date(inUtc).toISOString(), nowUtc)).toBe(describeRelative(inUtc, 'UTC', nowUtc).replace(/ \(\S+Z\)$/, ''));
    const late = new Date(2026, 10, 21, 23, 1, 0).getTime();
    expect(localTime(new Date(late).toISOString(), base)).toMatch(/^today 23:01 (UTC|GMT[+-]\d+(:\d\d)?), in 23 h 1 m$/);
    expect(localTime(new Date(2026, 10, 22, 0, 0, 0).toISOString(), base)).toMatch(/^tomorrow 00:00 \S+, in 1 d$/);
    expect(localTime(new Date(2026, 10, 24, 9, 30, 5).toISOString(), base)).toMatch(/^Tue 09:30:05 \S+, in 3 d 9 h$/);
    expect(localTime(new Date(2026, 11, 25, 0, 0, 0).toISOString(), base)).toMatch(/^2026-12-25 00:00 \S+, in 34 d$/);
  });
  test('a POSIX TZ (which Node reads as UTC when it has rules) is worked out by hand and named as it names itself', () => {
    const now = Date.UTC(2027, 6, 14, 20, 0, 0);
    expect(localTime('2027-07-15T00:00:00Z', now, 'CET-1CEST,M3.5.0,M10.5.0/3')).toBe('tomorrow 02:00 CEST, in 4 h');
    expect(localTime('2027-01-15T00:00:00Z', Date.UTC(2027, 0, 14, 20, 0, 0), 'CET-1CEST,M3.5.0,M10.5.0/3')).toBe('tomorrow 01:00 CET, in 4 h');
    expect(localTime('2027-07-15T00:00:00Z', now, '<+0530>-5:30')).toBe('today 05:30 +0530, in 4 h');
  });
  test('nonsense or nothing: unknown', () => {
    expect(localTime('not a time', base)).toBe('unknown');
    expect(localTime(undefined, base)).toBe('unknown');
  });
});

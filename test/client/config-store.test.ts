import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STALE_MS } from '../../src/util/file-lock.js';
import { configDir, configFile, openConfigStore } from '../../src/config/config-store.js';
import { VidpubError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'vidpub-store-'));
const mode = (p: string) => statSync(p).mode & 0o777;


describe('config location', () => {
  test('VIDPUB_CONFIG_DIR, then XDG_CONFIG_HOME/vidpub, then ~/.config/vidpub', () => {
    expect(configDir({ VIDPUB_CONFIG_DIR: '/a/b', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/a/b');
    expect(configDir({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/vidpub');
    // a relative XDG path is invalid (the XDG spec) and ignored: the keys never land in the current directory
    expect(configDir({ XDG_CONFIG_HOME: './conf', HOME: '/h' })).toBe('/h/.config/vidpub');
    expect(configDir({ HOME: '/h' })).toBe('/h/.config/vidpub');
  });

  test("a relative VIDPUB_CONFIG_DIR is read against the command's working directory, never the process's", async () => {
    expect(configFile({ VIDPUB_CONFIG_DIR: '.vidpub' }, '/p/q')).toEqual({ spelled: '.vidpub/config.json', path: '/p/q/.vidpub/config.json' });
    expect(configFile({ VIDPUB_CONFIG_DIR: '/a/b' }, '/p/q')).toEqual({ spelled: '/a/b/config.json', path: '/a/b/config.json' });
    // Opened for a command run in `project` (not this process's directory): the file lands there, named as spelled.
    const project = tmp();
    expect(project).not.toBe(process.cwd());
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: '.vidpub' }, project, { writable: true });
    await store.setProfile('default', { api_key: 'vp_live_a' });
    expect(store.path).toBe('.vidpub/config.json');
    expect(store.location()).toBe(join(realpathSync(project), '.vidpub', 'config.json'));
    expect(JSON.parse(readFileSync(join(project, '.vidpub', 'config.json'), 'utf8')).profiles.default).toEqual({ api_key: 'vp_live_a' });
    expect(existsSync(join(process.cwd(), '.vidpub'))).toBe(false);
    expect((await openConfigStore({ VIDPUB_CONFIG_DIR: '.vidpub' }, project)).getProfile('default')).toEqual({ api_key: 'vp_live_a' });
  });
});

describe('config store', () => {
  test('writes profiles whole to config.json, mode 0600 in a directory created 0700', async () => {
    const dir = join(tmp(), 'nested', 'vidpub');
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    await store.setProfile('default', { api_key: 'vp_live_a', base_url: 'https://x.example/v1' });
    await store.setProfile('ci', { api_key: 'vp_live_b', workspace: '' });
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(mode(store.path)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      profiles: { default: { api_key: 'vp_live_a', base_url: 'https://x.example/v1' }, ci: { api_key: 'vp_live_b' } },
    });
    const read = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd());
    expect(read.listProfiles()).toEqual(['ci', 'default']);
    expect(read.getProfile('ci')).toEqual({ api_key: 'vp_live_b' });
    expect(read.getProfile('nope')).toBeUndefined();
  });

  test('profile names with dots are one key, not a path', async () => {
    const dir = tmp();
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    await store.setProfile('a.b', { api_key: 'vp_live_x' });
    expect(JSON.parse(readFileSync(store.path, 'utf8')).profiles['a.b']).toEqual({ api_key: 'vp_live_x' });
  });

  test('a world-readable existing file becomes 0600 on the next write; other top-level keys are kept', async () => {
    const dir = tmp();
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ other: 1, profiles: {} }));
    chmodSync(path, 0o644);
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    await store.setProfile('default', { api_key: 'vp_live_x' });
    expect(mode(path)).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8')).other).toBe(1);
  });

  test('deleteProfile says whether there was one', async () => {
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: tmp() }, process.cwd(), { writable: true });
    await store.setProfile('x', { api_key: 'vp_live_x' });
    expect(await store.deleteProfile('x')).toBe(true);
    expect(await store.deleteProfile('x')).toBe(false);
    expect(store.getProfile('x')).toBeUndefined();
  });

  test('a store opened read-only refuses to write', async () => {
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: tmp() }, process.cwd());
    await expect(store.setProfile('x', {})).rejects.toThrow(/read-only/);
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
        const err = await expectError(VidpubError, () => openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable }));
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
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    await store.setProfile('default', { api_key: 'vp_live_x' });
    writeFileSync(store.path, '{"profiles":');
    await expect(store.setProfile('default', { api_key: 'vp_live_y' })).rejects.toThrow(/is not valid JSON/);
    expect(readFileSync(store.path, 'utf8')).toBe('{"profiles":');
  });

  test('a config path that cannot be read (a file where the directory should be): an error naming it', async () => {
    const parent = tmp();
    writeFileSync(join(parent, 'file'), '');
    const err = await expectError(VidpubError, () => openConfigStore({ VIDPUB_CONFIG_DIR: join(parent, 'file', 'sub') }, process.cwd(), { writable: true }));
    expect(err).toBeInstanceOf(VidpubError);
    expect(err.message).toMatch(/^The config file .*file\/sub\/config.json: no such file \(a part of the path is not a directory\)/);
  });

  test('an existing default directory that is too open is tightened to 0700', async () => {
    const xdg = tmp();
    const dir = join(xdg, 'vidpub');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const store = await openConfigStore({ XDG_CONFIG_HOME: xdg }, process.cwd(), { writable: true });
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(mode(dir)).toBe(0o700);
  });
});


describe('config store: read-only file, byte order mark, symlink', () => {
  test('a UTF-8 byte order mark is accepted, and the next write keeps the profiles', async () => {
    const dir = tmp();
    const path = join(dir, 'config.json');
    writeFileSync(path, '\uFEFF' + JSON.stringify({ profiles: { default: { api_key: 'vp_live_bom' } } }));
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    expect(store.getProfile('default')).toEqual({ api_key: 'vp_live_bom' });
    await store.setProfile('ci', { api_key: 'vp_live_ci' });
    expect(JSON.parse(readFileSync(path, 'utf8')).profiles).toEqual({ default: { api_key: 'vp_live_bom' }, ci: { api_key: 'vp_live_ci' } });
  });

  test('a read-only config.json (chmod 444) is refused when opened for writing, naming the file and what to do, and left as it was', async () => {
    const dir = tmp();
    const path = join(dir, 'config.json');
    const content = JSON.stringify({ profiles: { default: { api_key: 'vp_live_keep' } } });
    writeFileSync(path, content);
    chmodSync(path, 0o444);
    // Reading still works.
    expect((await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd())).getProfile('default')).toEqual({ api_key: 'vp_live_keep' });
    const err = await expectError(VidpubError, () => openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true }));
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe(`The config file ${path} is read-only (mode 444); vidpub does not replace it, so nothing was stored.`);
    expect(err.hint).toContain(`chmod 600 ${path}`);
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(mode(path)).toBe(0o444);
  });

  test('a file made read-only after opening is not replaced by the write', async () => {
    const dir = tmp();
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    await store.setProfile('default', { api_key: 'vp_live_x' });
    chmodSync(store.path, 0o400);
    await expect(store.setProfile('ci', { api_key: 'vp_live_y' })).rejects.toThrow(/is read-only \(mode 400\)/);
    expect(JSON.parse(readFileSync(store.path, 'utf8')).profiles).toEqual({ default: { api_key: 'vp_live_x' } });
  });

  test('a config.json that is a symlink: the file it points to is updated, the link stays', async () => {
    const dir = tmp();
    const real = join(tmp(), 'real-config.json');
    writeFileSync(real, JSON.stringify({ profiles: {} }));
    symlinkSync(real, join(dir, 'config.json'));
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    await store.setProfile('default', { api_key: 'vp_live_x' });
    expect(statSync(join(dir, 'config.json'), { throwIfNoEntry: true }).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8')).profiles).toEqual({ default: { api_key: 'vp_live_x' } });
    expect(mode(real)).toBe(0o600);
  });

  test('a write leaves no temporary or lock file behind', async () => {
    const dir = tmp();
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true });
    await store.setProfile('a', { api_key: 'vp_live_a' });
    await store.deleteProfile('a');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('config store: the lock', () => {
  const lockInfo = (pid: number) => JSON.stringify({ pid, host: hostname(), at: Date.now() });

  test('a lock held by a live process: the write waits, then gives up naming the lock file; config.json is untouched', async () => {
    const dir = tmp();
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true, lockWaitMs: 150 });
    await store.setProfile('default', { api_key: 'vp_live_x' });
    const before = readFileSync(store.path, 'utf8');
    // Held by the parent of this test process (alive for the whole test).
    writeFileSync(`${store.path}.lock`, lockInfo(process.ppid));
    let err: unknown;
    try {
      await store.setProfile('ci', { api_key: 'vp_live_y' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(VidpubError);
    expect((err as VidpubError).message).toBe(`The config file ${store.path} is locked by process ${process.ppid} (another vidpub login or logout); nothing was stored.`);
    expect((err as VidpubError).hint).toContain(`remove ${store.path}.lock`);
    expect(readFileSync(store.path, 'utf8')).toBe(before);
  });

  test('a lock left by a process that has exited is taken over', async () => {
    const dir = tmp();
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true, lockWaitMs: 150 });
    writeFileSync(`${store.path}.lock`, lockInfo(dead));
    await store.setProfile('default', { api_key: 'vp_live_x' });
    expect(JSON.parse(readFileSync(store.path, 'utf8')).profiles).toEqual({ default: { api_key: 'vp_live_x' } });
    expect(existsSync(`${store.path}.lock`)).toBe(false);
  });

  test('a lock older than the stale limit is taken over even if its process is alive; an unreadable lock is judged by age', async () => {
    const dir = tmp();
    const store = await openConfigStore({ VIDPUB_CONFIG_DIR: dir }, process.cwd(), { writable: true, lockWaitMs: 150 });
    for (const content of [lockInfo(process.ppid), 'not json']) {
      writeFileSync(`${store.path}.lock`, content);
      const old = (Date.now() - STALE_MS - 5_000) / 1000;
      utimesSync(`${store.path}.lock`, old, old);
      await store.setProfile(String(content.length), { api_key: 'vp_live_x' });
    }
    expect(store.listProfiles()).toEqual(['8', String(lockInfo(process.ppid).length)].sort());
    expect(existsSync(`${store.path}.lock`)).toBe(false);
  });
});

/**
 * An HTTP front for the emulator that holds the next `count` requests and lets them all through
 * at once when the last one comes: logins that each check their key first then leave that check
 * at the same instant and meet at the file's lock together, however slowly each process started.
 */
async function startBarrier(target: string): Promise<{ baseUrl: string; arm(count: number): void; close(): Promise<void> }> {
  const upstream = new URL(target);
  let held: (() => void)[] = [];
  let count = 0;
  const server = createServer((req, res) => {
    const pass = () => {
      const up = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (held.length + 1 < count) held.push(pass);
    else {
      for (const h of [...held, pass]) h();
      held = [];
      count = 0;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    arm: (n) => {
      held = [];
      count = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('concurrent logins (separate processes: the built CLI and this one, against the emulator)', () => {
  const emu = useEmulator();
  let barrier: Awaited<ReturnType<typeof startBarrier>>;
  beforeAll(async () => {
    ensureBuilt();
    barrier = await startBarrier(emu.baseUrl);
  });
  afterAll(() => barrier?.close());

  /**
   * `children` logins of the built bin and `inProcess` logins in this process, for profiles p0,
   * p1..., all released at once from their key check by the barrier. The lock is on a file, so
   * what races is OS processes: two children and this process make three, the fewest where one
   * writer must keep what two others wrote; the barrier makes every trial a real meeting at the
   * lock (without it, processes started "at the same instant" mostly ran one after the other on
   * a busy machine, and it took 20 trials of 4 processes to meet often), and the logins in this
   * process add contenders without a process start each.
   */
  async function logins(dir: string, children: number, inProcess: number): Promise<{ status: number | null; stderr: string }[]> {
    // The file's lock is under test: the keys go to the file (and never to a desktop's keychain).
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: barrier.baseUrl, VIDPUB_API_KEY: '', VIDPUB_NO_KEYRING: '1', NO_COLOR: '1' };
    const argv = (i: number) => ['login', '--with-key', '--profile', `p${i}`, '--json'];
    barrier.arm(children + inProcess);
    return Promise.all([
      ...Array.from({ length: children }, (_, i) => runAsync(process.execPath, [BIN, ...argv(i)], { env: { ...process.env, ...env }, input: emu.key() + '\n' })),
      ...Array.from({ length: inProcess }, async (_, i) => {
        const r = await runCli(argv(children + i), { env, stdin: emu.key() + '\n' });
        return { status: r.code, stderr: r.stderr };
      }),
    ]);
  }

  const TRIALS = 3;
  const CHILDREN = 2;
  const IN_PROCESS = 2;
  const AT_ONCE = CHILDREN + IN_PROCESS;

  test(`${TRIALS} trials of ${AT_ONCE} logins for different profiles (${CHILDREN} built-bin processes and ${IN_PROCESS} in this one) meeting at the lock at once keep every profile`, async () => {
    const lost: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      await emu.reset(); // the per-minute request limit of the key
      const dir = tmp();
      // An existing profile, which every login must keep as well.
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { existing: { api_key: 'vp_live_existing' } } }));
      chmodSync(join(dir, 'config.json'), 0o600);
      const runs = await logins(dir, CHILDREN, IN_PROCESS);
      for (const r of runs) expect(r.stderr).toBe('');
      expect(runs.map((r) => r.status)).toEqual(Array(AT_ONCE).fill(0));
      const profiles = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles as Record<string, { api_key: string }>;
      const names = Object.keys(profiles).sort();
      const expected = ['existing', ...Array.from({ length: AT_ONCE }, (_, i) => `p${i}`)];
      if (names.join() !== expected.join()) lost.push(`trial ${trial}: ${names.join(',')}`);
      for (const [name, p] of Object.entries(profiles)) expect(p.api_key).toBe(name === 'existing' ? 'vp_live_existing' : emu.key());
      expect(mode(join(dir, 'config.json'))).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['config.json']);
    }
    expect(lost).toEqual([]);
  }, 120_000);

  // Three processes met a stale lock when a live lock was lost (src/util/file-lock.ts): three built-bin
  // processes here, and a login in this one.
  test('a stale lock (its process has exited) met by 4 logins at once (3 built-bin processes and this one): one takes it over, all profiles are kept', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    for (let trial = 0; trial < 2; trial++) {
      await emu.reset();
      const dir = tmp();
      writeFileSync(join(dir, 'config.json.lock'), JSON.stringify({ pid: dead, host: hostname(), at: Date.now() }));
      const runs = await logins(dir, 3, 1);
      expect(runs.map((r) => [r.status, r.stderr])).toEqual(Array(4).fill([0, '']));
      expect(Object.keys(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles).sort()).toEqual(['p0', 'p1', 'p2', 'p3']);
      expect(readdirSync(dir)).toEqual(['config.json']);
    }
  }, 60_000);

  test('vidpub login with a read-only config.json: exit 1, the message names the file and the fix, before the key is read', async () => {
    await emu.reset();
    const dir = tmp();
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ profiles: { default: { api_key: 'vp_live_keep' } } }));
    chmodSync(path, 0o444);
    const r = await runCli(['login', '--with-key', '--profile', 'ci'], { stdin: emu.key() + '\n', env: { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`The config file ${path} is read-only (mode 444); vidpub does not replace it, so nothing was stored.`);
    expect(r.stderr).toContain(`chmod 600 ${path}`);
    expect(JSON.parse(readFileSync(path, 'utf8')).profiles).toEqual({ default: { api_key: 'vp_live_keep' } });
    expect((await emu.requests()).length).toBe(0);
  });
});

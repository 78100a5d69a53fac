/**
 * The single executable (scripts/build-sea.mjs), built once for this file into a temp dir (a
 * concurrent `npm run build` replaces dist/ whole), run with a PATH that holds no node: its own
 * emulator, login, me, post, status, mcp and the demo, and the exit codes of failures.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, runAsync, type Ran } from '../support/build.js';

const dir = mkdtempSync(join(tmpdir(), 'vidpub-sea-'));
const exe = join(dir, `vidpub-linux-${process.arch}`);
const home = join(dir, 'home');
const work = join(dir, 'work');
/** A PATH with no node in it: an empty directory. */
const noNodePath = join(dir, 'empty-bin');
const env = { HOME: home, PATH: noNodePath, NO_COLOR: '1' };
let emulator: ChildProcess | undefined;
let baseUrl = '';
let key = '';

const vidpub = (args: string[], input?: string): Promise<Ran> => runAsync(exe, args, { env, cwd: work, input });

beforeAll(async () => {
  for (const d of [home, work, noNodePath]) mkdirSync(d, { recursive: true });
  copyFileSync(join(ROOT, 'test', 'fixtures', 'clip.mp4'), join(work, 'clip.mp4'));
  // From the dist/ the run builds once (ensureBuilt), not a second build of it.
  ensureBuilt();
  execFileSync(process.execPath, ['scripts/build-sea.mjs', '--out', dir, '--no-build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  emulator = spawn(exe, ['emulator', '--port', '0', '--json', '--processing-ms', '50', '--publish-ms', '50'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const info = await new Promise<{ base_url: string; keys: { key: string; workspace: string; access: string }[] }>((resolve, reject) => {
    let out = '';
    emulator!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
    });
    emulator!.on('exit', (code) => reject(new Error(`the executable's emulator exited ${code}`)));
  });
  baseUrl = info.base_url;
  key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write')!.key;
  // A build (bundling, the blob, a copy of node): seconds on a quiet machine, minutes on a loaded one.
}, 300_000);
afterAll(async () => {
  // The emulator gone before its home goes: stopped by a signal, it still writes its code cache.
  if (emulator && emulator.exitCode === null && emulator.signalCode === null) {
    const exited = new Promise((resolve) => emulator!.once('exit', resolve));
    emulator.kill();
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the single executable, with no node on PATH', () => {
  it('has no node to fall back on', async () => {
    expect(existsSync(join(noNodePath, 'node'))).toBe(false);
    const r = await vidpub(['--version']);
    expect(r).toMatchObject({ status: 0, stdout: `${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n` });
  });

  it('logs in, and says so when the key is refused (exit 3)', async () => {
    const bad = await vidpub(['login', '--base-url', baseUrl, '--with-key'], 'vp_live_nope_0000000000000000');
    expect(bad.status).toBe(3);
    expect(bad.stderr).toMatch(/^Error: .*key/im);
    const good = await vidpub(['login', '--base-url', baseUrl, '--with-key'], key);
    expect(good.status, good.stderr).toBe(0);
    const me = await vidpub(['me', '--json']);
    expect(me.status, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ workspace: { name: 'Demo' } });
  });

  it('posts a file and reads its status', async () => {
    const post = await vidpub(['post', 'clip.mp4', '--to', 'youtube', '--caption', 'From the executable', '--json']);
    expect(post.status, post.stderr).toBe(0);
    const record = JSON.parse(post.stdout) as { id: string; status: string };
    expect(record.status).toBe('completed');
    const status = await vidpub(['status', record.id, '--json', 'id,status']);
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({ id: record.id, status: 'completed' });
  });

  it('fails a post without --to with exit 2, and an unknown post with exit 5', async () => {
    const usage = await vidpub(['post', 'clip.mp4', '--caption', 'x']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/--to DEST/);
    const missing = await vidpub(['status', 'post_0000000000000000']);
    expect(missing.status).toBe(5);
    expect(missing.stderr).toMatch(/^Error: .*post_0000000000000000/m);
  });

  it('serves MCP over stdio', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const r = await vidpub(['mcp'], `${JSON.stringify(init)}\n`);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: 'vidpub' } } });
  });

  it('runs the demo with the sample video it carries', async () => {
    // Steps of 20 ms, not the demo's default seconds: what is checked is that it runs, from its own sample video.
    const r = await vidpub(['demo', '--processing-ms', '20', '--publish-ms', '20']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/sample video is missing/);
    expect(r.stdout + r.stderr).toMatch(/vidpub-demo\.mp4/);
  });
});

describe("the single executable's code cache", () => {
  const cacheHome = join(dir, 'xdg-cache');
  const cacheDir = join(cacheHome, 'vidpub');
  const withCache = (args: string[], extra: Record<string, string> = {}): Promise<Ran> =>
    runAsync(exe, args, { env: { ...env, XDG_CACHE_HOME: cacheHome, ...extra }, cwd: work });
  const meCache = (): string[] => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => /^sea-me\.js-\w+\.bin$/.test(f)) : []);

  beforeAll(async () => {
    const login = await vidpub(['login', '--base-url', baseUrl, '--with-key'], key);
    expect(login.status, login.stderr).toBe(0);
  });

  it('is not written by --version, which loads no bundle', async () => {
    rmSync(cacheHome, { recursive: true, force: true });
    const r = await withCache(['--version']);
    expect(r.status).toBe(0);
    expect(existsSync(cacheDir)).toBe(false);
  });

  it('is written after a first run (0600 in a 0700 directory), and a second run uses it as it is', async () => {
    rmSync(cacheHome, { recursive: true, force: true });
    const first = await withCache(['me', '--json']);
    expect(first.status, first.stderr).toBe(0);
    expect(meCache()).toHaveLength(1);
    const file = join(cacheDir, meCache()[0]!);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = statSync(file).ino;
    const second = await withCache(['me', '--json']);
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ workspace: { name: 'Demo' } });
    // V8 took the cached data: the file was not written anew (a rejected one is replaced, below).
    expect(statSync(file).ino).toBe(written);
  });

  it("ignores a corrupt cache file, rewrites it, and removes another build's", async () => {
    expect(meCache()).toHaveLength(1);
    const file = join(cacheDir, meCache()[0]!);
    writeFileSync(file, 'not V8 cached data');
    const stale = join(cacheDir, 'sea-me.js-0000000000000000.bin');
    writeFileSync(stale, 'an older build', { mode: 0o600 });
    const r = await withCache(['me', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ workspace: { name: 'Demo' } });
    expect(readFileSync(file, 'utf8')).not.toBe('not V8 cached data');
    expect(existsSync(stale)).toBe(false);
  });

  it('is neither read nor written with VIDPUB_NO_COMPILE_CACHE=1', async () => {
    rmSync(cacheHome, { recursive: true, force: true });
    const r = await withCache(['me', '--json'], { VIDPUB_NO_COMPILE_CACHE: '1' });
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(cacheDir)).toBe(false);
  });
});

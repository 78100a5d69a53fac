/**
 * The V8 code cache of the built CLI (bin/compile-cache.js): written once,
 * 0600 in a 0700 directory under the XDG cache dir; later runs restore the
 * bundle from it, dynamic imports included (undici for an upload); a damaged
 * cache is replaced; a cache that cannot be written never fails a command.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
const CLIP = join(ROOT, 'test', 'fixtures', 'clip.mp4');

beforeAll(() => ensureBuilt());

function envWith(cacheHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.VIDPUB_CACHE_DIR;
  delete env.VIDPUB_NO_COMPILE_CACHE;
  return { ...env, ...emu.env(), XDG_CACHE_HOME: cacheHome, VIDPUB_CONFIG_DIR: join(cacheHome, 'config'), VIDPUB_NO_JOURNAL: '1', ...extra };
}

/** The cache files of one bundle: main (the CLI), me (`vidpub me`) or upload (`vidpub upload`; see scripts/build.mjs). */
const cacheFiles = (dir: string, bundle: 'main' | 'me' | 'upload' = 'me') => readdirSync(dir).filter((f) => f.startsWith(`v8-${bundle}-`) && f.endsWith('.bin'));

// Each test starts the built bin several times: seconds each on a loaded machine, so more than the suite's 20 s.
// The first three follow one cache directory (one process per step, none started twice for the same proof):
// its first run writes it, the next ones are restored from it, then a damaged file is replaced.
describe('compile cache', { timeout: 120_000 }, () => {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-cc-'));
  const dir = join(home, 'vidpub');
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  test('a run that fails writes no cache: the first successful run writes it (0600 in 0700)', async () => {
    // No key anywhere yet: the command fails before any request (exit 3).
    const env = envWith(home);
    delete env.VIDPUB_API_KEY;
    const failed = await runAsync(process.execPath, [BIN, 'me', '--json'], { env });
    expect(failed.status).toBe(3);
    expect(failed.stderr).toContain('No API key');
    expect(existsSync(dir) ? cacheFiles(dir) : []).toEqual([]);
    const first = await runAsync(process.execPath, [BIN, 'me', '--json'], { env: envWith(home) });
    expect(first.status).toBe(0);
    const files = cacheFiles(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toContain(process.version);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
  });

  test('the next run, restored from it, still loads modules on demand; upload and main have caches of their own, used the same way', async () => {
    const files = cacheFiles(dir);
    expect(files).toHaveLength(1);
    const written = statSync(join(dir, files[0]!)).mtimeMs;

    // --jq imports jq-wasm on demand: from cached code that import() must work.
    const second = await runAsync(process.execPath, [BIN, 'me', '--jq', '.workspace.name'], { env: envWith(home) });
    expect(second.stderr).toBe('');
    expect(second.status).toBe(0);
    expect(second.stdout.trim()).toBe('Demo');
    // Accepted, so not written again.
    expect(statSync(join(dir, files[0]!)).mtimeMs).toBe(written);

    // `vidpub upload ...` runs from dist/upload.js and every other command line from dist/main.js
    // (here the same upload, with an option first), each with a cache of its own, used the same way.
    for (const [bundle, first] of [['upload', []], ['main', ['--quiet']]] as const) {
      const upload = () => runAsync(process.execPath, [BIN, ...first, 'upload', CLIP, '--no-wait', '--quiet'], { env: envWith(home) });
      expect((await upload()).status).toBe(0);
      const own = cacheFiles(dir, bundle);
      expect(own).toHaveLength(1);
      const ownWritten = statSync(join(dir, own[0]!)).mtimeMs;
      const again = await upload();
      expect(again.stderr).toBe('');
      expect(again.status).toBe(0);
      expect(again.stdout.trim()).toMatch(/^med_\w+$/);
      expect(statSync(join(dir, own[0]!)).mtimeMs).toBe(ownWritten);
    }
    expect(cacheFiles(dir)).toEqual(files);
  });

  test('a damaged cache file is rejected by V8 and replaced; the command is unaffected', async () => {
    const file = join(dir, cacheFiles(dir)[0]!);
    writeFileSync(file, 'not a V8 code cache');
    const r = await runAsync(process.execPath, [BIN, 'me', '--json'], { env: envWith(home) });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).workspace.name).toBe('Demo');
    expect(statSync(file).size).toBeGreaterThan(1000);
  });

  test('a cache directory that cannot be written, or VIDPUB_NO_COMPILE_CACHE=1: no cache, the command still works', async () => {
    const home = mkdtempSync(join(tmpdir(), 'vidpub-cc-'));
    const blocked = join(home, 'blocked');
    writeFileSync(blocked, 'a file where the cache directory would go');
    const r = await runAsync(process.execPath, [BIN, 'me', '--json'], { env: envWith(home, { VIDPUB_CACHE_DIR: join(blocked, 'vidpub') }) });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');

    const off = mkdtempSync(join(tmpdir(), 'vidpub-cc-'));
    mkdirSync(join(off, 'vidpub'), { mode: 0o700 });
    chmodSync(join(off, 'vidpub'), 0o700);
    const r2 = await runAsync(process.execPath, [BIN, 'me', '--json'], { env: envWith(off, { VIDPUB_NO_COMPILE_CACHE: '1' }) });
    expect(r2.status).toBe(0);
    expect(cacheFiles(join(off, 'vidpub'))).toEqual([]);
  });
});

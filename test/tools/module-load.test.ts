/**
 * The modules the built bin loads on the upload and post paths
 * (process.moduleLoadList, written at exit by test/support/dump-modules.cjs,
 * preloaded with --require). util/fs-calls.ts, and cache/key-cache.ts which
 * a post reads and writes, use node:fs's callback calls so that neither
 * `vidpub upload` nor `vidpub post` loads node:fs/promises (and Node's
 * readline interface with it). And the built-ins util/lazy-builtins.ts loads
 * on first use, with node:https and node:tls (api/net/net.ts: an http URL, no
 * proxy, no CA file), Node's ES module loader and the dependencies left in
 * node_modules stay off `vidpub me`.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
const CLIP = join(ROOT, 'test', 'fixtures', 'clip.mp4');
const DUMP = join(ROOT, 'test', 'support', 'dump-modules.cjs');

beforeAll(() => ensureBuilt());

/**
 * Runs the command twice in one fresh home (the second run finds the key
 * cache and the compile cache the first wrote); the built-in modules of each run.
 */
async function modulesOf(args: string[], stdout: RegExp): Promise<{ runs: string[][]; cacheDir: string }> {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-mods-'));
  const out = join(home, 'modules.txt');
  const env: NodeJS.ProcessEnv = { ...process.env, ...emu.env(), XDG_CACHE_HOME: join(home, 'cache'), VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_NO_JOURNAL: '1', VIDPUB_TEST_MODULES_OUT: out };
  delete env.VIDPUB_CACHE_DIR;
  delete env.VIDPUB_NO_CACHE;
  for (const name of Object.keys(env)) if (/^(https?|all|no)_proxy$/i.test(name) || /^(NODE_EXTRA_CA_CERTS|VIDPUB_CA_FILE)$/.test(name)) delete env[name];
  const runs: string[][] = [];
  for (let i = 0; i < 2; i++) {
    const run = await runAsync(process.execPath, ['--require', DUMP, BIN, ...args], { env, timeoutMs: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(stdout);
    runs.push(readFileSync(out, 'utf8').split('\n'));
  }
  return { runs, cacheDir: join(home, 'cache', 'vidpub') };
}

function expectNoFsPromises(modules: string[]): void {
  // The list is the real one: modules every such run needs are in it.
  expect(modules).toContain('NativeModule fs');
  expect(modules).toContain('NativeModule http');
  expect(modules).not.toContain('NativeModule fs/promises');
  expect(modules).not.toContain('NativeModule internal/fs/promises');
  expect(modules.filter((m) => m.includes('readline'))).toEqual([]);
}

describe('built-in modules kept off a path', () => {
  test('node:fs/promises: the upload path (`vidpub upload <file> --no-wait`)', async () => {
    const { runs } = await modulesOf(['upload', CLIP, '--no-wait', '--quiet'], /^med_\w+\s*$/);
    for (const modules of runs) {
      expectNoFsPromises(modules);
      // Without a terminal no progress library (ora, cli-progress) nor any other dependency in node_modules.
      expect(modules.filter((m) => m.startsWith('file ') && m.includes('/node_modules/'))).toEqual([]);
      expect(modules).not.toContain('NativeModule internal/modules/esm/loader');
    }
  });

  test('node:fs/promises: the post path, key cache written and then read (`vidpub post <file>`)', async () => {
    const { runs, cacheDir } = await modulesOf(['post', CLIP, '--to', 'linkedin', '--caption', 'modules', '--no-input', '--quiet'], /\S/);
    // The key cache was used: the first run wrote its file, so the second read it.
    expect(readdirSync(join(cacheDir, 'api')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    for (const modules of runs) expectNoFsPromises(modules);
  });

  test('`vidpub me` over http: none of the lazily loaded built-ins', async () => {
    const { runs } = await modulesOf(['me', '--json'], /"workspace"/);
    for (const modules of runs) {
      expect(modules).toContain('NativeModule http');
      const off = ['crypto', 'child_process', 'dgram', 'tty', 'module', 'sea', 'https', 'tls', 'fs/promises', 'readline'];
      expect(modules.filter((m) => off.some((name) => m === `NativeModule ${name}`))).toEqual([]);
      // Nor Node's ES module loader (bin/vidpub.js and the bundles are CommonJS), nor any dependency
      // left in node_modules (HEAVY in scripts/build.mjs: loaded by the path that needs it).
      expect(modules).not.toContain('NativeModule internal/modules/esm/loader');
      expect(modules.filter((m) => m.startsWith('file ')).length).toBeGreaterThan(0);
      expect(modules.filter((m) => m.startsWith('file ') && m.includes('/node_modules/'))).toEqual([]);
    }
  });
});

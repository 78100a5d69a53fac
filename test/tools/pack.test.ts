/**
 * The npm package: `npm pack` of the built tree holds what an installation
 * needs and nothing else, and installs globally and runs without the dev
 * dependencies. The pack skips the prepare build (the suite runs on a fresh
 * build; a second build here would swap dist/ under the other test files).
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { registryEnv } from '../support/tools.js';
import { brokenLinks, manualPages } from '../docs/pages.js';
import { memoryTempDir } from '../support/memory-dir.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  files: string[];
  man: string[];
  scripts: Record<string, string>;
};
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The tarball and the installation (6,000 files) in memory where the machine allows: the install's
// system CPU was 4.7 s on the disk (ext4), 2.0 s on a tmpfs.
const dir = memoryTempDir('vidpub-pack-');
const env = { ...process.env, ...registryEnv(), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', NO_COLOR: '1' };

interface PackResult {
  filename: string;
  files: { path: string; size: number }[];
}
let packed: PackResult;

beforeAll(async () => {
  await ensureBuilt();
  const r = await runAsync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { env, timeoutMs: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  packed = (JSON.parse(r.stdout) as PackResult[])[0]!;
}, 90_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm pack', () => {
  it('is built by prepare (after npm ci, before npm pack) and points its bin at bin/vidpub.js', () => {
    expect(pkg.scripts.prepare).toBe('node scripts/build.mjs');
    expect(pkg.bin).toEqual({ vidpub: 'bin/vidpub.js' });
  });

  it('holds the bin, the bundles, the fast path, the demo video and the manual, and nothing else', () => {
    const paths = packed.files.map((f) => f.path).sort();
    const expected = [
      'README.md',
      'bin/compile-cache.js',
      'bin/package.json',
      'bin/vidpub.js',
      'bin/when-written.js',
      'dist/SOURCES', // the digest of the sources built from (scripts/action/bundle.mjs), 65 bytes
      'dist/assets/clip.mp4',
      'dist/emulator.js',
      'dist/fast.cjs',
      'dist/main.js',
      'dist/me.js',
      'dist/package.json',
      'dist/upload.js',
      // The man pages (package.json "man"), generated from the registry.
      ...pkg.man.map((m) => m.replace(/^\.\//, '')),
      'package.json',
      // The manual: the README's and the changes' links reach the guides and the reference.
      'CHANGELOG.md',
      ...manualPages().filter((p) => p.startsWith('docs/')),
      // The events' JSON Schema (vidpub watch, --events), generated beside the reference, for receivers to validate with.
      'docs/commands/events.schema.json',
      // The pictures the guides show (docs/emulator.md: the web app), as the tests took them.
      ...readdirSync(join(ROOT, 'docs/images')).map((name) => `docs/images/${name}`),
    ].sort();
    expect(paths.filter((p) => p !== 'LICENSE')).toEqual(expected);
    // No tests, sources, source maps, or anything that may hold a secret.
    expect(paths.filter((p) => /^(test|src|bench|scripts)\/|\.map$|\.ts$|(^|\/)\.env|\.npmrc|\.pem$|\.key$|id_rsa|config\.json$/.test(p))).toEqual([]);
    // The demo video is the real clip.
    expect(packed.files.find((f) => f.path === 'dist/assets/clip.mp4')!.size).toBe(readFileSync(join(ROOT, 'test/fixtures/clip.mp4')).length);
  });

  it('installs globally with the production dependencies only, and the installed vidpub runs', async () => {
    const prefix = join(dir, 'prefix');
    const tgz = join(dir, packed.filename);
    const install = await runAsync(npm, ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tgz], { env, timeoutMs: 120_000 });
    expect(install.status, install.stderr).toBe(0);
    // Every dependency installed (npm ignores the package's "overrides" when it is installed) runs on
    // the Node the package says it needs: no EBADENGINE. (npm 11 may still warn that the package's
    // prepare script is not in allowScripts: it does not run for a tarball; that warning is npm's.)
    const output = `${install.stdout}${install.stderr}`;
    expect(output).not.toMatch(/EBADENGINE|engine/i);
    expect(output.split('\n').filter((l) => /npm warn/i.test(l) && !/install-scripts/.test(l))).toEqual([]);
    const installed = join(prefix, 'lib', 'node_modules', pkg.name);
    const deps = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies as Record<string, string>;
    for (const dev of ['vitest', 'typescript', 'esbuild', 'eslint']) {
      expect(Object.keys(deps)).toContain(dev);
      expect(() => readFileSync(join(installed, 'node_modules', dev, 'package.json'))).toThrow();
    }
    const vidpub = join(prefix, 'bin', 'vidpub');
    const runEnv: NodeJS.ProcessEnv = { ...env, VIDPUB_CONFIG_DIR: join(dir, 'config'), HOME: dir };
    for (const k of ['VIDPUB_API_KEY', 'VIDPUB_BASE_URL', 'VIDPUB_PROFILE']) delete runEnv[k];

    const version = await runAsync(vidpub, ['--version'], { env: runEnv, cwd: dir });
    expect(version).toEqual({ status: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const help = await runAsync(vidpub, ['--help'], { env: runEnv, cwd: dir });
    expect(help.status).toBe(0);
    for (const c of COMMANDS) expect(help.stdout).toContain(`  ${c.name}`);
    // A command through the full parser, and the whole job from the installed files
    // (the emulator's fastify from the installed dependencies, the packed sample video).
    // The manual installed: every relative link of the README, the changes and the guides reaches an installed file and heading.
    const pages = manualPages(installed);
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/getting-started.md', 'docs/commands/README.md']));
    expect(pages.flatMap((page) => brokenLinks(installed, page).map((b) => `${page}: ${b}`))).toEqual([]);
    // The reference of environment variables, through the full parser.
    const envHelp = await runAsync(vidpub, ['help', 'environment'], { env: runEnv, cwd: dir });
    expect(envHelp.status, envHelp.stderr).toBe(0);
    expect(envHelp.stdout).toMatch(/^VIDPUB_API_KEY\b/m);
    const noKey = await runAsync(vidpub, ['me'], { env: runEnv, cwd: dir });
    expect(noKey.status).toBe(3);
    expect(noKey.stderr).toMatch(/Error: /);
    const demo = await runAsync(vidpub, ['demo', '--no-input', '--json', '--processing-ms', '20', '--publish-ms', '20'], { env: runEnv, cwd: dir, timeoutMs: 60_000 });
    expect(demo.status, demo.stderr).toBe(0);
    const summary = JSON.parse(demo.stdout) as { post: { status: string; destinations: { status: string }[] } };
    expect(summary.post.status).toBe('completed');
    expect(summary.post.destinations.every((d) => d.status === 'published')).toBe(true);
  }, 180_000);
});

/**
 * test/support/clean-process.ts, the set-up every test file runs: files share a
 * worker process, so the first file to find the process changed by an earlier
 * one fails, naming what changed. Checked with real Vitest runs of two files in
 * one worker, the first leaving something behind.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const SETUP = join(ROOT, 'test/support/clean-process.ts');

/** Runs `first` then `second` (the larger file starts first) in one shared worker with the set-up. */
function runPair(first: string, second = "it('runs after it', () => {});"): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-clean-'));
  const config = { cacheDir: join(dir, 'cache'), test: { root: dir, include: ['*.test.js'], setupFiles: [SETUP], isolate: false, maxWorkers: 1, pool: 'forks', globals: true } };
  writeFileSync(join(dir, 'vitest.config.mjs'), `export default ${JSON.stringify(config)};\n`);
  writeFileSync(join(dir, 'a.test.js'), `${'// the larger file, so run first\n'.repeat(20)}${first}\n`);
  writeFileSync(join(dir, 'b.test.js'), `${second}\n`);
  const r = spawnSync(process.execPath, [VITEST, 'run', '--config', join(dir, 'vitest.config.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

const LEFT = 'a test file run before this one in this worker left the process changed: ';

describe('a test file finds the process as the first file found it', () => {
  it('two files that leave nothing behind pass', () => {
    const r = runPair("it('changes and restores', () => { process.env.VIDPUB_T = '1'; delete process.env.VIDPUB_T; });");
    expect(r.out).toMatch(/Test Files\s+2 passed/);
    expect(r.status).toBe(0);
  });

  it('an env var left set fails the next file, naming it', () => {
    const r = runPair("it('leaves it', () => { process.env.VIDPUB_LEFT = 'yes'; });");
    expect(r.out).toContain(`${LEFT}env VIDPUB_LEFT (unset -> yes)`);
    expect(r.out).toMatch(/FAIL\s+b\.test\.js/);
    expect(r.status).toBe(1);
  });

  it('a working directory or a umask left changed fails the next file', () => {
    const r = runPair("it('leaves them', () => { process.chdir('/'); process.umask(0o027); });");
    expect(r.out).toMatch(new RegExp(`${LEFT}cwd \\(\\S+ -> /\\), umask \\(\\d+ -> 27\\)`));
    expect(r.status).toBe(1);
  });

  it('a SIGINT listener left on the process fails the next file', () => {
    const r = runPair("it('leaves it', () => { process.on('SIGINT', () => {}); });");
    expect(r.out).toMatch(new RegExp(`${LEFT}SIGINT listeners \\(\\d+ -> \\d+\\)`));
    expect(r.status).toBe(1);
  });

  it('a flag left in the command registry fails the next file, naming the command', () => {
    const registry = join(ROOT, 'src/cli/commands/index.ts');
    const r = runPair(`import { findCommand } from ${JSON.stringify(registry)};\nit('leaves it', () => { findCommand('me').flags.push({ name: 'left-over', description: 'x' }); });`);
    expect(r.out).toMatch(new RegExp(`${LEFT}the flags of me \\((.*) -> \\1 left-over\\)`));
    expect(r.status).toBe(1);
  });

  it('fake timers left behind fail the next file, naming vi.useFakeTimers', () => {
    const r = runPair("it('leaves them', () => { vi.useFakeTimers(); });");
    expect(r.out).toContain('setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, Date are not the real one at the start of this file');
    expect(r.out).toContain('vi.useFakeTimers without vi.useRealTimers');
    expect(r.status).toBe(1);
  });
});

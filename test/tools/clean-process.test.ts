/**
 * test/support/clean-process.ts, the set-up every test file runs: files share a
 * worker process, so the first file to find the process changed by an earlier
 * one fails, naming what changed. Checked with real Vitest runs of two files in
 * one worker, the first leaving something behind (every scenario in one run, a project each).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const SETUP = join(ROOT, 'test/support/clean-process.ts');
const registry = join(ROOT, 'src/cli/commands/index.ts');

/** Each scenario: what its first file does (its second only runs after it). */
const FIRST = {
  clean: "it('changes and restores', () => { process.env.VIDPUB_T = '1'; delete process.env.VIDPUB_T; });",
  env: "it('leaves it', () => { process.env.VIDPUB_LEFT = 'yes'; });",
  cwd: "it('leaves them', () => { process.chdir('/'); process.umask(0o027); });",
  sigint: "it('leaves it', () => { process.on('SIGINT', () => {}); });",
  registry: `import { findCommand } from ${JSON.stringify(registry)};\nit('leaves it', () => { findCommand('me').flags.push({ name: 'left-over', description: 'x' }); });`,
  timers: "it('leaves them', () => { vi.useFakeTimers(); });",
};
type Scenario = keyof typeof FIRST;

interface FileResult {
  status: string;
  /** The file's own failure (a hook's error), '' when none. */
  message: string;
}

/**
 * One Vitest run for every scenario: each is a project of its own, which Vitest runs in a worker of
 * its own (isolate: false, so its two files share it), the larger file first; what each file did is
 * read from the JSON report. One run instead of one per scenario: a Vitest start is most of the cost.
 */
function runPairs(): Record<Scenario, { first: FileResult; second: FileResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-clean-'));
  const projects = Object.entries(FIRST).map(([name, first]) => {
    const root = join(dir, name);
    mkdirSync(root);
    writeFileSync(join(root, 'a.test.js'), `${'// the larger file, so run first\n'.repeat(20)}${first}\n`);
    writeFileSync(join(root, 'b.test.js'), "it('runs after it', () => {});\n");
    return { test: { name, root, include: ['*.test.js'], setupFiles: [SETUP], isolate: false, pool: 'forks', globals: true } };
  });
  const config = { cacheDir: join(dir, 'cache'), test: { maxWorkers: 1, projects } };
  writeFileSync(join(dir, 'vitest.config.mjs'), `export default ${JSON.stringify(config)};\n`);
  const report = join(dir, 'report.json');
  const r = spawnSync(process.execPath, [VITEST, 'run', '--config', join(dir, 'vitest.config.mjs'), '--reporter=json', `--outputFile=${report}`], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  // Some scenarios fail their second file on purpose.
  expect(r.status, r.stdout + r.stderr).toBe(1);
  const files = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: Array<{ name: string; status: string; message?: string }> }).testResults;
  const result = (name: string, file: string): FileResult => {
    const f = files.find((t) => t.name === join(dir, name, file));
    if (!f) throw new Error(`no result for ${name}/${file} in the report:\n${r.stdout}${r.stderr}`);
    return { status: f.status, message: f.message ?? '' };
  };
  return Object.fromEntries(Object.keys(FIRST).map((name) => [name, { first: result(name, 'a.test.js'), second: result(name, 'b.test.js') }])) as Record<
    Scenario,
    { first: FileResult; second: FileResult }
  >;
}

const LEFT = 'a test file run before this one in this worker left the process changed: ';

describe('a test file finds the process as the first file found it', () => {
  let ran: ReturnType<typeof runPairs>;
  beforeAll(() => {
    ran = runPairs();
  }, 120_000);

  it('two files that leave nothing behind pass', () => {
    expect(ran.clean.first).toEqual({ status: 'passed', message: '' });
    expect(ran.clean.second).toEqual({ status: 'passed', message: '' });
  });

  it('an env var left set fails the next file, naming it', () => {
    expect(ran.env.first.status).toBe('passed');
    expect(ran.env.second.status).toBe('failed');
    expect(ran.env.second.message).toContain(`${LEFT}env VIDPUB_LEFT (unset -> yes)`);
  });

  it('a working directory or a umask left changed fails the next file', () => {
    expect(ran.cwd.second.status).toBe('failed');
    expect(ran.cwd.second.message).toMatch(new RegExp(`${LEFT}cwd \\(\\S+ -> /\\), umask \\(\\d+ -> 27\\)`));
  });

  it('a SIGINT listener left on the process fails the next file', () => {
    expect(ran.sigint.second.status).toBe('failed');
    expect(ran.sigint.second.message).toMatch(new RegExp(`${LEFT}SIGINT listeners \\(\\d+ -> \\d+\\)`));
  });

  it('a flag left in the command registry fails the next file, naming the command', () => {
    expect(ran.registry.second.status).toBe('failed');
    expect(ran.registry.second.message).toMatch(new RegExp(`${LEFT}the flags of me \\((.*) -> \\1 left-over\\)`));
  });

  it('fake timers left behind fail the next file, naming vi.useFakeTimers', () => {
    expect(ran.timers.second.status).toBe('failed');
    expect(ran.timers.second.message).toContain('setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, Date are not the real one at the start of this file');
    expect(ran.timers.second.message).toContain('vi.useFakeTimers without vi.useRealTimers');
  });
});

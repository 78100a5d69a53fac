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

/**
 * The scenarios, a Vitest project each: its files, run in this order in one worker (the larger
 * first). A project costs a worker and most of a second of CPU, so a project holds all the
 * leftovers that the same check finds (`left`: env, cwd, umask, a SIGINT listener, the registry:
 * the next file's message names each thing changed, one by one), after a file that changes the
 * env and restores it (the next file passes: a file that leaves nothing behind trips no one). Fake
 * timers are a check of their own, made first (then the file fails before the other check runs):
 * a project of their own.
 */
const SCENARIOS = {
  left: {
    'a.test.js': "it('changes and restores', () => { process.env.VIDPUB_T = '1'; delete process.env.VIDPUB_T; });",
    'b.test.js': [
      "it('leaves the env', () => { process.env.VIDPUB_LEFT = 'yes'; });",
      "it('leaves cwd and umask', () => { process.chdir('/'); process.umask(0o027); });",
      "it('leaves a SIGINT listener', () => { process.on('SIGINT', () => {}); });",
      `import { findCommand } from ${JSON.stringify(registry)};`,
      "it('leaves a flag in the registry', () => { findCommand('me').flags.push({ name: 'left-over', description: 'x' }); });",
    ].join('\n'),
    'c.test.js': "it('runs after it', () => {});",
  },
  timers: {
    'a.test.js': "it('leaves them', () => { vi.useFakeTimers(); });",
    'b.test.js': "it('runs after it', () => {});",
  },
};
type Scenario = keyof typeof SCENARIOS;

interface FileResult {
  status: string;
  /** The file's own failure (a hook's error), '' when none. */
  message: string;
}

/**
 * One Vitest run for every scenario: each is a project of its own, which Vitest runs in a worker of
 * its own (isolate: false, so its files share it), the larger file first; what each file did is
 * read from the JSON report. One run instead of one per scenario: a Vitest start is most of the cost.
 */
function runScenarios(): Record<Scenario, Record<string, FileResult>> {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-clean-'));
  const projects = Object.entries(SCENARIOS).map(([name, files]) => {
    const root = join(dir, name);
    mkdirSync(root);
    // Padded so that each file is larger than the next: Vitest runs the larger first.
    const names = Object.keys(files);
    names.forEach((file, i) => writeFileSync(join(root, file), `${'// padding: the files run in the order of their names\n'.repeat(20 * (names.length - i))}${files[file as keyof typeof files]}\n`));
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
  // Both scenarios fail their last file on purpose.
  expect(r.status, r.stdout + r.stderr).toBe(1);
  const results = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: Array<{ name: string; status: string; message?: string }> }).testResults;
  const result = (name: string, file: string): FileResult => {
    const f = results.find((t) => t.name === join(dir, name, file));
    if (!f) throw new Error(`no result for ${name}/${file} in the report:\n${r.stdout}${r.stderr}`);
    return { status: f.status, message: f.message ?? '' };
  };
  return Object.fromEntries(
    Object.entries(SCENARIOS).map(([name, files]) => [name, Object.fromEntries(Object.keys(files).map((file) => [file, result(name, file)]))]),
  ) as Record<Scenario, Record<string, FileResult>>;
}

const LEFT = 'a test file run before this one in this worker left the process changed: ';

describe('a test file finds the process as the first file found it', () => {
  let ran: ReturnType<typeof runScenarios>;
  let left: FileResult;
  beforeAll(() => {
    ran = runScenarios();
    left = ran.left['c.test.js']!;
  }, 120_000);

  it('a file after one that changed the env and restored it passes', () => {
    expect(ran.left['a.test.js']).toEqual({ status: 'passed', message: '' });
    expect(ran.left['b.test.js']).toEqual({ status: 'passed', message: '' });
  });

  it('what a file left changed fails the next file, naming each thing, and only those', () => {
    expect(left.status).toBe('failed');
    // The first file's keys in their order, then the keys it did not have (the env var).
    expect(left.message).toMatch(
      new RegExp(
        `${LEFT}cwd \\(\\S+ -> /\\), umask \\(\\d+ -> 27\\), SIGINT listeners \\((\\d+) -> (?!\\1\\))\\d+\\), the flags of me \\((.*) -> \\2 left-over\\), env VIDPUB_LEFT \\(unset -> yes\\);`,
      ),
    );
  });

  it('an env var left set fails the next file, naming it', () => {
    expect(left.message).toContain('env VIDPUB_LEFT (unset -> yes)');
  });

  it('a working directory or a umask left changed fails the next file', () => {
    expect(left.message).toMatch(/cwd \(\S+ -> \/\), umask \(\d+ -> 27\)/);
  });

  it('a SIGINT listener left on the process fails the next file', () => {
    expect(left.message).toMatch(/SIGINT listeners \(\d+ -> \d+\)/);
  });

  it('a flag left in the command registry fails the next file, naming the command', () => {
    expect(left.message).toMatch(/the flags of me \((.*) -> \1 left-over\)/);
  });

  it('fake timers left behind fail the next file, naming vi.useFakeTimers', () => {
    expect(ran.timers['a.test.js']!.status).toBe('passed');
    expect(ran.timers['b.test.js']!.status).toBe('failed');
    expect(ran.timers['b.test.js']!.message).toContain('setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, Date are not the real one at the start of this file');
    expect(ran.timers['b.test.js']!.message).toContain('vi.useFakeTimers without vi.useRealTimers');
  });
});

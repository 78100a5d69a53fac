import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run longest (each runs its blocks one after another), started
 * first so that the run does not end waiting on one of them; the order is a CI
 * run's wall time per file, longest first. Without a results cache (a fresh
 * checkout, as in CI) Vitest would start the largest files first, and these
 * are small.
 */
const LONGEST = [
  'test/docs/help-examples.test.ts',
  'test/reliability/kill-loop.test.ts',
  'test/pty/frictions-pty.test.ts',
  'test/reliability/live-run.test.ts',
  'test/docs/manual-emulator.test.ts',
  'test/reliability/fault-matrix.test.ts',
  'test/docs/manual-publishing.test.ts',
  'test/reliability/signal-keeps-note.test.ts',
  'test/batch/batch-changed.test.ts',
  'test/ci/action.test.ts',
  'test/credentials/keychain-entries.test.ts',
  'test/docs/manual.test.ts',
  'test/docs/readme.test.ts',
  'test/client/config-store.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? LONGEST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** The test files that run each in a process of its own (see `projects`). */
const OWN_PROCESS = [
  'test/batch/**/*.test.ts',
  'test/ci/**/*.test.ts',
  'test/credentials/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/pty/**/*.test.ts',
  'test/reliability/**/*.test.ts',
  'test/webapp/**/*.test.ts',
  'test/emulator/uploads.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/support/real-timers.ts'],
    // Watchdogs for a test that hangs, not a measure of speed: on a loaded 2-core machine a test
    // that runs the built bin ten times, or a set-up that starts chromium or a keyring, can take
    // many times what it takes on a quiet one (what a test asserts never depends on it).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most test files share a worker process (isolate: false): a worker loads the CLI and the
    // emulator once, not once per file, which halves the CPU of those folders. A file must therefore
    // leave nothing behind (fake timers, env, cwd, listeners on process, module state that a later
    // file trips on). Fake timers were one such leak (test/time/long-timer.test.ts left a fake
    // setTimeout, and later files' real-time waits never ended): test/support/real-timers.ts, run
    // before each file, fails the first file to find them. The folders in OWN_PROCESS keep a process
    // a file: in a whole run with shared workers some of their files failed (a keyring's helper, a
    // browser, a batch's run) where alone they pass, and the leaks are not found yet.
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: OWN_PROCESS, isolate: false } },
      { extends: true, test: { name: 'own', include: OWN_PROCESS, isolate: true } },
    ],
    // Most tests wait on HTTP and child processes, not on the CPU: two test
    // files per core keep the cores busy (Vitest's default is one fewer than
    // the cores, so a single worker on a 2-core machine).
    maxWorkers: Math.max(2, 2 * availableParallelism()),
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
  },
});

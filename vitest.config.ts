import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { useRunHomes } from './test/support/run-homes.js';

/**
 * The files that run longest (each runs its blocks one after another), started
 * first so that the run does not end waiting on one of them; the order is a full
 * run's wall time per file (this round's, after the cuts), longest first. Without a results cache (a fresh
 * checkout, as in CI) Vitest would start the largest files first, and these
 * are small.
 */
const LONGEST = [
  'test/reliability/live-run.test.ts',
  'test/tools/pack.test.ts',
  'test/webapp/workspace-cli.test.ts',
  'test/docs/manual-emulator.test.ts',
  'test/docs/manual-publishing.test.ts',
  'test/tools/completion.test.ts',
  'test/ci/sea.test.ts',
  'test/docs/help-examples.test.ts',
  'test/pty/frictions-pty.test.ts',
  'test/reliability/cut-off-rerun.test.ts',
  'test/ci/action.test.ts',
  'test/credentials/keychain-entries.test.ts',
  'test/docs/manual.test.ts',
  'test/reliability/kill-loop.test.ts',
  'test/reliability/process-edges.test.ts',
  'test/reliability/signal-keeps-note.test.ts',
  'test/cache/post-cache.test.ts',
  'test/reliability/same-file.test.ts',
  'test/webapp/review.test.ts',
  'test/ci/action-bundle.test.ts',
  'test/mcp/local-mcp.test.ts',
  'test/credentials/keychain-unavailable.test.ts',
  'test/pty/child-env.test.ts',
  'test/reliability/fault-matrix.test.ts',
];

/**
 * The tests talk to servers of their own on 127.0.0.1 only (over TLS with CAs they make, given
 * by VIDPUB_CA_FILE). A machine's NODE_EXTRA_CA_CERTS (CI images point it at the whole system
 * bundle) is parsed by Node at every start of every process: about 40 ms of CPU on a 2-core
 * runner (`node -e 0`: 0.09 s with it, 0.05 s without), over the thousands of processes the suite
 * starts. So it is moved out of the way before the workers start; the tests that reach the npm
 * registry put it back (test/support/tools.ts, registryEnv), and those about how vidpub treats
 * it set it themselves.
 */
if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
  process.env.VIDPUB_TEST_REGISTRY_CA = process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}

// The run's own XDG homes and temporary directory (test/support/run-homes.ts), set before the
// workers start so that every worker and every process a test starts inherits them.
useRunHomes();

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((name) => f.moduleId.endsWith(name));
      return i < 0 ? LONGEST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    setupFiles: ['test/support/clean-process.ts'],
    // One browser for the run's web app tests, started by the first that asks, closed at the end.
    globalSetup: ['test/support/browser-server.ts', 'test/support/run-homes.ts'],
    // Watchdogs for a test that hangs, not a measure of speed: on a loaded 2-core machine a test
    // that runs the built bin ten times, or a set-up that starts chromium or a keyring, can take
    // many times what it takes on a quiet one (what a test asserts never depends on it).
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Test files share a worker process (isolate: false): a worker loads the CLI, the emulator and
    // Vitest once, not once per file, which is most of the suite's CPU. A file must therefore leave
    // nothing behind (fake timers, env, cwd, umask, listeners on process, module state that a later
    // file trips on); test/support/clean-process.ts, run before each file, fails the first file to
    // find any of these changed, naming it. Fake timers were one such leak (test/time/long-timer.test.ts
    // left a fake setTimeout, and later files' real-time waits never ended).
    isolate: false,
    // Most tests wait on HTTP, child processes and the emulator's timers, not on the CPU: two test
    // files per core keep the cores busy (Vitest's default is one fewer than the cores, so a single
    // worker on a 2-core machine). Not more: each worker loads, compiles and warms up the CLI, the
    // emulator and their dependencies for itself, a few seconds of CPU each; 40 of the light files
    // took 66-70 s of CPU with 6 workers, 59-60 s with 4 and 56 s with 3 on a 2-core machine. The
    // whole suite, once its waits were cut: 204 s of wall and 333 s of CPU with 4, 238 s and 409 s with 6.
    maxWorkers: Math.max(2, 2 * availableParallelism()),
    // V8 optimizes a function (TurboFan, on a thread beside the worker's) once it has run through
    // an interrupt budget (67,584 by default, counted in bytes of bytecode executed). The workers
    // run hundreds of short tests, each the code of a few, and many of those compiles are spent on
    // code that does not run long enough to repay them: in a profile of a full run (perf), TurboFan
    // took 27.5 s of the workers' 174 s of CPU. With a budget 16 times as large, only code that
    // stays hot is optimized. test/emulator, test/batch and test/commands (824 tests) took 70-72 s
    // of CPU against 79-83 s with the default, in pairs run one after the other (8 times as large:
    // 73-76 s; 32 times: no better; no optimizing at all, --no-opt: 79 s against 67 s, slower);
    // the whole suite, in two such pairs, 333 s against 342 s and 346 s against 373 s; beside six
    // CPU-bound processes (where the main threads, not TurboFan's, wait for a core), 432 s of wall
    // against 462 s. Test processes only: vidpub's own runs keep V8's defaults.
    execArgv: ['--interrupt-budget=1056000'],
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
  },
});

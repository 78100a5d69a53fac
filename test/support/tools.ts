/**
 * Programs some tests drive (tmux, zsh, fish, python3, script). Outside CI a
 * test that needs one skips where it is missing, saying so; under CI (CI set),
 * where .ci/run installs them all, a missing one fails the test file instead,
 * so that no test is skipped unseen.
 */
import { spawnSync } from 'node:child_process';

/** Whether `program` runs here (found on PATH and answers `probe`; with `null`, found on PATH: for one that has no --version). */
export function runs(program: string, probe: string[] | null = ['--version']): boolean {
  if (probe === null) return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program], { stdio: 'ignore' }).status === 0;
  return spawnSync(program, probe, { stdio: 'ignore' }).status === 0;
}

/** For `skipIf`: true where `program` is missing and this is not CI; under CI a missing program throws. */
export function missing(program: string, probe?: string[] | null): boolean {
  if (runs(program, probe)) return false;
  if (process.env.CI) throw new Error(`${program} is missing: CI must install it (.ci/run) so that the tests that need it run instead of skipping.`);
  return true;
}

/**
 * For a format's own validator (xmllint for the JUnit schema): a missing one fails the test, in CI
 * or not, never skips it; .ci/run installs it.
 */
export function required(program: string, probe: string[] | null = ['--version']): void {
  if (!runs(program, probe)) throw new Error(`${program} is missing: install it (.ci/run lists the package that brings it) to run this test.`);
}

/** What a child that reaches the npm registry needs of the machine's trust: its NODE_EXTRA_CA_CERTS, which the suite sets aside (vitest.config.ts). */
export function registryEnv(): Record<string, string> {
  const ca = process.env.VIDPUB_TEST_REGISTRY_CA;
  return ca === undefined ? {} : { NODE_EXTRA_CA_CERTS: ca };
}

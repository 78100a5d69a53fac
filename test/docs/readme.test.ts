/**
 * The README is tested: its marked shell blocks run in order against a fresh
 * emulator on an ephemeral port, with a throwaway HOME, and each output it
 * shows must match what ran (after normalising ids, times, ports, temp paths
 * and durations). See test/docs/doctest.ts for the marking convention:
 *
 *   <!-- doctest: run -->          a shell block that runs and must exit 0
 *   <!-- doctest: output -->       the output of the run block before it
 *   <!-- doctest: transcript -->   `$ command` lines with their output
 *   <!-- doctest: skip REASON -->  cannot run here; counted and named
 *   <!-- doctest: setup ... -->    hidden shell setup
 *
 * Needs the build (dist/), made by `npm test`. Prints "N blocks run, M outputs
 * match, K skipped" to stderr.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { useBuiltEmulatorSandbox } from '../support/built-emulator.js';
import { Session, runDocument, summary } from './doctest.js';

const box = useBuiltEmulatorSandbox('doc');

beforeAll(() => {
  const { cwd } = box;
  // The README runs from the repository root (test/fixtures/clip.mp4) and names clip.mp4 alone.
  mkdirSync(join(cwd, 'test/fixtures'), { recursive: true });
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), join(cwd, 'test/fixtures/clip.mp4'));
  copyFileSync(join(ROOT, 'test/fixtures/long.mp4'), join(cwd, 'test/fixtures/long.mp4'));
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), join(cwd, 'clip.mp4'));
});

describe('README.md', () => {
  it('every marked block runs and every shown output matches', async () => {
    const { baseUrl, home, cwd } = box;
    const session = new Session({ root: ROOT, baseUrl, home, cwd, timeoutMs: 60_000 });
    // Each block starts on a fresh minute of the emulator's clock: no block waits out the allowances of the ones before it.
    const report = await runDocument(readFileSync(join(ROOT, 'README.md'), 'utf8'), session, { origin: session.origin, home, cwd }, { beforeBlock: box.freshMinute });
    process.stderr.write(`README doc test: ${summary(report)}\n`);
    if (process.env.VIDPUB_DOC_TIMINGS) {
      for (const t of [...report.timings].sort((a, b) => b.ms - a.ms).slice(0, 15)) process.stderr.write(`${t.ms} ms  ${t.name}\n`);
    }
    expect(report.failures, summary(report)).toEqual([]);
    expect(report.runs).toBeGreaterThan(20);
    expect(report.matches).toBeGreaterThan(10);
  }, 300_000);
});

/**
 * The manual is tested, one test per page: README.md and every page of docs/
 * (the generated command reference included, whose blocks are all marked
 * `skip`: help-examples.test.ts runs its examples). Each page's marked shell
 * blocks run in order against the emulator on an ephemeral port, reset to its
 * fixture before the page, with a throwaway HOME and working directory of the
 * page's own; each output a page shows must match what ran (after normalising
 * ids, times, ports, temp paths and durations). A page that needs a login or
 * a file says so in a hidden `setup` marker. See test/docs/doctest.ts for the
 * marking convention:
 *
 *   <!-- doctest: run -->          a shell block that runs and must exit 0
 *   <!-- doctest: output -->       the output of the run block before it
 *   <!-- doctest: transcript -->   `$ command` lines with their output
 *                                  (`transcript tty`: on a pseudo-terminal, 100 columns)
 *   <!-- doctest: skip REASON -->  cannot run here; counted and named
 *   <!-- doctest: setup ... -->    hidden shell setup
 *
 * Needs the build (dist/), made by `npm test`. Prints "PAGE: N blocks run,
 * M outputs match, K skipped" to stderr.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { useBuiltEmulatorSandbox } from '../support/built-emulator.js';
import { Rest } from '../support/rest.js';
import { Session, runDocument, summary } from './doctest.js';
import { manualPages } from './pages.js';

const box = useBuiltEmulatorSandbox('doc');
const scratch: string[] = [];

afterEach(() => {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A HOME and a working directory of the page's own, the working directory holding the sample clips; the emulator back to its fixture. */
async function freshPlace(): Promise<{ home: string; cwd: string }> {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-doc-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'vidpub-doc-work-'));
  scratch.push(home, cwd);
  // The pages run from the repository root (test/fixtures/clip.mp4) and name clip.mp4 alone.
  mkdirSync(join(cwd, 'test/fixtures'), { recursive: true });
  for (const f of ['clip.mp4', 'long.mp4']) copyFileSync(join(ROOT, 'test/fixtures', f), join(cwd, 'test/fixtures', f));
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), join(cwd, 'clip.mp4'));
  const origin = new URL(box.baseUrl).origin;
  await new Rest({ baseUrl: box.baseUrl, adminUrl: `${origin}/_emulator` }).reset();
  return { home, cwd };
}

const pages = manualPages();

/** The fewest blocks some pages run: a page whose examples were all turned to `skip` fails. */
const LEAST_RUNS: Record<string, number> = {
  'README.md': 4,
  'docs/getting-started.md': 10,
  'docs/publishing.md': 10,
  'docs/emulator.md': 10,
  'docs/mcp.md': 2,
  'docs/reliability.md': 2,
};

describe('the manual', () => {
  it('has the README, the guides and the generated reference', () => {
    for (const page of ['README.md', 'docs/getting-started.md', 'docs/reliability.md', 'docs/architecture.md', 'docs/commands/vidpub-post.md']) {
      expect(pages).toContain(page);
    }
  });

  for (const page of pages) {
    it(`${page}: every marked block runs and every shown output matches`, async () => {
      const markdown = readFileSync(join(ROOT, page), 'utf8');
      const { home, cwd } = await freshPlace();
      const session = new Session({ root: ROOT, baseUrl: box.baseUrl, home, cwd, timeoutMs: 60_000 });
      // Each block starts on a fresh minute of the emulator's clock: no block waits out the allowances of the ones before it.
      const report = await runDocument(markdown, session, { origin: session.origin, home, cwd }, { beforeBlock: box.freshMinute });
      process.stderr.write(`${page}: ${summary(report)}\n`);
      if (process.env.VIDPUB_DOC_TIMINGS) {
        for (const t of [...report.timings].sort((a, b) => b.ms - a.ms).slice(0, 10)) process.stderr.write(`${t.ms} ms  ${t.name}\n`);
      }
      expect(report.failures, summary(report)).toEqual([]);
      const least = LEAST_RUNS[page];
      if (least) expect(report.runs, `${page} runs fewer examples than it has`).toBeGreaterThanOrEqual(least);
    }, 300_000);
  }
});

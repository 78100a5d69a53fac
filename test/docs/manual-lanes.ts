/**
 * The manual's test (see manual.test.ts for what it checks), in lanes: the two pages that
 * run longest have a test file each, so that Vitest runs them beside the rest of the manual
 * instead of after it; together the lanes take every page once. Within a lane, pages run
 * side by side (most of a page's time is waiting on the service's work and its commands'
 * looks at it), each on an emulator of a small pool that no other page uses meanwhile.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { useBuiltEmulatorSandbox, type Sandbox } from '../support/built-emulator.js';
import { Rest } from '../support/rest.js';
import { InProcessVidpub } from '../support/in-process-vidpub.js';
import { Session, runDocument, summary } from './doctest.js';
import { manualPages } from './pages.js';

/** The pages that run longest (about half a minute each on a quiet machine): a lane each. */
export const OWN_LANE = ['docs/emulator.md', 'docs/publishing.md'];

/**
 * How many pages of the lane of every other page run at once, each on an emulator of its own: the
 * longest two (LONGEST_FIRST) on one each, all the others one after another on the third.
 */
const SIDE_BY_SIDE = 3;

/** The pages of that lane that run longest (about 17, 5 and 5 s on a quiet machine): they start first. */
const LONGEST_FIRST = ['docs/scripts-ci-cron.md', 'docs/getting-started.md', 'README.md'];

/** A HOME and a working directory of the page's own, the working directory holding the sample clips; the emulator back to its fixture. */
async function freshPlace(box: Sandbox): Promise<{ home: string; cwd: string }> {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-doc-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'vidpub-doc-work-'));
  // The pages run from the repository root (test/fixtures/clip.mp4) and name clip.mp4 alone.
  mkdirSync(join(cwd, 'test/fixtures'), { recursive: true });
  for (const f of ['clip.mp4', 'long.mp4']) copyFileSync(join(ROOT, 'test/fixtures', f), join(cwd, 'test/fixtures', f));
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), join(cwd, 'clip.mp4'));
  const origin = new URL(box.baseUrl).origin;
  await new Rest({ baseUrl: box.baseUrl, adminUrl: `${origin}/_emulator` }).reset();
  return { home, cwd };
}

/** The fewest blocks some pages run: a page whose examples were all turned to `skip` fails. */
const LEAST_RUNS: Record<string, number> = {
  'README.md': 4,
  'docs/getting-started.md': 10,
  'docs/publishing.md': 10,
  'docs/emulator.md': 10,
  'docs/mcp.md': 2,
  'docs/reliability.md': 2,
};

/**
 * The pages whose `vidpub` is the built bin, started for each command, as a new user runs it.
 * Every other page's `vidpub` runs the build's main in this process
 * (test/support/in-process-vidpub.ts): the same bundle the bin loads, without a node start per
 * command (most of the manual's CPU).
 */
export const REAL_BIN = ['README.md'];

/** An emulator of the pool and the in-process `vidpub` of the pages that run on it (its counts are theirs alone). */
interface Place {
  box: Sandbox;
  inProcess?: InProcessVidpub;
}

/** A pool of `size` places: a page takes a free one for its run and gives it back. */
function placePool(size: number): { take(): Promise<Place>; give(place: Place): void; all: Place[] } {
  const all: Place[] = Array.from({ length: size }, (_, i) => ({ box: useBuiltEmulatorSandbox(`doc-${i}`) }));
  const free = [...all];
  const waiting: Array<(p: Place) => void> = [];
  return {
    all,
    take: () => new Promise<Place>((resolve) => (free.length > 0 ? resolve(free.shift()!) : waiting.push(resolve))),
    give(place) {
      const next = waiting.shift();
      if (next) next(place);
      else free.push(place);
    },
  };
}

/** The manual's test for `lane`: one page of OWN_LANE, or (undefined) every other page. */
export function describeManual(lane?: string): void {
  const all = manualPages();
  const rank = (p: string) => (LONGEST_FIRST.includes(p) ? LONGEST_FIRST.indexOf(p) : LONGEST_FIRST.length);
  const pages = lane === undefined ? all.filter((p) => !OWN_LANE.includes(p)).sort((a, b) => rank(a) - rank(b)) : all.filter((p) => p === lane);
  const pool = placePool(lane === undefined ? SIDE_BY_SIDE : 1);
  beforeAll(async () => {
    for (const place of pool.all) place.inProcess = await InProcessVidpub.start(ROOT);
  });
  afterAll(async () => {
    for (const place of pool.all) await place.inProcess?.close();
  });

  describe(`the manual${lane ? `: ${lane}` : ''}`, () => {
    if (lane === undefined) {
      it('has the README, the guides and the generated reference; each page of its own lane exists', () => {
        for (const page of ['README.md', 'docs/getting-started.md', 'docs/reliability.md', 'docs/architecture.md', 'docs/commands/vidpub-post.md']) {
          expect(all).toContain(page);
        }
        for (const page of OWN_LANE) expect(all).toContain(page);
      });
    }

    for (const page of pages) {
      it.concurrent(`${page}: every marked block runs and every shown output matches`, async ({ expect }) => {
        const markdown = readFileSync(join(ROOT, page), 'utf8');
        const place = await pool.take();
        const { box } = place;
        const inProcess = place.inProcess!;
        const { home, cwd } = await freshPlace(box);
        try {
          const session = new Session({ root: ROOT, baseUrl: box.baseUrl, home, cwd, timeoutMs: 60_000, inProcess: REAL_BIN.includes(page) ? undefined : inProcess });
          // Each block starts on a fresh minute of the emulator's clock: no block waits out the allowances of the ones before it.
          const before = { inProcess: inProcess.ran.inProcess, realBin: inProcess.ran.realBin.length };
          const report = await runDocument(markdown, session, { origin: session.origin, home, cwd }, { beforeBlock: box.freshMinute });
          const inHere = inProcess.ran.inProcess - before.inProcess;
          const sent = inProcess.ran.realBin.length - before.realBin;
          const ran = REAL_BIN.includes(page) ? ' (vidpub: the built bin)' : inHere + sent > 0 ? ` (vidpub: ${inHere} commands in this process, ${sent} sent to the built bin)` : '';
          process.stderr.write(`${page}: ${summary(report)}${ran}\n`);
          if (process.env.VIDPUB_DOC_TIMINGS) {
            for (const t of [...report.timings].sort((a, b) => b.ms - a.ms).slice(0, 10)) process.stderr.write(`${t.ms} ms  ${t.name}\n`);
          }
          expect(report.failures, summary(report)).toEqual([]);
          const least = LEAST_RUNS[page];
          if (least) expect(report.runs, `${page} runs fewer examples than it has`).toBeGreaterThanOrEqual(least);
        } finally {
          pool.give(place);
          for (const d of [home, cwd]) rmSync(d, { recursive: true, force: true });
        }
      }, 300_000);
    }
  });
}

/**
 * `vidpub batch` with stdout at a terminal (tmux, 60 and 120 columns), through the built bin:
 * the live view is redrawn on stderr and stdout gets a few lines per item for a person, after
 * it, never JSON lines that wrap under the view and are cut. Every item's line is there, whole,
 * once; the JSON lines stay for a pipe. The bin's clock runs twice as fast (libfaketime): its looks
 * at the videos and posts, a second or so apart, come half of that apart.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { copyVideo } from '../support/video-copy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { fasterClockEnv, noFaketime } from '../support/faketime.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';

const emu = useEmulator({ processingMs: 200, publishMs: 300, resetEachTest: false });
const tmux = useTmux('batch');
const ITEMS = 4;
let dir: string;

describe.skipIf(noTmux || noFaketime)('vidpub batch at a terminal (tmux)', () => {
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-pty-'));
    const lines = ['items:'];
    for (let i = 1; i <= ITEMS; i++) {
      // Each clip its own video (the same one to one destination would be refused as a duplicate).
      copyVideo(join(ROOT, 'test/fixtures/clip.mp4'), join(dir, `clip${i}.mp4`), i);
      lines.push(`  - file: clip${i}.mp4`, `    caption: Clip number ${i} of the week, with a caption long enough`, '    to: [linkedin, youtube]', '    options: { youtube: { visibility: unlisted } }');
    }
    writeFileSync(join(dir, 'week.yaml'), lines.join('\n') + '\n');
  }, 120_000);

  for (const columns of [60, 120]) {
    it(`at ${columns} columns: a readable line per item, each whole and once; no JSON lines (exit 0)`, async () => {
      await emu.reset();
      const session = `batch${columns}`;
      const env = { ...emu.env(), ...fasterClockEnv(), VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-bpty-')), VIDPUB_NO_JOURNAL: '1', TZ: 'UTC', NO_COLOR: '1', TERM: 'xterm-256color', EDITOR: '', VISUAL: '' };
      tmux.start(session, vidpubLine('batch week.yaml --yes', env), { columns, cwd: dir });
      const done = await tmux.waitForScreen(session, /EXIT:\d+/, 60_000);
      expect(done).toMatch(/EXIT:0/);
      expect(done).not.toMatch(/\{"item"|"review_url"/);
      const heads = done.split('\n').filter((l) => /^item \d+ \(line \d+\): /.test(l));
      expect(heads.map((l) => Number(/^item (\d+)/.exec(l)![1])).sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
      for (const l of heads) expect(l.trimEnd()).toMatch(/^item \d \(line \d+\): published post_[0-9a-f]{16}$/);
      // each destination's line, whole (a link wraps at 60 columns: -J joins it back)
      const links = done.split('\n').filter((l) => /^ {2}@vidpub(-demo|demo) \((linkedin|youtube)\) {2}published {2}http/.test(l));
      expect(links).toHaveLength(ITEMS * 2);
      for (const l of links) expect(l.trimEnd()).toMatch(/\/_emulator\/published\/post_[0-9a-f]{16}\/dst_demo_(linkedin|youtube)$/);
    }, 90_000);
  }

  it('to a pipe: a JSON line per item, as before', async () => {
    await emu.reset();
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIDPUB_')));
    const r = await runAsync(process.execPath, [BIN, 'batch', 'week.yaml', '--yes'], {
      cwd: dir,
      env: { ...clean, ...emu.env(), ...fasterClockEnv(), VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-bpipe-')), VIDPUB_NO_JOURNAL: '1' },
      timeoutMs: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { item: number; status: string });
    expect(lines.map((l) => l.item).sort()).toEqual([1, 2, 3, 4]);
    expect(lines.every((l) => l.status === 'published')).toBe(true);
  }, 90_000);
});

import { copyFileSync, linkSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';

/**
 * `vidpub batch` within a low open-file limit: the checks of the items'
 * files (a video's head and movie header, a caption file) keep a bounded
 * number of files open, whether 750 items name 1,500 files or the same
 * few. The built CLI runs as a child under `ulimit -n 128`: the items are
 * almost six times the limit (a file left open for one item in six would
 * run out), as 1,500 items were under 256, in half the work.
 */
const ITEMS = 750;
const LIMIT = 128;
const CLIP = 'test/fixtures/clip.mp4';

const emu = useEmulator();
beforeAll(() => ensureBuilt());

function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-bounds-'));
  mkdirSync(join(dir, 'config'));
  return dir;
}

/** A CSV manifest of the rows given (header first). */
function csv(dir: string, rows: string[][]): string {
  writeFileSync(join(dir, 'x.csv'), rows.map((r) => r.join(',')).join('\n') + '\n');
  return 'x.csv';
}

/** Runs the built vidpub under the low open-file limit, in `dir`. */
function limited(dir: string, args: string[]) {
  return runAsync('sh', ['-c', `ulimit -n ${LIMIT} && exec "$0" "$@"`, process.execPath, ...args], {
    cwd: dir,
    env: { ...process.env, ...emu.env(), VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_INPUT: '1', NO_COLOR: '1', TZ: 'UTC' },
    timeoutMs: 120_000,
  });
}

const itemHeads = (stdout: string) => stdout.match(/^item \d+ \(line \d+\): .*$/gm) ?? [];

describe(`vidpub batch --dry-run: ${ITEMS} items under ulimit -n ${LIMIT}`, () => {
  it(`the limit is real: a program that opens ${2 * LIMIT} files at once is refused there (EMFILE)`, async () => {
    const dir = workDir();
    const clip = JSON.stringify(join(process.cwd(), CLIP));
    const script = `const fs = require('fs'); const fds = []; try { for (let i = 0; i < ${2 * LIMIT}; i++) fds.push(fs.openSync(${clip}, 'r')); console.log('opened', fds.length); } catch (e) { console.log(e.code, 'after', fds.length); }`;
    const r = await limited(dir, ['-e', script]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^EMFILE after \d+\n$/);
  });

  it(`each item its own video and caption file (${(2 * ITEMS).toLocaleString('en')} files): the right plan, exit 0, no EMFILE`, async () => {
    const dir = workDir();
    copyFileSync(CLIP, join(dir, 'clip.mp4'));
    const rows = [['file', 'to', 'caption_file', 'draft']];
    for (let i = 1; i <= ITEMS; i++) {
      linkSync(join(dir, 'clip.mp4'), join(dir, `v${i}.mp4`));
      writeFileSync(join(dir, `c${i}.txt`), `Caption from file ${i}\n`);
      rows.push([`v${i}.mp4`, 'linkedin', `c${i}.txt`, 'true']);
    }
    const r = await limited(dir, [BIN, 'batch', csv(dir, rows), '--dry-run']);
    expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
    expect(r.stderr).not.toMatch(/EMFILE|too many open files/);
    expect(r.stdout.split('\n')[0]).toBe(`Plan for x.csv: ${ITEMS} items (0 to post, ${ITEMS} drafts); times in UTC`);
    const heads = itemHeads(r.stdout);
    expect(heads).toHaveLength(ITEMS);
    expect(heads[0]).toBe('item 1 (line 2): v1.mp4 (13.7 kB, 2s)');
    expect(heads[ITEMS - 1]).toBe(`item ${ITEMS} (line ${ITEMS + 1}): v${ITEMS}.mp4 (13.7 kB, 2s)`);
    expect(r.stdout).toContain(`  caption: Caption from file ${ITEMS}\n`);
  });

  it('every item naming one of the same 3 files: the right plan, exit 0, no EMFILE', async () => {
    const dir = workDir();
    for (const name of ['a', 'b', 'c']) copyFileSync(CLIP, join(dir, `${name}.mp4`));
    const rows = [['file', 'to', 'caption', 'draft']];
    for (let i = 1; i <= ITEMS; i++) rows.push([`${'abc'[i % 3]}.mp4`, 'linkedin', `Day ${i}`, 'true']);
    const r = await limited(dir, [BIN, 'batch', csv(dir, rows), '--dry-run']);
    expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
    expect(r.stderr).not.toMatch(/EMFILE|too many open files/);
    const heads = itemHeads(r.stdout);
    expect(heads).toHaveLength(ITEMS);
    expect(heads.slice(0, 3)).toEqual(['item 1 (line 2): b.mp4 (13.7 kB, 2s)', 'item 2 (line 3): c.mp4 (13.7 kB, 2s)', 'item 3 (line 4): a.mp4 (13.7 kB, 2s)']);
    expect(r.stdout).toContain(`  caption: Day ${ITEMS}\n`);
  });

  it('every item naming the same missing file: each item told, exit 2, nothing sent', async () => {
    const dir = workDir();
    const rows = [['file', 'to', 'caption', 'draft']];
    for (let i = 1; i <= ITEMS; i++) rows.push(['gone.mp4', 'linkedin', `Day ${i}`, 'true']);
    const before = (await emu.requests()).length;
    const r = await limited(dir, [BIN, 'batch', csv(dir, rows), '--dry-run']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`Error: ${ITEMS} problems in x.csv; nothing was sent\n  item 1 (line 2): gone.mp4: no such file\n`);
    expect(r.stderr).toContain(`  item ${ITEMS} (line ${ITEMS + 1}): gone.mp4: no such file\n`);
    expect(r.stdout).toBe('');
    expect((await emu.requests()).slice(before).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('a caption file missing for some items: each of them told, exit 2', async () => {
    const dir = workDir();
    copyFileSync(CLIP, join(dir, 'a.mp4'));
    writeFileSync(join(dir, 'here.txt'), 'Here\n');
    const rows = [['file', 'to', 'caption_file', 'draft', 'key']];
    for (let i = 1; i <= ITEMS; i++) rows.push(['a.mp4', 'linkedin', i % 250 === 0 ? 'nocap.txt' : 'here.txt', 'true', `k${i}`]);
    const r = await limited(dir, [BIN, 'batch', csv(dir, rows), '--dry-run']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`Error: 3 problems in x.csv; nothing was sent\n  item 250 (line 251): caption_file nocap.txt: no such file\n`);
    expect(r.stderr).toContain(`  item ${ITEMS} (line ${ITEMS + 1}): caption_file nocap.txt: no such file\n`);
    expect(r.stderr).not.toMatch(/EMFILE|too many open files/);
  });
});

/**
 * The duplicate guard in a batch, in-process against the emulator: three items of one video to
 * one destination are named by --dry-run (two duplicates), and the run posts the first and
 * refuses the two others on their own (exit 2); --allow-duplicate posts them (the video not sent
 * again); a copy of the video in another manifest is refused against the journal, naming the
 * earlier post; allow_duplicate on an item (a JSON field, a CSV column) and drafts (they post
 * nothing) are not refused.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { batchLines } from '../support/batch.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
let config = '';
const run = cliRunner(() => ({ env: { ...emu.env(), TZ: 'UTC', VIDPUB_CONFIG_DIR: config, NO_COLOR: '1' } }));

beforeEach(() => {
  config = tempConfigDir();
});

/** A manifest in a new directory beside the clip (as a.mp4 and, a copy, b.mp4). */
function manifest(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-dups-'));
  copyFileSync('test/fixtures/clip.mp4', join(dir, 'a.mp4'));
  copyFileSync('test/fixtures/clip.mp4', join(dir, 'b.mp4'));
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

const jsonl = (items: Record<string, unknown>[]) => items.map((it) => JSON.stringify(it)).join('\n') + '\n';
const three = (file = 'a.mp4') => jsonl(['one', 'two', 'three'].map((caption) => ({ file, to: 'youtube', caption })));

type PlanDoc = { items: { item: number; duplicate: { items: { item: number; destination_id: string }[]; posts: { post_id: string }[]; message: string } | null }[] };

const count = async (what: (r: { method: string; path: string }) => boolean) => (await emu.requests()).filter(what).length;

describe('batch: the same video to the same destination', () => {
  it('--dry-run names two duplicates of three; the run posts one and refuses two (exit 2); --allow-duplicate posts them without sending the video again', async () => {
    const path = manifest('x.jsonl', three());
    const doc = await run(['batch', path, '--dry-run', '--json']);
    expect(doc.code, doc.stderr).toBe(0);
    const plan = JSON.parse(doc.stdout) as PlanDoc;
    expect(plan.items.map((it) => it.duplicate?.items)).toEqual([undefined, [{ item: 1, destination_id: 'dst_demo_youtube' }], [{ item: 1, destination_id: 'dst_demo_youtube' }]]);
    expect(doc.stderr).toContain('2 items are the same video to the same destination as an earlier post or item, and will be refused (items 2, 3); allow_duplicate: true on the item (or --allow-duplicate) posts it anyway.');
    const table = await run(['batch', path, '--dry-run']);
    expect(table.stdout).toContain('(1 to post, 2 duplicates refused)');
    expect(table.stdout).toContain('  duplicate: the same video as item 1, which posts it to @vidpubdemo (youtube); refused when run');

    const r = await run(['batch', path, '--yes', '--no-wait']);
    expect(r.code, r.stderr).toBe(2);
    const lines = batchLines(r.stdout).sort((a, b) => a.item - b.item);
    expect(lines.map((l) => l.status)).toEqual(['publishing', 'refused', 'refused']);
    expect(lines[1]!.error).toBe('refused as a duplicate: the same video as item 1, which posts it to @vidpubdemo (youtube); nothing of it was sent; allow_duplicate: true on the item (or --allow-duplicate) posts it anyway');
    expect(r.stderr).toContain('Error: 2 of 3 items were refused: the same video to the same destination as an earlier post or item (the others went on).');
    expect(await count((q) => q.method === 'POST' && q.path === '/v1/posts')).toBe(1);
    expect(await count((q) => q.method === 'PUT')).toBe(1);

    const again = await run(['batch', path, '--yes', '--no-wait', '--allow-duplicate']);
    expect(again.code, again.stderr).toBe(0);
    expect(batchLines(again.stdout).sort((a, b) => a.item - b.item).map((l) => [l.status === 'refused', l.replayed ?? false])).toEqual([[false, true], [false, false], [false, false]]);
    expect(await count((q) => q.method === 'POST' && q.path === '/v1/posts')).toBe(3);
    expect(await count((q) => q.method === 'PUT')).toBe(1);
  });

  it('a copy in another manifest is refused against the journal, naming the earlier post; another destination is not', async () => {
    const first = await run(['batch', manifest('x.jsonl', jsonl([{ file: 'a.mp4', to: 'youtube', caption: 'first' }])), '--yes', '--no-wait', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const postId = (JSON.parse(first.stdout) as { items: { post_id: string }[] }).items[0]!.post_id;
    const copy = manifest('y.jsonl', jsonl([{ file: 'b.mp4', to: 'youtube', caption: 'again' }, { file: 'b.mp4', to: 'linkedin', caption: 'elsewhere' }]));
    const r = await run(['batch', copy, '--yes', '--no-wait']);
    expect(r.code, r.stderr).toBe(2);
    const [refused, posted] = batchLines(r.stdout).sort((a, b) => a.item - b.item);
    expect(refused!.status).toBe('refused');
    expect(refused!.error).toMatch(new RegExp(`^refused as a duplicate: already posted to @vidpubdemo \\(youtube\\) .*\\(post ${postId}\\); nothing of it was sent`));
    expect(posted!.status).toBe('publishing');
  });

  it('allow_duplicate on an item (JSON field, CSV column), and a draft before it, are not refused, nor a draft (it posts nothing); a bad value is a problem (exit 2)', async () => {
    const items = jsonl([
      { file: 'a.mp4', to: 'youtube', caption: 'draft', draft: true },
      { file: 'a.mp4', to: 'youtube', caption: 'one' },
      { file: 'a.mp4', to: 'youtube', caption: 'two', allow_duplicate: true },
      { file: 'b.mp4', to: 'youtube', caption: 'draft again', draft: true },
    ]);
    const plan = JSON.parse((await run(['batch', manifest('x.jsonl', items), '--dry-run', '--json'])).stdout) as PlanDoc;
    expect(plan.items.map((it) => it.duplicate)).toEqual([null, null, null, null]);
    const csv = 'file,to,caption,allow_duplicate\na.mp4,youtube,one,\na.mp4,youtube,two,yes\na.mp4,youtube,three,no\n';
    const fromCsv = JSON.parse((await run(['batch', manifest('x.csv', csv), '--dry-run', '--json'])).stdout) as PlanDoc;
    expect(fromCsv.items.map((it) => it.duplicate?.items[0]?.item ?? null)).toEqual([null, null, 1]);
    const bad = await run(['batch', manifest('x.csv', 'file,to,caption,allow_duplicate\na.mp4,youtube,one,maybe\n'), '--dry-run']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('item 1 (line 2): allow_duplicate must be true or false, not "maybe"');
  });
});

/**
 * The duplicate guard in a batch, in-process against the emulator: three items of one video to
 * one destination are named by --dry-run (two duplicates), and the run posts the first and
 * refuses the two others on their own (exit 2); --allow-duplicate posts them (the video not sent
 * again); a copy of the video in another manifest is refused against the journal, naming the
 * earlier post; allow_duplicate on an item (a JSON field, a CSV column) and drafts (they post
 * nothing) are not refused. And history --duplicates (here, to share the emulator and the
 * modules): the one group of a video posted twice to one destination (JSON, pipe lines, CSV);
 * none once the journal sees one of them failed there, said on stderr, exit 0. And the run key:
 * the guard tells a run's own post by the run key the journal keeps with every post (run_key),
 * skipping only the entry of the same run; a line written before run_key was kept still reads,
 * and is the run's own only when the command carries a key vidpub made, as before.
 */
import { appendFileSync, copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { batchLines } from '../support/batch.js';
import type { DuplicateGroup } from '../../src/posts/duplicate-groups.js';
import type { Post } from '../../src/contract/wire-types.js';
import { postRecord } from '../../src/journal/journal-records.js';
import { fold } from '../../src/journal/post-fold.js';
import type { PostEvent, PostRecord } from '../../src/journal/journal-types.js';
import { earlierIn } from '../../src/posts/duplicate-guard.js';

const CTX = { profile: 'default', base_url: 'http://127.0.0.1:1/v1', key: '0123456789ab' };
const post = (id: string): Post => ({ id, media_id: 'med_1', caption: 'c', status: 'completed', publish_at: null, destinations: [{ destination_id: 'dst_yt', status: 'published' }] }) as unknown as Post;
const record = (id: string, e: Partial<PostEvent> = {}): PostRecord => postRecord({ post: post(id), outcome: 'created', ...e }, CTX, {}, '2026-11-28T10:00:00.000Z');
const ids = (records: PostRecord[], own: Parameters<typeof earlierIn>[3]) =>
  earlierIn(records.map((r) => fold(r, [])), new Set(['med_1']), ['dst_yt'], own).map((e) => e.post_id);

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

describe('history --duplicates', () => {
  it('lists the group of the same video posted twice to one destination; drafts, other destinations and a failed destination are not duplicates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-hdups-'));
    copyFileSync('test/fixtures/clip.mp4', join(dir, 'a.mp4'));
    copyFileSync('test/fixtures/clip.mp4', join(dir, 'b.mp4'));
    const items = [
      { file: 'a.mp4', to: 'youtube', caption: 'one' },
      { file: 'b.mp4', to: 'youtube', caption: 'two' },
      { file: 'a.mp4', to: 'linkedin', caption: 'three' },
      { file: 'a.mp4', to: 'youtube', caption: 'four', draft: true },
    ];
    writeFileSync(join(dir, 'x.jsonl'), items.map((it) => JSON.stringify(it)).join('\n') + '\n');
    const batch = await run(['batch', join(dir, 'x.jsonl'), '--yes', '--no-wait', '--allow-duplicate', '--concurrency', '1', '--json']);
    expect(batch.code, batch.stderr).toBe(0);
    const ids = (JSON.parse(batch.stdout) as { items: { post_id: string }[] }).items.map((it) => it.post_id);

    const doc = await run(['history', '--duplicates', '--json']);
    expect(doc.code, doc.stderr).toBe(0);
    const groups = JSON.parse(doc.stdout) as DuplicateGroup[];
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ destination_id: 'dst_demo_youtube', name: '@vidpubdemo (youtube)', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(groups[0]!.posts.map((p) => [p.post_id, p.caption]).sort((a, b) => a[1]!.localeCompare(b[1]!))).toEqual([[ids[0], 'one'], [ids[1], 'two']]);

    const pipe = await run(['history', '--duplicates']);
    expect(pipe.stdout.trim().split('\n').map((l) => l.split('\t').slice(0, 3)).sort()).toEqual([['1', 'dst_demo_youtube', ids[0]], ['1', 'dst_demo_youtube', ids[1]]].sort());
    const csv = await run(['history', '--duplicates', '--csv']);
    expect(csv.stdout.split('\r\n')[0]).toBe('group,destination_id,name,sha256,id,at,media_id,file,caption');

    // The journal sees the first post failed at YouTube (as `status` would record it): no group any more.
    const failed = { v: 1, kind: 'status', at: new Date().toISOString(), profile: 'default', post_id: ids[0], status: 'completed', destinations: [{ id: 'dst_demo_youtube', status: 'failed' }], outcome: 'failed' };
    appendFileSync(join(config, 'state', 'journal.jsonl'), JSON.stringify(failed) + '\n');
    const none = await run(['history', '--duplicates', '--json']);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
    expect(none.stderr).toContain('No video was posted twice to the same destination in the journal');
  });
});

describe('the duplicate guard and the run key', () => {
  it('the journal keeps the run key of every post: the run\'s own, else the key given', () => {
    expect(record('p1', { runKey: 'vp-abc' }).run_key).toBe('vp-abc');
    expect(record('p2', { idem: 'nightly', runKey: 'nightly~x' })).toMatchObject({ idem: 'nightly', run_key: 'nightly~x' });
    expect(record('p3', { idem: 'batch-1' }).run_key).toBe('batch-1');
    expect(fold(record('p1', { runKey: 'vp-abc' }), []).run_key).toBe('vp-abc');
  });

  it('skips only the entry of the same run: another run\'s post counts, even under a key vidpub made', () => {
    const mine = record('mine', { runKey: 'vp-mine' });
    const other = record('other', { runKey: 'vp-other' });
    expect(ids([mine, other], { runKey: 'vp-mine', givenKey: 'vp-mine' })).toEqual(['other']);
    // A fresh run (its own new key): both are earlier posts.
    expect(ids([mine, other], { runKey: 'vp-new' })).toEqual(['mine', 'other']);
    // Under a key given, --force-new posts anew: the run key differs, the key given is the same.
    expect(ids([record('k', { idem: 'nightly', runKey: 'nightly' })], { runKey: 'nightly~1', givenKey: 'nightly' })).toEqual([]);
  });

  it('a line written before run_key was kept still reads; it is the run\'s own only for a key vidpub made, as before', () => {
    const old = JSON.parse(JSON.stringify(record('old'))) as PostRecord;
    delete old.run_key;
    expect(fold(old, []).run_key).toBeUndefined();
    expect(ids([old], { runKey: 'vp-line', givenKey: 'vp-line' })).toEqual([]);
    expect(ids([old], { runKey: 'vp-fresh' })).toEqual(['old']);
    expect(ids([old], { runKey: 'mine', givenKey: 'mine' })).toEqual(['old']);
  });
});

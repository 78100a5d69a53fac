/**
 * history --duplicates, in-process against the emulator: a batch posts one video (two copies of
 * one file) twice to one destination, once to another and once as a draft; history lists the one
 * group (JSON, pipe lines, CSV); once the journal sees one of them failed there, there is none
 * (a failed destination is not a duplicate), said on stderr, exit 0.
 */
import { appendFileSync, copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import type { DuplicateGroup } from '../../src/posts/duplicate-groups.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const config = tempConfigDir();
const run = cliRunner(() => ({ env: { ...emu.env(), TZ: 'UTC', VIDPUB_CONFIG_DIR: config, NO_COLOR: '1' } }));

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

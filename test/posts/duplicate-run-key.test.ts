/**
 * The duplicate guard tells a run's own post by the run key the journal keeps with every post
 * (run_key): the entry of the same run is skipped, any other run's counts, whatever its key
 * looks like; a line written before run_key was kept still reads, and is taken as the run's own
 * only when the command carries a key vidpub made (its rerun or continue line), as before.
 */
import { describe, expect, it } from 'vitest';
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

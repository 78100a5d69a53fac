import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseManifest } from '../../src/batch/manifest.js';
import { identities, itemIdentity, manifestIdentity, parseShard, resolveShard, shardOf } from '../../src/batch/shard.js';
import { rawItem } from '../../src/batch/manifest-types.js';

/** The split, pure: what shard each item of a manifest falls in, and the rules of I/N. */

const jsonl = (items: Record<string, unknown>[]) => items.map((it) => JSON.stringify(it)).join('\n') + '\n';
const item = (i: number) => ({ file: `clips/${i}.mp4`, to: ['youtube', '@vidpub.demo'], caption: `Clip ${i}`, at: '2031-01-01 09:00', tz: 'UTC' });

async function shardsOf(items: Record<string, unknown>[], count: number): Promise<number[]> {
  const m = await parseManifest(jsonl(items), 'jsonl');
  return identities(m).ids.map((id) => shardOf(id, count));
}

describe('the shard split', () => {
  it('is a hash of what the manifest says: pinned, so every machine and every version computes the same', async () => {
    const m = await parseManifest(jsonl([item(1)]), 'jsonl');
    // Changing these breaks every split in flight (runners of two versions would disagree): never do.
    expect(identities(m).ids[0]).toBe(itemIdentity(rawItem({ n: 7 }, { tz: 'UTC', at: '2031-01-01 09:00', caption: 'Clip 1', to: ['youtube', '@vidpub.demo'], file: 'clips/1.mp4' }), undefined));
    // sha256 of this text (the fields as written, keys sorted; docs/batch.md, "Shards"), its first 32 hex digits.
    const text = '{"batch_key":null,"item":{"at":"2031-01-01 09:00","caption":"Clip 1","file":"clips/1.mp4","to":["youtube","@vidpub.demo"],"tz":"UTC"}}';
    expect(identities(m).ids[0]).toBe(createHash('sha256').update(text).digest('hex').slice(0, 32));
    expect(identities(m).ids[0]).toBe('5e9311492ad90269a1ba6e23945c6b55');
    expect(identities(m).manifestId).toBe('m-c9099ee942eadd06');
  });

  it('every item in exactly one shard, the shards together the whole manifest, each near its share', async () => {
    const items = Array.from({ length: 400 }, (_, i) => item(i));
    for (const n of [1, 2, 3, 4, 7]) {
      const shards = await shardsOf(items, n);
      const sizes = Array.from({ length: n }, (_, s) => shards.filter((x) => x === s + 1).length);
      expect(sizes.reduce((a, b) => a + b)).toBe(400);
      for (const size of sizes) expect(size).toBeGreaterThan(400 / n / 2);
    }
  });

  it('items appended at the end, or put in between, move no other item', async () => {
    const before = Array.from({ length: 100 }, (_, i) => item(i));
    const after = [...before.slice(0, 50), item(1000), ...before.slice(50), ...Array.from({ length: 60 }, (_, i) => item(200 + i))];
    const a = await shardsOf(before, 4);
    const b = await shardsOf(after, 4);
    expect([...b.slice(0, 50), ...b.slice(51, 101)]).toEqual(a);
  });

  it('nothing of the machine: the same for fields in another order; force_new (how to run it) is no part of it; batch_key is', async () => {
    const a = rawItem({ n: 1 }, { file: 'a.mp4', to: 'youtube', caption: 'x' });
    const b = rawItem({ n: 9, line: 40 }, { caption: 'x', to: 'youtube', file: 'a.mp4', force_new: true });
    expect(itemIdentity(a, 'w48')).toBe(itemIdentity(b, 'w48'));
    expect(itemIdentity(a, 'w48')).not.toBe(itemIdentity(a, 'w49'));
    expect(itemIdentity(a, undefined)).not.toBe(itemIdentity(rawItem({ n: 1 }, { file: './a.mp4', to: 'youtube', caption: 'x' }), undefined));
  });

  it("the manifest's identity: its batch_key, else its first item; unchanged by items appended", async () => {
    const m1 = await parseManifest(JSON.stringify({ batch_key: 'week-48', items: [item(1)] }), 'json');
    const m2 = await parseManifest(JSON.stringify({ batch_key: 'week-48', items: [item(2), item(3)] }), 'json');
    expect(identities(m1).manifestId).toBe(identities(m2).manifestId);
    expect(identities(m1).manifestId).toBe(manifestIdentity('week-48', 'anything'));
    const n1 = await parseManifest(jsonl([item(1), item(2)]), 'jsonl');
    const n2 = await parseManifest(jsonl([item(1), item(2), item(3)]), 'jsonl');
    const n3 = await parseManifest(jsonl([item(0), item(1), item(2)]), 'jsonl');
    expect(identities(n2).manifestId).toBe(identities(n1).manifestId);
    expect(identities(n3).manifestId).not.toBe(identities(n1).manifestId);
  });
});

describe('I/N and where it comes from', () => {
  const refused = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    throw new Error('not refused');
  };

  it('reads I/N from --shard, VIDPUB_SHARD, or JOB_COMPLETION_INDEX (from 0) with --shard-count', () => {
    expect(parseShard(' 2 / 4 ')).toEqual({ index: 2, count: 4 });
    expect(resolveShard(undefined, undefined, {})).toBeNull();
    expect(resolveShard(undefined, undefined, { VIDPUB_SHARD: '3/5' })).toEqual({ index: 3, count: 5 });
    expect(resolveShard(undefined, '4', { JOB_COMPLETION_INDEX: '0' })).toEqual({ index: 1, count: 4 });
    expect(resolveShard('1/4', '4', { JOB_COMPLETION_INDEX: '0', VIDPUB_SHARD: '1/4' })).toEqual({ index: 1, count: 4 });
    // Kubernetes sets JOB_COMPLETION_INDEX in every Indexed Job: without --shard-count it is no shard.
    expect(resolveShard(undefined, undefined, { JOB_COMPLETION_INDEX: '2' })).toBeNull();
  });

  it('refuses what is no shard, each with what is wrong', () => {
    expect(refused(() => resolveShard(undefined, undefined, { VIDPUB_SHARD: '4/3' }))).toBe('VIDPUB_SHARD=4/3: there are only 3 shards (1/3 to 3/3)');
    expect(refused(() => resolveShard(undefined, '4', {}))).toBe('--shard-count 4 takes this shard from JOB_COMPLETION_INDEX, which is not set');
    expect(refused(() => resolveShard(undefined, '4', { JOB_COMPLETION_INDEX: '4' }))).toBe('JOB_COMPLETION_INDEX=4 is not below --shard-count 4 (it counts from 0: 0 to 3)');
    expect(refused(() => resolveShard(undefined, '0', { JOB_COMPLETION_INDEX: '0' }))).toBe('--shard-count must be a whole number from 1 to 10000, not "0"');
    expect(refused(() => resolveShard('2/4', '8', {}))).toBe('--shard 2/4 disagrees with --shard-count 8: give one of them');
    expect(refused(() => resolveShard('2/4', undefined, { VIDPUB_SHARD: '3/4' }))).toMatch(/^--shard 2\/4 disagrees with VIDPUB_SHARD=3\/4/);
    expect(refused(() => parseShard('1/10001'))).toBe('--shard 1/10001: at most 10000 shards');
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeContext } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { expectError } from '../support/errors.js';
import { makeInvocation } from '../../src/cli/run/invocation.js';
import type { GlobalOptions } from '../../src/cli/run/command.js';
import { runBatchCommand, type BatchOpts } from '../../src/batch/batch-flow.js';
import type { BatchEvent } from '../../src/batch/run-types.js';
import { RateLimitError } from '../../src/errors.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const FIXTURES = join(__dirname, '..', 'fixtures');

const globals: GlobalOptions = { json: false, quiet: true, input: false, color: false, profile: 'default', debug: false, maxWaitMs: 60_000, waitForQuota: false };

function session() {
  const { ctx } = makeContext({ env: emu.env(), clock: scaledClock(50) });
  return makeInvocation(ctx, globals).session;
}

const opts = (text: string, extra: Partial<BatchOpts> = {}): BatchOpts => ({
  text,
  format: 'jsonl',
  source: 'x.jsonl',
  baseDir: FIXTURES,
  zone: 'UTC',
  dryRun: false,
  concurrency: 2,
  wait: true,
  // An hour of the 50-times clock (72 s of real time): no deadline decides these tests, however slow the machine.
  timeoutMs: 3_600_000,
  yes: true,
  waitForQuota: false,
  ...extra,
});

/** Spends what is left of the Demo account's 30 posts today (20 + the rest, under each key's 20 writes a minute). */
async function spendRestOfAllowance(left: number): Promise<void> {
  const post = (ws: string, media: string, dest: string) =>
    emu.api.as(emu.key(ws)).post('/posts', { media_id: media, caption: 'filler', destinations: [{ destination_id: dest }], publish_at: 'now' });
  await emu.advance(61);
  for (let i = 0; i < left; i++) {
    const r = i < 20 ? await post('Demo', 'med_demo_sample', 'dst_demo_linkedin') : await post('Demo Second', 'med_second_sample', 'dst_second_youtube');
    expect(r.status).toBe(201);
  }
  expect((await post('Demo Second', 'med_second_sample', 'dst_second_youtube')).status).toBe(429);
  await emu.advance(61);
}

const TWO = ['{"file":"clip.mp4","to":"linkedin","caption":"one"}', '{"file":"clip.mp4","to":"youtube","caption":"two"}'].join('\n');

describe('the batch recorder (where a journal plugs in)', () => {
  it('is told of each item as it starts, gets its video and post, and finishes', async () => {
    const events: BatchEvent[] = [];
    const r = await runBatchCommand(opts(TWO, { recorder: { record: (e) => void events.push(e) } }), session());
    expect(r.items.map((i) => i.status)).toEqual(['published', 'published']);
    for (const item of [1, 2]) {
      const mine = events.filter((e) => e.item === item);
      expect(mine.map((e) => e.type)).toEqual(['item-started', 'media', 'post', 'item-finished']);
      expect(new Set(mine.map((e) => e.key)).size).toBe(1);
      const post = mine.find((e) => e.type === 'post') as Extract<BatchEvent, { type: 'post' }>;
      expect(post.post_id).toBe(r.items[item - 1]!.post_id);
    }
    const finished = events.filter((e) => e.type === 'item-finished') as Extract<BatchEvent, { type: 'item-finished' }>[];
    expect(finished.map((e) => e.outcome.status)).toEqual(expect.arrayContaining(['published', 'published']));
  });

  it('items a journal knows were posted spend no allowance: a rerun after the allowance ran out still reports them', async () => {
    const keys: string[] = [];
    const first = await runBatchCommand(opts(TWO, { recorder: { record: (e) => void (e.type === 'post' && keys.push(e.key)) } }), session());
    expect(first.items.map((i) => i.status)).toEqual(['published', 'published']);
    await spendRestOfAllowance(28);

    // Without the journal's word, the two items count against an allowance of 0.
    const short = await expectError(RateLimitError, () => runBatchCommand(opts(TWO), session()));
    expect(short.message).toMatch(/needs 2 posts of the daily allowance, but 0 are left of 30/);

    const again = await runBatchCommand(opts(TWO, { recorder: { record: () => {}, wasPosted: (k) => keys.includes(k) } }), session());
    expect(again.items.map((i) => [i.status, i.replayed, i.post_id])).toEqual(first.items.map((i) => ['published', true, i.post_id]));
  });
});

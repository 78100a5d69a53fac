/**
 * `vidpub batch` when a write gets no answer: POST /v1/posts dropped on every
 * attempt, or never answered until --timeout. The item says its outcome is
 * unknown (never "failed"), the batch exits 9 as post does, and a rerun of the
 * same manifest settles it through the item's Idempotency-Keys: one post in
 * all. A 4xx refusal is still "failed". The deadline binds the whole run: a
 * write in flight is cut off at --timeout, not only the waits.
 */
import { describe, expect, it } from 'vitest';
import type { Post, RecordedRequest } from '../../src/contract/wire-types.js';
import { batchLines as linesOf, batchManifest as manifest } from '../support/batch.js';
import { runCli } from '../support/cli.js';
import { manualClock, timeUpWhen } from '../support/clock.js';
import { runWaitsCut } from '../support/clocked-run.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const TZ = 'Europe/Paris';
const env = () => ({ ...emu.env(), TZ });
/**
 * A run on a clock that moves only while it waits on it (its retries' backoff, its looks at a post
 * publishing), by the whole of that wait: no real second is spent backing off, and what a run
 * sees does not depend on how fast the machine is.
 */
const run = (argv: string[]) => runWaitsCut(argv, { env: env() });

const api = async (): Promise<RecordedRequest[]> => (await emu.requests()).filter((r) => r.path.startsWith('/v1/'));
/** POST /v1/posts handled for the first time (not replays, not faults). */
const postsHandled = (reqs: RecordedRequest[]) => reqs.filter((r) => r.method === 'POST' && r.path === '/v1/posts' && !r.replayed && r.status > 0 && r.status < 300);
const postsTotal = async (): Promise<number> => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
};

const ITEM = { media: 'med_demo_sample', to: 'linkedin', caption: 'no answer' };
const UNKNOWN_LINE = {
  item: 1,
  line: 1,
  status: 'unknown',
  media_id: 'med_demo_sample',
  post_id: null,
  review_url: null,
  publish_at: 'now',
  destinations: [{ destination_id: 'dst_demo_linkedin', name: '@vidpub-demo (linkedin)', status: 'unknown' }],
};
const unknownError = (why: string) =>
  `outcome unknown: the post may or may not have been created (video med_demo_sample); POST /v1/posts got no answer (${why}); ` +
  'run the batch again to settle it: what was done is replayed, not done twice';
const STDERR_END =
  'Error: The outcome of 1 of 1 item is unknown: a write got no answer, so it may or may not have been done.\n' +
  'Run the same batch again to settle it: what was done is replayed and reported, not done twice.\n';

const TIMEOUT_MS = 5000;
describe('vidpub batch: a write whose answer never came', () => {
  it('POST /v1/posts dropped after handling on every attempt: the item is "unknown", exit 9; the rerun replays it, one post in all', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
    const file = manifest([ITEM]);
    const r = await run(['batch', file]);
    expect(r.code).toBe(9);
    expect(linesOf(r.stdout)).toEqual([{ ...UNKNOWN_LINE, error: unknownError('the connection failed before the service answered') }]);
    expect(r.stderr.endsWith(STDERR_END)).toBe(true);
    expect(r.stderr).toMatch(/^1 {5}unknown {2}med_demo_sample {2}— {5}outcome unknown: the post may or may not/m);
    expect(r.stderr).toMatch(/^1 unknown in .*; \d+ requests/m);
    // Every attempt carried the item's one key; the first was handled, the others replayed it.
    const attempts = (await api()).filter((q) => q.method === 'POST' && q.path === '/v1/posts');
    expect(attempts.length).toBeGreaterThan(1);
    expect(new Set(attempts.map((q) => q.idempotency_key)).size).toBe(1);
    expect(attempts.every((q) => q.fault === 'reset_after_handling')).toBe(true);
    expect(await postsTotal()).toBe(1);

    await emu.admin('DELETE', '/faults');
    const again = await run(['batch', file]);
    expect(again.stderr).not.toMatch(/Error:/);
    expect(again.code).toBe(0);
    const [line, ...more] = linesOf(again.stdout);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ item: 1, status: 'published', media_id: 'med_demo_sample', post_id: expect.stringMatching(/^post_/), replayed: true });
    expect(line!.error).toBeUndefined();
    expect(postsHandled(await api())).toHaveLength(1);
    expect(await postsTotal()).toBe(1);
    expect((await emu.api.get<Post>(`/posts/${line!.post_id}`)).body.status).toBe('completed');
  });

  it('POST /v1/posts dropped before handling on every attempt: "unknown", exit 9; the rerun posts it once', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_before_handling', times: 10 });
    const file = manifest([ITEM]);
    const r = await run(['batch', file, '--json']);
    expect(r.code).toBe(9);
    // With --json stdout is the batch's one document, the unknown item in it as in the line of a run without --json.
    const doc = JSON.parse(r.stdout) as { items: Record<string, unknown>[]; stats: Record<string, unknown> };
    expect(doc.items).toHaveLength(1);
    expect(doc.items[0]).toMatchObject({ item: 1, status: 'unknown', media_id: 'med_demo_sample', post_id: null });
    expect(doc.items[0]!.error).toMatch(/^outcome unknown: the post may or may not have been created \(video med_demo_sample\); POST \/v1\/posts got no answer/);
    expect(doc.stats).toMatchObject({ writes: expect.any(Number) });
    expect(r.stderr).toMatch(/^1 {5}unknown {2}med_demo_sample {2}— {5}outcome unknown: the post may or may not have been created/m);
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toEqual({
      error: {
        type: 'outcome_unknown',
        code: null,
        message: 'The outcome of 1 of 1 item is unknown: a write got no answer, so it may or may not have been done.',
        exit_code: 9,
        hint: 'Run the same batch again to settle it: what was done is replayed and reported, not done twice.',
      },
    });
    expect(postsHandled(await api())).toEqual([]);

    await emu.admin('DELETE', '/faults');
    const again = await run(['batch', file]);
    expect(again.code).toBe(0);
    expect(linesOf(again.stdout).map((o) => [o.status, o.replayed])).toEqual([['published', undefined]]);
    expect(postsHandled(await api())).toHaveLength(1);
    expect(await postsTotal()).toBe(1);
  });

  it('POST /v1/posts never answered: --timeout 5s cuts the write off by the deadline, "unknown", exit 9; the rerun posts it once', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 1 });
    const file = manifest([ITEM]);
    // The deadline's 5 s pass, on a clock moved only by the test, once the post is sent and hangs (the waits before it
    // moved on as they begin): the write is cut off by the deadline itself while it is in flight, long before the
    // client's own 30 s a request; nothing depends on how fast the machine is.
    const manual = manualClock(Date.now());
    const running = runCli(['batch', file, '--timeout', '5s'], { clock: manual, env: env() });
    const sent = async () => (await emu.requests()).some((q) => q.method === 'POST' && q.path === '/v1/posts');
    await timeUpWhen(manual, TIMEOUT_MS, sent, { meanwhile: true, inFlight: true });
    const r = await running;
    expect(r.code).toBe(9);
    expect(linesOf(r.stdout)).toEqual([{ ...UNKNOWN_LINE, error: unknownError('the --timeout was reached before the service answered') }]);
    expect(r.stderr.endsWith(STDERR_END)).toBe(true);
    expect(postsHandled(await api())).toEqual([]);

    await emu.admin('DELETE', '/faults');
    const again = await run(['batch', file]);
    expect(again.code).toBe(0);
    expect(linesOf(again.stdout).map((o) => o.status)).toEqual(['published']);
    expect(postsHandled(await api())).toHaveLength(1);
    expect(await postsTotal()).toBe(1);
  });

  it('POST /v1/media/uploads dropped on every attempt: that item is "unknown" (nothing posted), the other published; exit 9; the rerun finishes it', async () => {
    await emu.fault({ method: 'POST', path: '/v1/media/uploads', action: 'reset_before_handling', times: 10 });
    const file = manifest([ITEM, { file: 'a.mp4', to: 'youtube', caption: 'uploaded' }]);
    const r = await run(['batch', file]);
    expect(r.code).toBe(9);
    const lines = linesOf(r.stdout).sort((a, b) => a.item - b.item);
    expect(lines.map((o) => [o.item, o.status])).toEqual([
      [1, 'published'],
      [2, 'unknown'],
    ]);
    expect(lines[1]).toMatchObject({ media_id: null, post_id: null, destinations: [{ destination_id: 'dst_demo_youtube', status: 'not posted' }] });
    expect(lines[1]!.error).toBe(
      'outcome unknown: the upload may or may not have been created; POST /v1/media/uploads got no answer (the connection failed before the service answered); ' +
        'run the batch again to settle it: what was done is replayed, not done twice',
    );
    expect(r.stderr).toContain('Error: The outcome of 1 of 2 items is unknown');
    expect(r.stderr).toMatch(/^1 published, 1 unknown in /m);

    await emu.admin('DELETE', '/faults');
    const again = await run(['batch', file]);
    expect(again.code).toBe(0);
    const second = linesOf(again.stdout).sort((a, b) => a.item - b.item);
    expect(second.map((o) => [o.item, o.status, o.replayed])).toEqual([
      [1, 'published', true],
      [2, 'published', undefined],
    ]);
    expect(postsHandled(await api())).toHaveLength(2);
    expect(await postsTotal()).toBe(2);
  });

  it('POST /v1/posts refused with a 4xx: the item is still "failed", exit 6', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 422, times: 1 });
    const r = await run(['batch', manifest([ITEM])]);
    expect(r.code).toBe(6);
    const [line] = linesOf(r.stdout);
    expect(line).toMatchObject({ item: 1, status: 'failed', post_id: null });
    expect(line!.error).toMatch(/422/);
    expect(line!.destinations.map((d) => d.status)).toEqual(['not posted']);
    expect(r.stderr).toContain('Error: 1 of 1 item failed.');
    expect(await postsTotal()).toBe(0);
  });
});

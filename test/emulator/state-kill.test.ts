/**
 * The scenario through the real bin: `vidpub emulator --state DIR`
 * with a post scheduled for +2 h, one publishing, an upload completed and an
 * Idempotency-Key used, killed with SIGKILL, started again on the same DIR:
 * after its clock moves +3 h both posts are completed, the key replays, GET
 * /me shows the same day's count and the review page shows the post.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { startBuiltEmulator } from '../support/built-emulator.js';
import { waitFor } from '../support/poll.js';
import { http, Rest, toNextDaySec } from '../support/rest.js';

const dir = mkdtempSync(join(tmpdir(), 'vidpub-state-kill-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function start(args: string[]): Promise<Rest> {
  const { child, baseUrl } = await startBuiltEmulator(['--state', join(dir, 'state'), '--processing-ms', '50', '--publish-ms', '600000', ...args]);
  children.push(child);
  return new Rest({ baseUrl, adminUrl: `${new URL(baseUrl).origin}/_emulator` });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

it('SIGKILL, then a restart on the same DIR: the world goes on where it was', async () => {
  ensureBuilt();
  const first = await start([]);
  // Within 4 h of midnight UTC the day's count would start again under the test: start just after it instead.
  if (toNextDaySec(await first.clockNow()) < 4 * 3600) await first.nextDay();
  const media = await first.uploadReady('clip.mp4', 2000);
  const at = new Date((await first.clockNow()) + 2 * 3600_000).toISOString();
  const later = { media_id: media, caption: 'scheduled before the kill', destinations: [{ destination_id: 'dst_demo_linkedin' }], publish_at: at };
  const scheduled = await first.post('/posts', later, { idem: 'kill-key' });
  expect(scheduled.status).toBe(201);
  const now = await first.post('/posts', { ...later, caption: 'publishing at the kill', publish_at: 'now' });
  expect(now.body.status).toBe('publishing');
  const used = (await first.get('/me')).body.limits.api_posts_per_day.used;
  expect(used).toBe(2);
  await killed(children[0]!);

  // the same port, so that review_url of before the kill still reaches it
  const again = await start(['--port', new URL(first.urls.baseUrl).port]);
  expect((await again.get('/me')).body.limits.api_posts_per_day.used).toBe(used);
  await again.advance(3 * 3600);
  // the scheduled post went out at the jump; its destination takes publish_ms (10 min) as any post's does
  await again.advance(11 * 60);
  for (const id of [scheduled.body.id, now.body.id]) {
    const p = await waitFor(() => again.get(`/posts/${id}`), (r) => r.body.status === 'completed');
    expect(p.body.destinations[0].status).toBe('published');
  }
  const replay = await again.post('/posts', later, { idem: 'kill-key' });
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body.id).toBe(scheduled.body.id);
  expect((await again.get('/me')).body.limits.api_posts_per_day.used).toBe(used);
  const review = await http('GET', scheduled.body.review_url);
  expect(review.status).toBe(200);
  expect(review.text).toContain('scheduled before the kill');
});

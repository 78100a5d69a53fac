/**
 * `vidpub emulator --state DIR` in-process: the world kept in DIR as it
 * changes comes back in a new emulator started on what a kill leaves (a copy
 * of DIR taken while the first still runs: every write is a whole write(2),
 * so a copy at any moment is what a SIGKILL leaves); a last log line cut
 * short is dropped; a reset writes the fixture's world anew.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { http } from '../support/rest.js';

const root = mkdtempSync(join(tmpdir(), 'vidpub-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(root, `s${++n}`);

/** What a kill of the emulator on `dir` would leave: its files as they are now, the lock left out (its process is gone). */
function killedCopy(dir: string): string {
  const copy = freshDir();
  cpSync(dir, copy, { recursive: true, filter: (src) => !src.endsWith('/lock') });
  return copy;
}

const HOUR = 3600;

describe('a state directory', () => {
  it('keeps posts, schedules, counters, idempotency, faults, settings and video bytes across a kill', async () => {
    const dir = freshDir();
    const a = await startTestEmulator({ state: dir, processingMs: 20, publishMs: 600_000 });
    let b: TestEmulator | undefined;
    try {
      expect(a.handle.saved).toMatchObject({ dir, restored: false });
      // The minute's writes are asserted after the restart: the emulator's clock is the real one
      // (plus its offset), so the test starts a second past a whole minute, where the writes and
      // the restart have the minute to themselves (a minute that ended between them, on a busy
      // machine, had emptied the count the test reads).
      await a.api.freshMinute();
      const media = await a.api.uploadReady('clip.mp4', 3000);
      const at = new Date((await a.api.clockNow()) + 2 * HOUR * 1000).toISOString();
      const body = { media_id: media, caption: 'later', destinations: [{ destination_id: 'dst_demo_linkedin' }], publish_at: at };
      const scheduled = await a.api.post('/posts', body, { idem: 'key-1' });
      expect(scheduled.status).toBe(201);
      const now = await a.api.post('/posts', { ...body, caption: 'now', publish_at: 'now' });
      expect(now.body.status).toBe('publishing');
      await a.fault({ media_fail: 'broken' });
      const meBefore = (await a.api.get('/me')).body;
      expect(meBefore.limits.api_posts_per_day.used).toBe(2);

      const copy = killedCopy(dir);
      b = await startTestEmulator({ state: copy, publishMs: undefined }); // its publish_ms is the saved one
      expect(b.handle.saved).toMatchObject({ dir: copy, restored: true, droppedTorn: false });
      const me = (await b.api.get('/me')).body;
      expect(me.limits.api_posts_per_day.used).toBe(2);
      expect(me.usage.posts_today).toBe(2);
      // the minute's writes were kept too: 4 of 20 spent (upload, complete, two posts), and one read more each GET
      expect(me.limits.requests_per_minute.write.used).toBeGreaterThanOrEqual(4);
      expect((await b.admin('GET', '/settings')).publish_ms).toBe(600_000);
      expect((await b.admin('GET', '/settings')).processing_ms).toBe(30); // given at this start: it wins
      expect((await b.admin('GET', '/faults')).media_fail).toEqual(['broken']);
      const replay = await b.api.post('/posts', body, { idem: 'key-1' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.id).toBe(scheduled.body.id);
      const video = await http('GET', `${b.adminUrl}/app/videos/${media}`);
      expect(video.status).toBe(200);
      expect(Number(video.headers['content-length'])).toBe(3000);

      // +3 h: the scheduled post goes out at +2 h; each destination then takes publish_ms (10 min) to publish
      await b.advance(3 * HOUR);
      await b.advance(700);
      for (const id of [scheduled.body.id, now.body.id]) {
        const p = await b.api.get(`/posts/${id}`);
        expect(p.body.status, id).toBe('completed');
        expect(p.body.destinations[0].status).toBe('published');
      }
      const review = await http('GET', scheduled.body.review_url.replace(a.adminUrl, b.adminUrl));
      expect(review.status).toBe(200);
      expect(review.text).toContain('later');
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it('drops a last log line cut short (a kill during its write), and reads the rest', async () => {
    const dir = freshDir();
    const a = await startTestEmulator({ state: dir });
    const media = await a.api.uploadReady();
    await a.close();
    appendFileSync(join(dir, 'log.jsonl'), '{"s":99999,"o":[["r","p","ws_demo",{"id":"post_cut');
    const b = await startTestEmulator({ state: dir });
    try {
      expect(b.handle.saved).toMatchObject({ restored: true, droppedTorn: true });
      expect((await b.api.get(`/media/${media}`)).body.status).toBe('ready');
      expect(readFileSync(join(dir, 'log.jsonl'), 'utf8')).not.toContain('post_cut'); // folded into a new snapshot
    } finally {
      await b.close();
    }
  });

  it('an Idempotency-Key whose request was held (a delay fault) while others were answered is kept once answered', async () => {
    const dir = freshDir();
    const a = await startTestEmulator({ state: dir });
    let b: TestEmulator | undefined;
    try {
      await a.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 1500 });
      const body = { media_id: 'med_demo_sample', caption: 'held', destinations: [{ destination_id: 'dst_demo_linkedin' }] };
      const held = a.api.post('/posts', body, { idem: 'held-key' });
      await waitFor(() => a.took('delay', 'POST', '/v1/posts'), (took) => took);
      expect((await a.api.get('/me')).status).toBe(200); // answered (and its changes written) while the post is held
      const first = await held;
      expect(first.status).toBe(201);
      b = await startTestEmulator({ state: killedCopy(dir) });
      const replay = await b.api.post('/posts', body, { idem: 'held-key' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.id).toBe(first.body.id);
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it('an upload whose bytes were still coming while other requests were answered is kept once it is answered', async () => {
    const dir = freshDir();
    const a = await startTestEmulator({ state: dir, processingMs: 10 });
    let b: TestEmulator | undefined;
    try {
      const c = await a.api.post('/media/uploads', { filename: 'slow.mp4', size_bytes: 2000, content_type: 'video/mp4' });
      const put = request(c.body.upload.url, { method: 'PUT', headers: c.body.upload.headers });
      const answered = new Promise<number>((resolve, reject) => {
        put.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        put.on('error', reject);
      });
      put.write(Buffer.alloc(1000, 1));
      await waitFor(() => a.api.get(`/media/${c.body.media.id}`), (r) => r.body.progress?.percent === 50);
      put.end(Buffer.alloc(1000, 2)); // the GETs above were answered (and written) while the upload was receiving
      expect(await answered).toBe(200);
      b = await startTestEmulator({ state: killedCopy(dir), processingMs: 10 });
      expect((await b.api.post(`/media/${c.body.media.id}/complete`)).status).toBe(200);
      const video = await http('GET', `${b.adminUrl}/app/videos/${c.body.media.id}`);
      expect(Number(video.headers['content-length'])).toBe(2000);
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it('a reset empties it to the fixture, kept so after a restart', async () => {
    const dir = freshDir();
    const a = await startTestEmulator({ state: dir });
    // A second emulator on the same DIR is refused, naming the process that holds it.
    await expect(startTestEmulator({ state: dir })).rejects.toThrow(`the emulator state ${dir} is in use by another emulator (held by process ${process.pid}); nothing was written.`);
    const media = await a.api.uploadReady();
    await a.advance(HOUR);
    await a.reset();
    await a.close();
    const b = await startTestEmulator({ state: dir });
    try {
      const state = await b.admin('GET', '/state');
      expect(state.offset_sec).toBe(0);
      expect(state.workspaces.find((w: { name: string }) => w.name === 'Demo').media_ids).toEqual(['med_demo_sample', 'med_demo_long']);
      expect((await b.api.get(`/media/${media}`)).status).toBe(404);
      expect(existsSync(join(dir, 'lock'))).toBe(true);
    } finally {
      await b.close();
    }
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });
});

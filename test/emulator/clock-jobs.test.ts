/**
 * The emulator's background jobs (processing, publishing) follow its clock:
 * moved past a job's time (POST /_emulator/clock, or an injected time source
 * that jumps), the job runs at once instead of after real time. Timings here
 * are a minute long, so only the clock can have finished them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { http, type Json } from '../support/rest.js';

const MINUTE = { processingMs: 60_000, publishMs: 60_000 };
let emu: TestEmulator | undefined;
afterEach(() => emu?.close());

/** Uploads a few bytes and completes the upload: the video is processing. */
async function processingVideo(on: TestEmulator): Promise<string> {
  const c = await on.api.post('/media/uploads', { filename: 'clip.mp4', size_bytes: 3, content_type: 'video/mp4' });
  expect(c.status).toBe(201);
  expect((await http('PUT', c.body.upload.url, { headers: c.body.upload.headers, body: 'xyz' })).status).toBe(200);
  expect((await on.api.post(`/media/${c.body.media.id}/complete`)).status).toBe(200);
  return c.body.media.id as string;
}

const media = async (on: TestEmulator, id: string): Promise<Json> => (await on.api.get(`/media/${id}`)).body;

describe('background jobs on the emulator clock', () => {
  it('processing reports its quarters as the clock passes them, and ends when the clock passes its end', async () => {
    emu = await startTestEmulator(MINUTE);
    const id = await processingVideo(emu);
    expect(await media(emu, id)).toMatchObject({ status: 'processing', progress: { percent: 0 } });
    await emu.advance(16);
    expect(await media(emu, id)).toMatchObject({ status: 'processing', progress: { percent: 25 } });
    await emu.advance(45);
    expect((await media(emu, id)).status).toBe('ready');
    expect((await emu.admin('GET', '/state')).background_timers).toBe(0);
  });

  it('a destination publishing ends when the clock passes its time; the next one takes its own minute', async () => {
    emu = await startTestEmulator(MINUTE);
    const destinations = [{ destination_id: 'dst_demo_youtube' }, { destination_id: 'dst_demo_linkedin' }];
    const p = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'x', publish_at: 'now', destinations });
    expect(p.status).toBe(201);
    const statuses = async () => ((await emu!.api.get(`/posts/${p.body.id}`)).body.destinations as Json[]).map((d) => d.status);
    expect(await statuses()).toEqual(['publishing', 'publishing']);
    await emu.advance(61);
    expect(await statuses()).toEqual(['published', 'publishing']);
    await emu.advance(60);
    expect(await statuses()).toEqual(['published', 'published']);
    expect((await emu.api.get(`/posts/${p.body.id}`)).body.status).toBe('completed');
  });

  it('an injected time source that jumps runs the jobs it passed, on the next tick', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    emu = await startTestEmulator({ ...MINUTE, now: () => now });
    const id = await processingVideo(emu);
    expect((await media(emu, id)).status).toBe('processing');
    now += 61_000;
    await waitFor(() => media(emu!, id), (m) => m.status === 'ready', 2000);
  });

  it('a reset drops the jobs: moving the clock afterwards finishes nothing', async () => {
    emu = await startTestEmulator(MINUTE);
    await processingVideo(emu);
    await emu.reset();
    expect((await emu.admin('GET', '/state')).background_timers).toBe(0);
    await emu.advance(61);
    expect((await emu.admin('GET', '/state')).background_timers).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { type Rest, KEYS } from '../support/rest.js';

const emu = useEmulator();

const DRAFT = { media_id: 'med_demo_sample', caption: 'idem', destinations: [{ destination_id: 'dst_demo_youtube' }] };
const posts = async (c: Rest = emu.api, ws = 0): Promise<number> => (await c.admin('GET', '/state')).body.workspaces[ws].posts.total;

describe('Idempotency-Key', () => {
  it('replays the first response (status and body) with Idempotent-Replayed: true and does not repeat the action', async () => {
    await emu.api.freshMinute(); // one minute window for the two writes counted below
    const first = await emu.api.post('/posts', DRAFT, { idem: 'key-1' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await emu.api.call('POST', '/posts', { raw: JSON.stringify({ destinations: DRAFT.destinations, caption: 'idem', media_id: 'med_demo_sample' }, null, 2), idem: 'key-1' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await posts()).toBe(1);
    // a replay is still a request: it is counted
    expect(again.headers['x-ratelimit-remaining']).toBe('18');
    const log = await emu.api.requests();
    expect(log.map((e) => [e.idempotency_key, e.replayed, e.status])).toEqual([['key-1', false, 201], ['key-1', true, 201]]);
  });

  it('replays error responses too (a 400 and a 409), but not for a new key', async () => {
    const bad = await emu.api.post('/posts', { media_id: 'med_demo_sample' }, { idem: 'key-err' });
    expect(bad.status).toBe(400);
    const badAgain = await emu.api.post('/posts', { media_id: 'med_demo_sample' }, { idem: 'key-err' });
    expect(badAgain.status).toBe(400);
    expect(badAgain.headers['idempotent-replayed']).toBe('true');
    expect(badAgain.body).toEqual(bad.body);
    const up = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 5, content_type: 'video/mp4' });
    const conflict = await emu.api.post(`/media/${up.body.media.id}/complete`, undefined, { idem: 'key-409' });
    expect(conflict.status).toBe(409);
    const replay = await emu.api.post(`/media/${up.body.media.id}/complete`, undefined, { idem: 'key-409' });
    expect(replay.status).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.error.code).toBe('upload_incomplete');
    const fresh = await emu.api.post('/posts', { media_id: 'med_demo_sample' }, { idem: 'key-new' });
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
  });

  it('400 idempotency_key_reused for a different body, path or method under the same key', async () => {
    await emu.api.post('/posts', DRAFT, { idem: 'key-2' });
    const body = await emu.api.post('/posts', { ...DRAFT, caption: 'other' }, { idem: 'key-2' });
    expect(body.status).toBe(400);
    expect(body.body.error).toMatchObject({ type: 'invalid_request', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    const path = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 1, content_type: 'video/mp4' }, { idem: 'key-2' });
    expect(path.status).toBe(400);
    expect(path.body.error.code).toBe('idempotency_key_reused');
    expect(await posts()).toBe(1);
  });

  it('409 idempotency_key_in_use while the first request is still being handled (delay fault)', async () => {
    await emu.api.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 1000, times: 1 });
    const started = Date.now();
    const first = emu.api.post('/posts', DRAFT, { idem: 'key-3' });
    // Admitted: its write is counted, and in the same step its key is taken (then the delay holds it).
    await waitFor(async () => (await emu.api.get('/me')).body.limits.requests_per_minute.write.used as number, (used) => used === 1, 30_000);
    const second = await emu.api.post('/posts', DRAFT, { idem: 'key-3' });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ type: 'conflict', code: 'idempotency_key_in_use' });
    const firstRes = await first;
    expect(firstRes.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    const third = await emu.api.post('/posts', DRAFT, { idem: 'key-3' });
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.body.id).toBe(firstRes.body.id);
    expect(await posts()).toBe(1);
  });

  it('a 429 is not stored: the retry with the same key runs again', async () => {
    await emu.api.admin('POST', '/settings', { processing_ms: 1000 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      if (i === 1) await emu.api.admin('POST', '/settings', { processing_ms: 60_000 });
      ids.push((await emu.api.post('/media/imports', { url: `https://cdn.example.com/${i}.mp4` })).body.id);
    }
    const refused = await emu.api.post('/media/imports', { url: 'https://cdn.example.com/6.mp4' }, { idem: 'key-429' });
    expect(refused.status).toBe(429);
    await waitFor(() => emu.api.get(`/media/${ids[0]}`), (m) => m.body.status !== 'uploading');
    const retry = await emu.api.post('/media/imports', { url: 'https://cdn.example.com/6.mp4' }, { idem: 'key-429' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('is scoped per workspace and lasts 24 hours', async () => {
    const a = await emu.api.post('/posts', DRAFT, { idem: 'shared' });
    const second = emu.api.as(KEYS.second_rw);
    const b = await second.post('/posts', { ...DRAFT, media_id: 'med_second_sample', destinations: [{ destination_id: 'dst_second_youtube' }] }, { idem: 'shared' });
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.id).not.toBe(a.body.id);

    await emu.api.advance(23 * 3600);
    expect((await emu.api.post('/posts', DRAFT, { idem: 'shared' })).headers['idempotent-replayed']).toBe('true');
    await emu.api.advance(3601);
    const fresh = await emu.api.post('/posts', DRAFT, { idem: 'shared' });
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.id).not.toBe(a.body.id);
  });

  it('keys up to 255 characters; longer is a 400', async () => {
    expect((await emu.api.post('/posts', DRAFT, { idem: 'k'.repeat(255) })).status).toBe(201);
    const long = await emu.api.post('/posts', DRAFT, { idem: 'k'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: 'invalid_field', param: 'Idempotency-Key' });
  });

  it('is ignored on GET', async () => {
    const r1 = await emu.api.get('/me', { idem: 'g' });
    const r2 = await emu.api.get('/me', { idem: 'g' });
    expect(r2.headers['idempotent-replayed']).toBeUndefined();
    expect(r2.body.limits.requests_per_minute.read.used).toBe(r1.body.limits.requests_per_minute.read.used + 1);
  });
});

import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startTestEmulator, useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { KEYS, http, type Json } from '../support/rest.js';

const emu = useEmulator();

describe('handle and start info', () => {
  it('exposes base_url, admin_url, port and the usable keys', () => {
    expect(emu.baseUrl).toBe(`http://127.0.0.1:${emu.port}/v1`);
    expect(emu.adminUrl).toBe(`http://127.0.0.1:${emu.port}/_emulator`);
    expect(emu.info).toEqual({ base_url: emu.baseUrl, admin_url: emu.adminUrl, keys: emu.keys });
    expect(emu.keys).toEqual([
      { key: KEYS.demo_rw, workspace: 'Demo', plan: 'standard', access: 'read_write' },
      { key: KEYS.demo_read, workspace: 'Demo', plan: 'standard', access: 'read' },
      { key: KEYS.second_rw, workspace: 'Demo Second', plan: 'standard', access: 'read_write' },
      { key: KEYS.studio_rw, workspace: 'Studio', plan: 'studio', access: 'read_write' },
      // a Free-plan workspace has no API access, whatever the key's own access
      { key: KEYS.free_rw, workspace: 'Free', plan: 'free', access: 'none' },
    ]);
  });

  it('GET /_emulator describes the controls', async () => {
    const r = await emu.api.admin('GET', '');
    expect(r.status).toBe(200);
    expect(r.body.base_url).toBe(emu.baseUrl);
    expect(r.body.controls).toContain('POST /_emulator/reset');
  });
});

describe('request log', () => {
  it('records /v1 and upload requests in order, without /_emulator, query strings or key values', async () => {
    await emu.api.get('/me');
    await emu.api.get('/me', { key: null });
    const up = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 3, content_type: 'video/mp4' }, { idem: 'abc' });
    await http('PUT', up.body.upload.url, { headers: up.body.upload.headers, body: 'xyz' });
    await http('GET', `${emu.baseUrl}/nope?x=1`);
    await emu.api.admin('GET', '/state');
    const log = await emu.api.requests();
    expect(log).toEqual([
      { method: 'GET', path: '/v1/me', status: 200, authorization: true, idempotency_key: null, replayed: false, fault: null },
      { method: 'GET', path: '/v1/me', status: 401, authorization: false, idempotency_key: null, replayed: false, fault: null },
      { method: 'POST', path: '/v1/media/uploads', status: 201, authorization: true, idempotency_key: 'abc', replayed: false, fault: null },
      { method: 'PUT', path: `/_uploads/${up.body.media.id}`, status: 200, authorization: false, idempotency_key: null, replayed: false, fault: null },
      { method: 'GET', path: '/v1/nope', status: 404, authorization: false, idempotency_key: null, replayed: false, fault: null },
    ]);
    expect(JSON.stringify(log)).not.toContain('vp_live_');
    expect(JSON.stringify(log)).not.toContain('sig=');
    expect((await emu.api.admin('DELETE', '/requests')).status).toBe(200);
    expect(await emu.api.requests()).toEqual([]);
  });
});

describe('clock, reset, settings, state', () => {
  it('POST /_emulator/clock moves the clock forward and returns the new time; 400 for bad input', async () => {
    const t0 = Date.parse((await emu.api.admin('GET', '/clock')).body.now);
    const r = await emu.api.advance(86_400);
    expect(r.status).toBe(200);
    expect(r.body.offset_sec).toBe(86_400);
    expect(Date.parse(r.body.now) - t0).toBeGreaterThanOrEqual(86_400_000);
    expect(Date.parse(r.body.now) - t0).toBeLessThan(86_400_000 + 5000);
    for (const body of [{ advance_sec: -5 }, { advance_sec: 'soon' }, {}]) {
      const bad = await emu.api.admin('POST', '/clock', body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('advance_sec');
    }
    const malformed = await http('POST', `${emu.adminUrl}/clock`, { headers: { 'content-type': 'application/json' }, body: '{' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_json');
  });

  it('POST /_emulator/reset restores fixture state, counters, clock, faults, settings and log', async () => {
    await emu.api.post('/posts', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' });
    await emu.api.advance(100);
    await emu.api.fault({ media_fail: 'x' });
    await emu.api.admin('POST', '/settings', { processing_ms: 999 });
    await emu.api.admin('POST', '/destinations/dst_demo_instagram', { status: 'active' });
    const r = await emu.api.reset();
    expect(r.status).toBe(200);
    expect((await emu.api.admin('GET', '/clock')).body.offset_sec).toBe(0);
    expect((await emu.api.admin('GET', '/faults')).body.media_fail).toEqual([]);
    expect((await emu.api.admin('GET', '/settings')).body).toEqual({ processing_ms: 30, publish_ms: 30, upload_link_ttl_sec: 3600 });
    expect(await emu.api.requests()).toEqual([]);
    const me = await emu.api.get('/me');
    expect(me.body.usage).toEqual({ posts_today: 0, media_count: 2, post_count: 0 });
    expect(me.body.limits.api_posts_per_day.used).toBe(0);
    expect(me.body.limits.requests_per_minute.write.used).toBe(0);
    expect((await emu.api.get('/destinations')).body.data[3].status).toBe('disconnected');
  });

  it('GET /_emulator/state summarizes each workspace', async () => {
    await emu.api.post('/posts', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube' }] });
    await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 3, content_type: 'video/mp4' });
    const s = await emu.api.admin('GET', '/state');
    expect(s.body.settings).toEqual({ processing_ms: 30, publish_ms: 30, upload_link_ttl_sec: 3600 });
    const demo = s.body.workspaces.find((w: Json) => w.id === 'ws_demo');
    expect(demo).toMatchObject({
      name: 'Demo',
      account: 'acct_demo',
      plan: 'standard',
      media: { total: 3, uploading: 1, processing: 0, ready: 2, failed: 0, imports_downloading: 0 },
      posts: { total: 1, draft: 1, scheduled: 0, publishing: 0, completed: 0 },
      posts_today: 0,
      api_posts_per_day: { limit: 30, used: 0, remaining: 30, scope: 'account' },
    });
    expect(s.body.workspaces.map((w: Json) => w.name)).toEqual(['Demo', 'Demo Second', 'Studio', 'Free']);
  });

  it('POST /_emulator/settings validates its input', async () => {
    expect((await emu.api.admin('POST', '/settings', { processing_ms: -1 })).status).toBe(400);
    expect((await emu.api.admin('POST', '/settings', { speed: 2 })).body.error.param).toBe('speed');
    expect((await emu.api.admin('POST', '/settings', { upload_link_ttl_sec: 60 })).body.upload_link_ttl_sec).toBe(60);
    const up = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 3, content_type: 'video/mp4' });
    expect(Date.parse(up.body.upload.expires_at) - Date.parse(up.body.media.created_at)).toBeLessThanOrEqual(60_000);
  });

  it('POST /_emulator/destinations/{id} changes a destination status; 404 / 400 otherwise', async () => {
    const r = await emu.api.admin('POST', '/destinations/dst_demo_youtube', { status: 'expired' });
    expect(r.body).toEqual({ id: 'dst_demo_youtube', workspace: 'ws_demo', status: 'expired' });
    expect((await emu.api.get('/destinations')).body.data[1].status).toBe('expired');
    expect((await emu.api.admin('POST', '/destinations/dst_nope', { status: 'active' })).status).toBe(404);
    expect((await emu.api.admin('POST', '/destinations/dst_demo_youtube', { status: 'gone' })).status).toBe(400);
  });

  it('POST /_emulator/destinations/{id} {"options"} changes what an option takes; posts are checked against it', async () => {
    const r = await emu.api.admin('POST', '/destinations/dst_demo_youtube', { options: [{ key: 'visibility', values: ['public', 'unlisted'], default: 'unlisted' }] });
    expect(r.status).toBe(200);
    expect(r.body.options[0]).toMatchObject({ key: 'visibility', values: ['public', 'unlisted'], default: 'unlisted', required: true });
    expect((await emu.api.get('/destinations/dst_demo_youtube/options')).body.options[0]).toMatchObject({ values: ['public', 'unlisted'], default: 'unlisted' });
    const refused = await emu.api.post('/posts', {
      media_id: 'med_demo_sample',
      caption: 'x',
      destinations: [{ destination_id: 'dst_demo_youtube', options: { visibility: 'private' } }],
      publish_at: 'now',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.issues).toContainEqual(expect.objectContaining({ code: 'option_value_not_allowed', destination_id: 'dst_demo_youtube', option: 'visibility' }));
    for (const [body, param] of [
      [{}, undefined],
      [{ options: 'x' }, 'options'],
      [{ options: [{ key: 'nope' }] }, 'options[0].key'],
      [{ options: [{ key: 'visibility', values: [1] }] }, 'options[0].values'],
      [{ options: [{ key: 'visibility', default: 3 }] }, 'options[0].default'],
      [{ options: [{ key: 'visibility', required: 'yes' }] }, 'options[0].required'],
    ] as const) {
      const bad = await emu.api.admin('POST', '/destinations/dst_demo_youtube', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.param).toBe(param);
    }
  });

  it('DELETE /_emulator/destinations/{id} removes the account: not listed, a post naming it is 404', async () => {
    const r = await emu.api.admin('DELETE', '/destinations/dst_demo_youtube');
    expect(r.body).toEqual({ id: 'dst_demo_youtube', workspace: 'ws_demo', removed: true });
    expect((await emu.api.get('/destinations')).body.data.map((d: Json) => d.id)).not.toContain('dst_demo_youtube');
    const post = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' });
    expect(post.status).toBe(404);
    expect(post.body.error.param).toBe('destinations[0].destination_id');
    expect((await emu.api.admin('DELETE', '/destinations/dst_demo_youtube')).status).toBe(404);
    await emu.api.reset();
    expect((await emu.api.get('/destinations')).body.data.map((d: Json) => d.id)).toContain('dst_demo_youtube');
  });
});

describe('HTTP robustness', () => {
  it('unknown paths are a JSON 404, for /v1, the root and a wrong method', async () => {
    for (const [method, path] of [['GET', `${emu.baseUrl}/unknown`], ['GET', `http://127.0.0.1:${emu.port}/`], ['POST', `${emu.baseUrl}/me`], ['DELETE', `${emu.baseUrl}/posts/x`]] as const) {
      const r = await http(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.headers['content-type']).toContain('application/json');
      expect(r.body.error).toMatchObject({ type: 'not_found', code: 'not_found' });
    }
  });

  it('malformed JSON is a 400 invalid_json; an empty JSON body on create is a 400 missing_field', async () => {
    const r = await emu.api.call('POST', '/media/uploads', { raw: '{"filename": ' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_json' });
    const empty = await emu.api.call('POST', '/media/uploads', { raw: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('missing_field');
  });

  it('a body over 1 MiB is a 413; an invalid Content-Type header a 400', async () => {
    const big = await emu.api.call('POST', '/posts', { raw: JSON.stringify({ caption: 'x'.repeat(1_100_000) }) });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ type: 'invalid_request', code: 'body_too_large' });
    const badCt = await emu.api.call('POST', '/posts', { raw: '{}', headers: { 'content-type': '???' } });
    expect(badCt.status).toBe(400);
    expect(badCt.body.error.type).toBe('invalid_request');
  });

  it('close() does not hang on keep-alive connections, in-flight delays, uploads or background work', async () => {
    // Everything close() must not wait for lasts ten minutes (or forever: the upload's bytes never end),
    // so a close that waits for any of it fails the bound below by far, however loaded the machine.
    const other = await startTestEmulator({ processingMs: 600_000, publishMs: 600_000 });
    await other.api.get('/me'); // keep-alive socket stays open
    await other.api.post('/media/imports', { url: 'https://cdn.example.com/slow.mp4' });
    await other.api.post('/posts', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' });
    const up = await other.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 1_000_000, content_type: 'video/mp4' });
    let release = (): void => undefined;
    const never = new Promise<void>((r) => { release = r; });
    async function* slow(): AsyncIterable<Buffer> {
      yield Buffer.alloc(1000);
      await never;
    }
    const hanging = request(up.body.upload.url, { method: 'PUT', headers: up.body.upload.headers, body: Readable.from(slow()) }).catch((e: Error) => e);
    await other.api.fault({ method: 'GET', path: '/v1/destinations', action: 'delay', ms: 600_000 });
    const delayed = other.api.get('/destinations').catch((e: Error) => e);
    // close() once both requests are in the service's hands (the request log shows them), not after a pause.
    await waitFor(() => other.api.requests(), (log) => log.some((q) => q.method === 'PUT') && log.some((q) => q.path === '/v1/destinations'), 60_000);
    const t0 = Date.now();
    await other.close();
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(await delayed).toBeInstanceOf(Error);
    expect(await hanging).toBeInstanceOf(Error);
    release();
    await other.close(); // twice is fine
  });

  it('startEmulator refuses a port in use with a clear message', async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    await expect(startEmulator({ port: emu.port })).rejects.toThrow(/port is already in use \(EADDRINUSE\)/);
    await expect(startEmulator({ port: emu.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

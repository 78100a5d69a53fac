import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { http } from '../support/rest.js';

const emu = useEmulator();

const DRAFT = { media_id: 'med_demo_sample', caption: 'f', destinations: [{ destination_id: 'dst_demo_youtube' }] };
const posts = async (): Promise<number> => (await emu.api.admin('GET', '/state')).body.workspaces[0].posts.total;

describe('request faults', () => {
  it('reset_after_handling: the post is made, the connection drops; the retry with the same key replays', async () => {
    const added = await emu.api.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 1 });
    expect(added.status).toBe(201);
    expect(added.body.added[0]).toMatchObject({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 1 });
    await expect(emu.api.post('/posts', DRAFT, { idem: 'retry-me' })).rejects.toThrow();
    expect(await posts()).toBe(1);
    const retry = await emu.api.post('/posts', DRAFT, { idem: 'retry-me' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await posts()).toBe(1);
    const log = await emu.api.requests();
    expect(log).toEqual([
      { method: 'POST', path: '/v1/posts', status: 201, authorization: true, idempotency_key: 'retry-me', replayed: false, fault: 'reset_after_handling' },
      { method: 'POST', path: '/v1/posts', status: 201, authorization: true, idempotency_key: 'retry-me', replayed: true, fault: null },
    ]);
  });

  it('reset_before_handling (times 2): nothing happens, the connection drops twice, then normal', async () => {
    await emu.api.fault({ method: 'POST', path: '/v1/posts', action: 'reset_before_handling', times: 2 });
    await expect(emu.api.post('/posts', DRAFT)).rejects.toThrow();
    await expect(emu.api.post('/posts', DRAFT)).rejects.toThrow();
    expect(await posts()).toBe(0);
    expect((await emu.api.get('/me')).body.limits.requests_per_minute.write.used).toBe(0);
    expect((await emu.api.post('/posts', DRAFT)).status).toBe(201);
    const log = await emu.api.requests();
    expect(log.slice(0, 2).map((e) => [e.status, e.fault])).toEqual([[0, 'reset_before_handling'], [0, 'reset_before_handling']]);
  });

  it('status 503 (times 2): a JSON error body without handling, then normal', async () => {
    await emu.api.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 503, times: 2 });
    for (let i = 0; i < 2; i++) {
      const r = await emu.api.get('/me');
      expect(r.status).toBe(503);
      expect(r.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const ok = await emu.api.get('/me');
    expect(ok.status).toBe(200);
    expect(ok.body.limits.requests_per_minute.read.used).toBe(1);
  });

  it('status 502 with an HTML body and content type', async () => {
    await emu.api.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 502, content_type: 'text/html', body: '<html>Bad gateway</html>' });
    const r = await emu.api.post('/posts', DRAFT);
    expect(r.status).toBe(502);
    expect(r.headers['content-type']).toBe('text/html');
    expect(r.text).toBe('<html>Bad gateway</html>');
    expect(r.headers['retry-after']).toBeUndefined();
    expect(await posts()).toBe(0);
  });

  it('status 429 with retry_after; retry_after null sends none', async () => {
    await emu.api.fault([
      { method: 'GET', path: '/v1/destinations', action: 'status', status: 429, retry_after: 7 },
      { method: 'GET', path: '/v1/destinations', action: 'status', status: 429, retry_after: null },
    ]);
    const a = await emu.api.get('/destinations');
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('7');
    expect(a.body.error).toMatchObject({ type: 'rate_limited', code: 'requests_per_minute' });
    const b = await emu.api.get('/destinations');
    expect(b.status).toBe(429);
    expect(b.headers['retry-after']).toBeUndefined();
    expect((await emu.api.get('/destinations')).status).toBe(200);
  });

  it('delay holds the response for ms', async () => {
    await emu.api.fault({ method: 'GET', path: '/v1/me', action: 'delay', ms: 500, times: 1 });
    const t0 = Date.now();
    expect((await emu.api.get('/me')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(495);
    expect((await emu.api.get('/me')).status).toBe(200);
    // times: 1, so no delay this time (read in the request log, not timed: a loaded machine is slow anyway).
    expect((await emu.api.requests()).map((e) => [e.path, e.fault])).toEqual([['/v1/me', 'delay'], ['/v1/me', null]]);
  });

  it('a path ending in * is a prefix: the upload PUT can be faulted; method * matches any method', async () => {
    const up = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 10, content_type: 'video/mp4' });
    await emu.api.fault({ method: 'PUT', path: '/_uploads/*', action: 'status', status: 500 });
    const failed = await http('PUT', up.body.upload.url, { headers: up.body.upload.headers, body: Buffer.alloc(10) });
    expect(failed.status).toBe(500);
    expect(failed.body.error.type).toBe('api_error');
    const ok = await http('PUT', up.body.upload.url, { headers: up.body.upload.headers, body: Buffer.alloc(10) });
    expect(ok.status).toBe(200);

    await emu.api.fault({ method: '*', path: '/v1/*', action: 'status', status: 504, times: 2 });
    expect((await emu.api.get('/destinations')).status).toBe(504);
    expect((await emu.api.post('/posts', DRAFT)).status).toBe(504);
    expect((await emu.api.get('/destinations')).status).toBe(200);
  });

  it('reset_after_handling on the upload PUT: bytes counted, then a retry says the link was used; complete works', async () => {
    const up = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 1000, content_type: 'video/mp4' });
    await emu.api.fault({ method: 'PUT', path: '/_uploads/*', action: 'reset_after_handling' });
    await expect(http('PUT', up.body.upload.url, { headers: up.body.upload.headers, body: Buffer.alloc(1000) })).rejects.toThrow();
    const again = await http('PUT', up.body.upload.url, { headers: up.body.upload.headers, body: Buffer.alloc(1000) });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('upload_link_used');
    expect((await emu.api.post(`/media/${up.body.media.id}/complete`)).body.status).toBe('processing');
  });

  it('does not match another method or path', async () => {
    await emu.api.fault({ method: 'POST', path: '/v1/me', action: 'status', status: 500 });
    expect((await emu.api.get('/me')).status).toBe(200);
    expect((await emu.api.get('/destinations')).status).toBe(200);
    expect((await emu.api.admin('GET', '/faults')).body.requests).toHaveLength(1);
  });

  it('GET lists and DELETE /_emulator/faults clears every fault', async () => {
    await emu.api.fault([
      { method: 'GET', path: '/v1/me', action: 'status', status: 500, times: 3 },
      { media_fail: 'x' },
      { destination_fail: 'dst_demo_youtube' },
    ]);
    const listed = await emu.api.admin('GET', '/faults');
    expect(listed.body.requests[0]).toMatchObject({ method: 'GET', path: '/v1/me', action: 'status', status: 500, times: 3 });
    expect(listed.body.media_fail).toEqual(['x']);
    expect(listed.body.destination_fail).toEqual(['dst_demo_youtube']);
    const cleared = await emu.api.admin('DELETE', '/faults');
    expect(cleared.body.faults).toEqual({ requests: [], media_fail: [], destination_fail: [] });
    expect((await emu.api.get('/me')).status).toBe(200);
  });

  it('400 for an invalid fault', async () => {
    const bad = [
      { method: 'GET', path: '/v1/me', action: 'explode' },
      { method: 'GET', path: 'v1/me', action: 'status', status: 500 },
      { method: 'GET', path: '/v1/me', action: 'status' },
      { method: 'GET', path: '/v1/me', action: 'delay' },
      { method: 'GET', path: '/v1/me', action: 'status', status: 503, times: 0 },
      { media_fail: '' },
    ];
    for (const f of bad) {
      const r = await emu.api.fault(f);
      expect(r.status, JSON.stringify(f)).toBe(400);
      expect(r.body.error.type).toBe('invalid_request');
    }
    expect((await emu.api.admin('GET', '/faults')).body.requests).toEqual([]);
  });
});

import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { sleep, waitFor } from '../support/poll.js';
import { http, type Json } from '../support/rest.js';

const emu = useEmulator();

async function create(size = 1000, filename = 'clip.mp4', contentType = 'video/mp4'): Promise<Json> {
  const r = await emu.api.post('/media/uploads', { filename, size_bytes: size, content_type: contentType });
  expect(r.status).toBe(201);
  return r.body;
}

const put = (up: Json, body: string | Buffer | AsyncIterable<Buffer>, headers: Record<string, string> = up.upload.headers) =>
  http('PUT', up.upload.url, { headers, body });

async function* chunks(total: number, chunkSize: number, between?: (sent: number) => Promise<void>): AsyncIterable<Buffer> {
  const buf = Buffer.alloc(chunkSize, 7);
  let sent = 0;
  while (sent < total) {
    const n = Math.min(chunkSize, total - sent);
    yield n === chunkSize ? buf : buf.subarray(0, n);
    sent += n;
    if (between) await between(sent);
  }
}

describe('POST /media/uploads', () => {
  it('returns the media (uploading) and a signed PUT target', async () => {
    const r = await emu.api.post('/media/uploads', { filename: 'clip.mp4', size_bytes: 1234, content_type: 'VIDEO/MP4' });
    expect(r.status).toBe(201);
    expect(r.body.media).toMatchObject({
      status: 'uploading',
      filename: 'clip.mp4',
      content_type: 'video/mp4',
      size_bytes: 1234,
      source: 'upload',
      progress: { phase: 'uploading', percent: 0 },
    });
    expect(r.body.media.id).toMatch(/^med_[0-9a-f]{16}$/);
    const up = r.body.upload;
    expect(up.method).toBe('PUT');
    expect(up.headers).toEqual({ 'Content-Type': 'video/mp4', 'X-Upload-Length': '1234' });
    expect(up.url).toMatch(new RegExp(`^${emu.baseUrl.replace('/v1', '')}/_uploads/${r.body.media.id}\\?expires=\\d+&sig=[0-9a-f]{64}$`));
    const ttl = Date.parse(up.expires_at) - Date.parse(r.body.media.created_at);
    expect(ttl).toBeGreaterThan(3595_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
  });

  it('validates filename, size_bytes and content_type', async () => {
    const cases: [Json, number, string, string][] = [
      [{ size_bytes: 10, content_type: 'video/mp4' }, 400, 'missing_field', 'filename'],
      [{ filename: '', size_bytes: 10, content_type: 'video/mp4' }, 400, 'invalid_field', 'filename'],
      [{ filename: 'a.mp4', content_type: 'video/mp4' }, 400, 'missing_field', 'size_bytes'],
      [{ filename: 'a.mp4', size_bytes: '10', content_type: 'video/mp4' }, 400, 'invalid_field', 'size_bytes'],
      [{ filename: 'a.mp4', size_bytes: 1.5, content_type: 'video/mp4' }, 400, 'invalid_field', 'size_bytes'],
      [{ filename: 'a.mp4', size_bytes: 0, content_type: 'video/mp4' }, 400, 'invalid_field', 'size_bytes'],
      [{ filename: 'a.mp4', size_bytes: 1_000_000_001, content_type: 'video/mp4' }, 400, 'file_too_large', 'size_bytes'],
      [{ filename: 'a.mkv', size_bytes: 10, content_type: 'video/x-matroska' }, 400, 'unsupported_content_type', 'content_type'],
      [{ filename: 'a.mp4', size_bytes: 10 }, 400, 'missing_field', 'content_type'],
    ];
    for (const [body, status, code, param] of cases) {
      const r = await emu.api.post('/media/uploads', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.error).toMatchObject({ type: 'invalid_request', code, param });
    }
    const tooBig = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 1_000_000_001, content_type: 'video/mp4' });
    expect(tooBig.body.error.message).toContain('1 GB');
    const unsupported = await emu.api.post('/media/uploads', { filename: 'a.mkv', size_bytes: 10, content_type: 'video/x-matroska' });
    expect(unsupported.body.error.message).toContain('video/mp2t');
  });

  it('accepts exactly 1 GB (1 byte to 1 000 000 000) and every supported type', async () => {
    expect((await emu.api.post('/media/uploads', { filename: 'big.mp4', size_bytes: 1_000_000_000, content_type: 'video/mp4' })).status).toBe(201);
    expect((await emu.api.post('/media/uploads', { filename: 'one.mp4', size_bytes: 1, content_type: 'video/mp4' })).status).toBe(201);
    for (const ct of ['video/quicktime', 'video/webm', 'video/x-msvideo', 'video/mp2t']) {
      expect((await emu.api.post('/media/uploads', { filename: 'x', size_bytes: 5, content_type: ct })).status).toBe(201);
    }
  });
});

describe('upload sequence', () => {
  it('uploading -> (PUT) -> 409 before complete -> processing -> ready with the mvhd duration', async () => {
    const file = await readFile(new URL('../fixtures/clip.mp4', import.meta.url));
    const up = await create(file.length);
    const id = up.media.id;
    const early = await emu.api.post(`/media/${id}/complete`);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ type: 'conflict', code: 'upload_incomplete' });

    const p = await put(up, file);
    expect(p.status).toBe(200);
    expect(p.body).toEqual({ media_id: id, received_bytes: file.length });
    const uploaded = await emu.api.get(`/media/${id}`);
    expect(uploaded.body).toMatchObject({ status: 'uploading', progress: { phase: 'uploading', percent: 100 } });

    const done = await emu.api.post(`/media/${id}/complete`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id, status: 'processing', progress: { phase: 'processing', percent: 0 } });
    const ready = await waitFor(() => emu.api.get(`/media/${id}`), (r) => r.body.status === 'ready');
    expect(ready.body.progress).toBeUndefined();
    expect(ready.body.error).toBeUndefined();
    expect(ready.body.duration_sec).toBe(2);
    // complete again: nothing to do, the video as it is
    const again = await emu.api.post(`/media/${id}/complete`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('ready');
  });

  it('reads the 700 s duration of long.mp4; a WebM gets no duration', async () => {
    const long = await readFile(new URL('../fixtures/long.mp4', import.meta.url));
    const up = await create(long.length, 'long.mp4');
    expect((await put(up, long)).status).toBe(200);
    await emu.api.post(`/media/${up.media.id}/complete`);
    const ready = await waitFor(() => emu.api.get(`/media/${up.media.id}`), (r) => r.body.status === 'ready');
    expect(ready.body.duration_sec).toBe(700);

    const webm = await readFile(new URL('../fixtures/clip.webm', import.meta.url));
    const w = await create(webm.length, 'clip.webm', 'video/webm');
    expect((await put(w, webm)).status).toBe(200);
    await emu.api.post(`/media/${w.media.id}/complete`);
    const wr = await waitFor(() => emu.api.get(`/media/${w.media.id}`), (r) => r.body.status === 'ready');
    expect(wr.body.duration_sec).toBeUndefined();
  });

  it('shows upload progress while the bytes stream; complete and a second PUT are refused meanwhile', async () => {
    const up = await create(400_000);
    const id = up.media.id;
    const seen: Json[] = [];
    const p = await put(up, chunks(400_000, 100_000, async (sent) => {
      if (sent !== 200_000) return;
      await waitFor(() => emu.api.get(`/media/${id}`), (r) => r.body.progress?.percent === 50);
      seen.push((await emu.api.get(`/media/${id}`)).body);
      seen.push((await emu.api.post(`/media/${id}/complete`)).body);
      seen.push((await put(up, Buffer.alloc(400_000))).body);
    }));
    expect(p.status).toBe(200);
    expect(p.body.received_bytes).toBe(400_000);
    expect(seen[0]).toMatchObject({ status: 'uploading', progress: { phase: 'uploading', percent: 50 } });
    expect(seen[1].error.code).toBe('upload_incomplete');
    expect(seen[1].error.message).toContain('in progress');
    expect(seen[2].error.code).toBe('upload_link_used');
  });

  it('processing ends failed with error.message when the media_fail fault matches the filename', async () => {
    expect((await emu.api.fault({ media_fail: 'broken' })).status).toBe(201);
    const up = await create(100, 'my-broken-video.mp4');
    await put(up, Buffer.alloc(100));
    await emu.api.post(`/media/${up.media.id}/complete`);
    const failed = await waitFor(() => emu.api.get(`/media/${up.media.id}`), (r) => r.body.status !== 'processing');
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error).toEqual({ code: 'processing_failed', message: expect.stringContaining('could not be processed') });
    expect(failed.body.progress).toBeUndefined();
    // others are not affected
    const okId = await emu.api.uploadReady('fine.mp4', 100);
    expect((await emu.api.get(`/media/${okId}`)).body.status).toBe('ready');
  });

  it('404 for complete or GET of an unknown video, or one of another workspace', async () => {
    for (const r of [await emu.api.post('/media/med_nope/complete'), await emu.api.get('/media/med_nope'), await emu.api.get('/media/med_second_sample')]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });
});

describe('the signed upload link', () => {
  it('403 upload_link_expired once the emulator clock passes expires_at', async () => {
    const up = await create(10);
    await emu.api.advance(3601);
    const r = await put(up, Buffer.alloc(10));
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'upload_link_expired' });
  });

  it('still works just before expiry (advance 3590 s)', async () => {
    const up = await create(10);
    await emu.api.advance(3590);
    expect((await put(up, Buffer.alloc(10))).status).toBe(200);
  });

  it('403 upload_link_invalid when the signature, expiry or media id is changed', async () => {
    const up = await create(10);
    const url: string = up.upload.url;
    const lastHex = url.slice(-1) === '0' ? '1' : '0';
    const variants = [
      url.slice(0, -1) + lastHex,
      url.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3600}`),
      url.replace(up.media.id, 'med_0000000000000000'),
      url.replace(/&sig=.*/, ''),
    ];
    for (const v of variants) {
      const r = await http('PUT', v, { headers: up.upload.headers, body: Buffer.alloc(10) });
      expect(r.status, v).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'upload_link_invalid' });
    }
    expect((await put(up, Buffer.alloc(10))).status).toBe(200);
  });

  it('400 authorization_not_allowed when the PUT carries an Authorization header', async () => {
    const up = await create(10);
    const r = await put(up, Buffer.alloc(10), { ...up.upload.headers, Authorization: `Bearer ${emu.api.key}` });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request', code: 'authorization_not_allowed' });
    expect((await emu.api.requests()).at(-1)).toMatchObject({ method: 'PUT', authorization: true, status: 400 });
  });

  it('400 content_type_mismatch for a different or missing Content-Type', async () => {
    const up = await create(10);
    const diff = await put(up, Buffer.alloc(10), { 'Content-Type': 'video/webm', 'X-Upload-Length': '10' });
    expect(diff.status).toBe(400);
    expect(diff.body.error.code).toBe('content_type_mismatch');
    expect(diff.body.error.message).toContain('video/mp4');
    const none = await put(up, Buffer.alloc(10), { 'X-Upload-Length': '10' });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('content_type_mismatch');
  });

  it('400 when X-Upload-Length of upload.headers is missing or changed', async () => {
    const up = await create(10);
    const missing = await put(up, Buffer.alloc(10), { 'Content-Type': 'video/mp4' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'missing_field', param: 'X-Upload-Length' });
    const changed = await put(up, Buffer.alloc(10), { 'Content-Type': 'video/mp4', 'X-Upload-Length': '11' });
    expect(changed.body.error.code).toBe('size_mismatch');
  });

  it('400 size_mismatch when Content-Length differs (checked up front)', async () => {
    const up = await create(10);
    const r = await put(up, Buffer.alloc(9));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request', code: 'size_mismatch' });
    expect(r.body.error.message).toContain('9 bytes');
  });

  it('400 size_mismatch when a streamed body (no Content-Length) has fewer or more bytes; the link stays usable', async () => {
    const up = await create(1000);
    const fewer = await put(up, chunks(900, 300));
    expect(fewer.status).toBe(400);
    expect(fewer.body.error.code).toBe('size_mismatch');
    expect(fewer.body.error.message).toContain('900');
    const more = await put(up, chunks(1500, 500));
    expect(more.status).toBe(400);
    expect(more.body.error.code).toBe('size_mismatch');
    expect((await emu.api.post(`/media/${up.media.id}/complete`)).status).toBe(409);
    const right = await put(up, chunks(1000, 250));
    expect(right.status).toBe(200);
    expect(right.body.received_bytes).toBe(1000);
  });

  it('409 upload_link_used on a second PUT (single use)', async () => {
    const up = await create(10);
    expect((await put(up, Buffer.alloc(10))).status).toBe(200);
    const again = await put(up, Buffer.alloc(10));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict', code: 'upload_link_used' });
  });

  it('a PUT the client abandons half way leaves the link usable', async () => {
    const up = await create(200_000);
    async function* broken(): AsyncIterable<Buffer> {
      yield Buffer.alloc(100_000);
      await sleep(20);
      throw new Error('client gave up');
    }
    await expect(put(up, broken())).rejects.toThrow();
    await waitFor(() => emu.api.post(`/media/${up.media.id}/complete`), (r) => r.body.error?.message?.includes('not been sent'));
    expect((await put(up, Buffer.alloc(200_000))).status).toBe(200);
  });

  it('a PUT the client abandons while a delay fault holds it leaves the link usable', async () => {
    const up = await create(200_000);
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'delay', ms: 300, times: 1 });
    const gone = new AbortController();
    // Half the body, then nothing more until the client goes away while the fault still holds the request.
    const sent = request(up.upload.url, { method: 'PUT', headers: up.upload.headers, body: Readable.from(chunks(200_000, 100_000, () => once(gone.signal, 'abort').then(() => undefined))), signal: gone.signal });
    // Held: the PUT has arrived and the delay fault has taken it (not a guess of how long that takes).
    await waitFor(() => emu.took('delay', 'PUT', '/_uploads/*'), Boolean, 30_000);
    gone.abort();
    await expect(sent).rejects.toThrow();
    // The delay is over and the handler has let go of a request whose client has gone: the log says 499.
    await waitFor(() => emu.requests(), (log) => log.some((r) => r.method === 'PUT' && r.fault === 'delay' && r.status === 499), 30_000);
    const again = await put(up, Buffer.alloc(200_000));
    expect(again.body).toMatchObject({ media_id: up.media.id, received_bytes: 200_000 });
    expect(again.status).toBe(200);
  });

  it('only PUT: GET on the link is 405', async () => {
    const up = await create(10);
    const r = await http('GET', up.upload.url);
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('PUT');
  });

  // Large enough to tell apart: a body held in memory would add its 300 MB; streamed, what grows is
  // the read buffers not yet collected (V8 collects them after some tens of MB): 75 to 83 MB measured.
  it('streams a 300 MB body without holding it in memory', async () => {
    const size = 300_000_000;
    const up = await create(size, 'big.mp4');
    const before = process.memoryUsage().rss;
    let peak = before;
    const r = await put(up, chunks(size, 1 << 20, async () => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }));
    expect(r.status).toBe(200);
    expect(r.body.received_bytes).toBe(size);
    expect(peak - before).toBeLessThan(150_000_000);
    expect((await emu.api.post(`/media/${up.media.id}/complete`)).body.status).toBe('processing');
  });
});

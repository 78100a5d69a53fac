/**
 * What every response of the REST routes carries, whichever way it was
 * answered: at once (the usual case), after a delay fault (the service waits),
 * replayed, refused, or by a fault; and what the request log records for each.
 * The routes answer synchronously when nothing waits and send JSON they
 * serialised themselves: these pin the bytes on the wire that this must keep.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/emulator/request-log.js';
import { RetainedRecords } from '../../src/emulator/state.js';
import { useEmulator } from '../support/emulator.js';
import { http } from '../support/rest.js';

const emu = useEmulator();
const JSON_TYPE = 'application/json; charset=utf-8';
const UPLOAD = { filename: 'a.mp4', content_type: 'video/mp4', size_bytes: 16 };

/** The headers a /v1 JSON answer carries, checked against its body. */
function expectJsonAnswer(r: { headers: Record<string, string>; text: string }, rate: { limit: string; remaining: string }): void {
  expect(r.headers['content-type']).toBe(JSON_TYPE);
  expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.text)));
  expect(r.headers['x-ratelimit-limit']).toBe(rate.limit);
  expect(r.headers['x-ratelimit-remaining']).toBe(rate.remaining);
  expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
  expect(Number(r.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
  expect(r.headers['keep-alive']).toBe('timeout=10');
}

/** The head of the answer to one raw HTTP/1.1 request (status line and header lines, in order). */
function rawHead(text: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const u = new URL(emu.baseUrl);
    const socket = connect(Number(u.port), u.hostname, () => socket.write(text));
    let out = '';
    socket.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const end = out.indexOf('\r\n\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(out.slice(0, end).split('\r\n'));
      }
    });
    socket.on('error', reject);
  });
}

describe('headers on every /v1 response', () => {
  it("Date is the emulator's clock: moved on 25 hours, it says so", async () => {
    const key = emu.keys[0]!.key;
    const dateOf = async () => Date.parse((await rawHead(`GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`)).find((l) => l.startsWith('date:'))!.slice(5));
    const before = await dateOf();
    expect(Math.abs(before - Date.now())).toBeLessThan(5_000);
    await emu.advance(25 * 3600);
    expect((await dateOf()) - before).toBeGreaterThanOrEqual(25 * 3600_000 - 1_000);
    expect((await dateOf()) - before).toBeLessThan(25 * 3600_000 + 10_000);
  });

  it('on the wire: the header names, their case and their order, as Fastify wrote them', async () => {
    const key = emu.keys[0]!.key;
    const names = (head: string[]) => head.slice(1).map((l) => l.slice(0, l.indexOf(':')));
    const ok = await rawHead(`GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    expect(ok[0]).toBe('HTTP/1.1 200 OK');
    // Date is the emulator's clock (set with the server header), not Node's own.
    expect(names(ok)).toEqual(['server', 'date', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-type', 'content-length', 'Connection', 'Keep-Alive']);
    const unknown = await rawHead(`GET /v1/media/med_none HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    expect(unknown[0]).toBe('HTTP/1.1 404 Not Found');
    expect(names(unknown)).toEqual(names(ok));
    const noKey = await rawHead('GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(noKey[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(names(noKey)).toEqual(['server', 'date', 'www-authenticate', 'content-type', 'content-length', 'Connection', 'Keep-Alive']);
  });

  it('200, 201, 400, 404 and 429: JSON with its length and the allowance headers of the kind of request', async () => {
    await emu.api.freshMinute();
    const me = await emu.api.get('/me');
    expect(me.status).toBe(200);
    expectJsonAnswer(me, { limit: '60', remaining: '59' });
    expect(me.body.limits.requests_per_minute.read).toMatchObject({ limit: 60, used: 1, remaining: 59 });
    expect(me.body.limits.requests_per_minute.read.reset_at).toBe(me.body.limits.requests_per_minute.write.reset_at);
    expect(me.body.limits.api_posts_per_day.reset_at).toMatch(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);

    const created = await emu.api.post('/media/uploads', UPLOAD);
    expect(created.status).toBe(201);
    expectJsonAnswer(created, { limit: '20', remaining: '19' });
    expect(created.body.media.id).toMatch(/^med_[0-9a-f]{16}$/);
    expect(created.body.upload.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);

    const bad = await emu.api.post('/media/uploads', undefined, { raw: '{"filename": ', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_json' });
    expectJsonAnswer(bad, { limit: '20', remaining: '18' });

    const missing = await emu.api.get('/media/med_nothing');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found', code: 'not_found' });
    expectJsonAnswer(missing, { limit: '60', remaining: '58' });

    for (let i = 0; i < 18; i++) expect((await emu.api.post('/media/uploads', UPLOAD)).status).toBe(201);
    const refused = await emu.api.post('/media/uploads', UPLOAD);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limited', code: 'requests_per_minute' });
    expectJsonAnswer(refused, { limit: '20', remaining: '0' });
    expect(refused.headers['retry-after']).toBe(refused.headers['x-ratelimit-reset']);
  });

  it('401: JSON with WWW-Authenticate and no allowance headers (no key, no counter)', async () => {
    const r = await emu.api.get('/me', { key: null });
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toBe(JSON_TYPE);
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers['www-authenticate']).toBe('Bearer realm="Video Publishing Service"');
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    expect(r.body.error).toMatchObject({ type: 'authentication_error', code: 'missing_key' });
  });

  it('HEAD: the headers of the GET, with no body', async () => {
    await emu.api.freshMinute();
    const r = await http('HEAD', `${emu.baseUrl}/me`, { headers: { authorization: `Bearer ${emu.keys[0]!.key}` } });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers['content-type']).toBe(JSON_TYPE);
    expect(Number(r.headers['content-length'])).toBeGreaterThan(100);
    expect(r.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('after a delay fault (the service waits) the answer and its headers are the same as without', async () => {
    await emu.api.freshMinute();
    await emu.api.fault({ method: 'GET', path: '/v1/me', action: 'delay', ms: 20 });
    const delayed = await emu.api.get('/me');
    const direct = await emu.api.get('/me');
    expect(delayed.status).toBe(200);
    expectJsonAnswer(delayed, { limit: '60', remaining: '59' });
    expectJsonAnswer(direct, { limit: '60', remaining: '58' });
    expect(Object.keys(delayed.headers).sort()).toEqual(Object.keys(direct.headers).sort());
    expect(delayed.body.key).toEqual(direct.body.key);
  });

  it('a replay carries Idempotent-Replayed and the allowance headers; the log says replayed', async () => {
    await emu.api.freshMinute();
    const first = await emu.api.post('/media/uploads', UPLOAD, { idem: 'same-upload' });
    const again = await emu.api.post('/media/uploads', UPLOAD, { idem: 'same-upload' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expectJsonAnswer(again, { limit: '20', remaining: '18' });
    expect(again.body).toEqual(first.body);
    const log = (await emu.api.requests()).filter((e) => e.path === '/v1/media/uploads');
    expect(log.map((e) => [e.status, e.replayed, e.idempotency_key])).toEqual([[201, false, 'same-upload'], [201, true, 'same-upload']]);
  });
});

describe('the Authorization header', () => {
  it('any valid spelling of one key spends the one counter of that key; a changed key is refused; a reset starts the counter again', async () => {
    await emu.api.freshMinute();
    const key = emu.keys[0]!.key;
    const remaining = async (authorization: string) => {
      const r = await http('GET', `${emu.baseUrl}/me`, { headers: { authorization } });
      expect(r.status).toBe(200);
      return r.headers['x-ratelimit-remaining'];
    };
    expect(await remaining(`Bearer ${key}`)).toBe('59');
    expect(await remaining(`Bearer ${key}`)).toBe('58');
    expect(await remaining(`bearer   ${key}`)).toBe('57');
    expect(await remaining(`Bearer ${key}`)).toBe('56');
    const wrong = await http('GET', `${emu.baseUrl}/me`, { headers: { authorization: `Bearer ${key}x` } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_key');
    await emu.api.reset();
    expect(await remaining(`Bearer ${key}`)).toBe('59');
  });
});

describe('the request log records the status of each way of answering', () => {
  it('at once, after a delay, a status fault, a 404, an upload PUT; test controls are not logged', async () => {
    await emu.api.fault({ method: 'GET', path: '/v1/destinations', action: 'delay', ms: 10 });
    await emu.api.fault({ method: 'GET', path: '/v1/posts/*', action: 'status', status: 503 });
    await emu.api.get('/me');
    await emu.api.get('/destinations');
    await emu.api.get('/posts/post_x');
    await http('GET', `${new URL(emu.baseUrl).origin}/nowhere?x=1`);
    const created = await emu.api.post('/media/uploads', UPLOAD);
    const put = await http('PUT', created.body.upload.url, { headers: created.body.upload.headers, body: Buffer.alloc(16) });
    expect(put.status).toBe(200);
    const log = await emu.api.requests();
    expect(log.map((e) => [e.method, e.path.replace(/med_\w+/, 'med_…'), e.status, (e as { fault?: string | null }).fault])).toEqual([
      ['GET', '/v1/me', 200, null],
      ['GET', '/v1/destinations', 200, 'delay'],
      ['GET', '/v1/posts/post_x', 503, 'status'],
      ['GET', '/nowhere', 404, null],
      ['POST', '/v1/media/uploads', 201, null],
      ['PUT', '/_uploads/med_…', 200, null],
    ]);
  });
});

describe('RequestLog (a ring)', () => {
  it('keeps the latest entries oldest first once it wraps, each a copy; clear empties it', () => {
    const log = new RequestLog(3);
    for (let i = 0; i < 7; i++) log.add('GET', `/p/${i}`, i % 2 === 0, i === 6 ? 'k' : undefined).status = 200 + i;
    expect(log.length).toBe(3);
    const entries = log.entries();
    expect(entries.map((e) => [e.path, e.status, e.authorization, e.idempotency_key])).toEqual([
      ['/p/4', 204, true, null],
      ['/p/5', 205, false, null],
      ['/p/6', 206, true, 'k'],
    ]);
    entries[0]!.status = 999;
    expect(log.entries()[0]!.status).toBe(204);
    log.clear();
    expect(log.length).toBe(0);
    expect(log.entries()).toEqual([]);
    log.add('POST', '/again', false, undefined);
    expect(log.entries().map((e) => e.path)).toEqual(['/again']);
  });

  it('cuts a long path and key, saying how much was left out', () => {
    const log = new RequestLog(2);
    const e = log.add('GET', `/${'p'.repeat(2000)}`, false, 'k'.repeat(300));
    expect(e.path).toBe(`/${'p'.repeat(1023)}…(+977 chars)`);
    expect(e.idempotency_key).toBe(`${'k'.repeat(256)}…(+44 chars)`);
  });
});

describe('RetainedRecords when most records stay unfinished', () => {
  it('prunes in ever larger steps (not once per tenth of the limit), still dropping finished ones beyond the limit', () => {
    let prunes = 0;
    const m = new RetainedRecords<{ done: boolean }>(() => {
      prunes += 1;
      return (v) => v.done;
    }, 100);
    for (let i = 0; i < 20_000; i++) m.set(`u${i}`, { done: false });
    // 20,000 unfinished records: a pass every quarter of them, not one every 10 insertions (~2,000 passes)
    expect(prunes).toBeLessThan(40);
    for (let i = 0; i < 3_000; i++) m.set(`f${i}`, { done: true });
    m.prune();
    expect(m.size).toBe(20_000 + 100);
    expect(m.has('f2999')).toBe(true);
    expect(m.has('f0')).toBe(false);
    expect(m.has('u0')).toBe(true);
  });
});

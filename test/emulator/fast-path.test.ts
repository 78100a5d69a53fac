/**
 * The common /v1 requests are answered in front of Fastify (src/emulator/fast-v1.ts);
 * while any request fault is held, every request goes through Fastify as before.
 * Each request here is sent both ways (from a fresh reset each time) and the
 * whole answer on the wire must be the same bytes — status line, header names,
 * their case, order and values, body — with only what differs between two
 * calls masked (Date, generated ids, the upload signature and times); the
 * request log entry must be the same too.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

/** The whole answer to one raw HTTP/1.1 request (head and body by Content-Length), with what differs between calls masked. */
function exchange(text: string | string[]): Promise<string> {
  const parts = typeof text === 'string' ? [text] : text;
  return new Promise((resolve, reject) => {
    const u = new URL(emu.baseUrl);
    const socket = connect(Number(u.port), u.hostname, () => {
      socket.write(parts[0]!);
      // Later parts a little later: a body that arrives in several pieces.
      parts.slice(1).forEach((p, i) => setTimeout(() => socket.write(p), 20 * (i + 1)));
    });
    let out = '';
    socket.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const end = out.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /\r\ncontent-length: (\d+)/i.exec(out.slice(0, end));
      const bodyLength = parts[0]!.startsWith('HEAD ') ? 0 : Number(m?.[1] ?? 0);
      if (Buffer.byteLength(out.slice(end + 4)) >= bodyLength) {
        socket.destroy();
        resolve(mask(out));
      }
    });
    socket.on('error', reject);
  });
}

function mask(raw: string): string {
  return raw
    // The Date header, as the emulator's clock gives it (lower-case since it follows that clock): a second may pass between the two ways.
    .replace(/\r\n(date): [^\r]+/i, '\r\n$1: …')
    .replace(/\b(med|post)_[0-9a-f]{16}\b/g, '$1_…')
    .replace(/expires=\d+&sig=[0-9a-f]+/g, 'expires=…&sig=…')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'T…')
    .replace(/x-ratelimit-reset: \d+/, 'x-ratelimit-reset: …');
}

/** A request that never comes: while it is held, every request goes through Fastify. */
const UNRELATED_FAULT = { method: 'GET', path: '/never-requested', action: 'status', status: 500, times: 1000 };

/** The answer and the request log entry of `text`, answered in front of Fastify, then through Fastify. */
async function bothWays(text: string | string[]): Promise<{ fast: string; fastify: string; logs: unknown[][] }> {
  const out: string[] = [];
  const logs: unknown[][] = [];
  for (const viaFastify of [false, true]) {
    await emu.api.reset();
    if (viaFastify) await emu.api.fault(UNRELATED_FAULT);
    out.push(await exchange(text));
    logs.push((await emu.api.requests()).map((e) => ({ ...e, path: mask(e.path) })));
  }
  return { fast: out[0]!, fastify: out[1]!, logs };
}

const post = (path: string, key: string, body: string, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const get = (path: string, auth: string): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;

describe('answered in front of Fastify: the same bytes and log entry as through Fastify', () => {
  it('reads: 200, 401, 404, an id that is a static segment, a query', async () => {
    const key = emu.keys[0]!.key;
    const auth = `Authorization: Bearer ${key}\r\n`;
    const cases = [
      get('/v1/me', auth),
      get('/v1/me?x=1', auth),
      get('/v1/me', ''),
      get('/v1/me', 'Authorization: Bearer vp_live_nope\r\n'),
      get('/v1/me', 'Authorization: Basic abc\r\n'),
      get('/v1/destinations', auth),
      get('/v1/destinations/dst_none/options', auth),
      get('/v1/media/med_none', auth),
      get('/v1/media/uploads', auth),
      get('/v1/posts/post_none', auth),
      get('/v1/me/', auth),
      get('/v1/media/med%5Fnone', auth),
      `HEAD /v1/me HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    ];
    for (const text of cases) {
      const r = await bothWays(text);
      expect(r.fast, text).toBe(r.fastify);
      expect(r.logs[0], text).toEqual(r.logs[1]);
      expect(r.logs[0]).toHaveLength(1);
    }
  });

  it('writes: 201, a replay, 400 (bad JSON, not an object, missing fields), 404, an empty body, 413, another content type', async () => {
    const key = emu.keys[0]!.key;
    const upload = JSON.stringify({ filename: 'a.mp4', content_type: 'video/mp4', size_bytes: 16 });
    const cases: (string | string[])[] = [
      post('/v1/media/uploads', key, upload),
      post('/v1/media/uploads', key, '{"filename":'),
      post('/v1/media/uploads', key, '[1]'),
      post('/v1/media/uploads', key, ''),
      post('/v1/media/uploads', key, '{}'),
      post('/v1/media/imports', key, '{}'),
      post('/v1/posts', key, '{}'),
      post('/v1/posts/post_none/publish', key, '{}'),
      post('/v1/media/med_none/complete', key, ''),
      post('/v1/media/uploads', key, upload, 'Idempotency-Key: k-1\r\n'),
      post('/v1/media/uploads', key, upload).replace('application/json', 'text/plain'),
      `POST /v1/media/uploads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n`,
      // The body in three pieces.
      (() => {
        const whole = post('/v1/media/uploads', key, upload);
        const at = whole.indexOf('\r\n\r\n') + 4;
        return [whole.slice(0, at), upload.slice(0, 10), upload.slice(10)];
      })(),
    ];
    for (const text of cases) {
      const r = await bothWays(text);
      const label = typeof text === 'string' ? text : text.join('');
      expect(r.fast, label).toBe(r.fastify);
      expect(r.logs[0], label).toEqual(r.logs[1]);
    }
    // A replay, both ways: the same Idempotency-Key twice.
    for (const viaFastify of [false, true]) {
      await emu.api.reset();
      if (viaFastify) await emu.api.fault(UNRELATED_FAULT);
      const first = await exchange(post('/v1/media/uploads', key, upload, 'Idempotency-Key: k-2\r\n'));
      const again = await exchange(post('/v1/media/uploads', key, upload, 'Idempotency-Key: k-2\r\n'));
      expect(again).toContain('\r\nidempotent-replayed: true\r\n');
      expect(again.replace('\r\nidempotent-replayed: true', '').replace(/x-ratelimit-remaining: \d+/, '')).toBe(first.replace(/x-ratelimit-remaining: \d+/, ''));
      const log = await emu.api.requests();
      expect(log.map((e) => [e.status, e.replayed, e.idempotency_key])).toEqual([[201, false, 'k-2'], [201, true, 'k-2']]);
    }
  });

  it('a client that goes away in the middle of a body: logged unanswered, the emulator answers the next one', async () => {
    const key = emu.keys[0]!.key;
    await new Promise<void>((resolve, reject) => {
      const u = new URL(emu.baseUrl);
      const socket = connect(Number(u.port), u.hostname, () => {
        socket.write(`POST /v1/media/uploads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"file`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
      socket.on('error', reject);
    });
    const me = await emu.api.get('/me');
    expect(me.status).toBe(200);
    const log = await emu.api.requests();
    expect(log.map((e) => [e.method, e.path, e.status])).toEqual([
      ['POST', '/v1/media/uploads', 0],
      ['GET', '/v1/me', 200],
    ]);
    expect((await emu.api.get('/me')).body.usage.media_count).toBe(me.body.usage.media_count);
  });
});

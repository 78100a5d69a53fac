/**
 * The emulator runs in other people's CI: its request log and fault list are
 * bounded, and what Node's HTTP parser or the router refuse is answered in the
 * service's error shape.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_FAULTS } from '../../src/emulator/faults.js';
import { MAX_LOG_ENTRIES, MAX_LOGGED_KEY, MAX_LOGGED_PATH } from '../../src/emulator/server.js';
import { useEmulator } from '../support/emulator.js';
import { http } from '../support/rest.js';

const emu = useEmulator();
const origin = () => new URL(emu.baseUrl).origin;

/** Sends raw bytes and returns everything the server answers before closing. */
function raw(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(emu.baseUrl);
    const socket = connect(Number(u.port), u.hostname, () => socket.end(text));
    let out = '';
    socket.setEncoding('utf8').on('data', (c: string) => (out += c));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

/**
 * Sends GET requests for `paths` one after another on one connection (HTTP/1.1 pipelining), the last
 * asking to close it, and resolves once the server has answered them all and closed: the server handles
 * each as it would any request, while the client costs nothing but the bytes (an HTTP client library
 * spends a millisecond of CPU a request, seconds for the ten thousand of the log test).
 */
function pipelined(paths: string[]): Promise<string> {
  const requests = paths.map((p, i) => `GET ${p} HTTP/1.1\r\nHost: x\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`);
  return raw(requests.join(''));
}

const bodyOf = (response: string): unknown => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

describe('request log limits', () => {
  it('a long path and a long Idempotency-Key are cut in the log and in the 404 message, saying how much was left out', async () => {
    const path = `/v1/${'a'.repeat(15_000)}`;
    const key = 'k'.repeat(1000);
    const r = await http('GET', origin() + path, { headers: { 'idempotency-key': key } });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect(r.body.error.message).toContain(`No endpoint GET /v1/${'a'.repeat(196)}…(+${path.length - 200} chars).`);
    expect(r.text.length).toBeLessThan(600);
    const [entry] = await emu.api.requests();
    expect(entry.path).toBe(`${path.slice(0, MAX_LOGGED_PATH)}…(+${path.length - MAX_LOGGED_PATH} chars)`);
    expect(entry.idempotency_key).toBe(`${key.slice(0, MAX_LOGGED_KEY)}…(+${key.length - MAX_LOGGED_KEY} chars)`);
    expect(entry.status).toBe(404);
  });

  it(`keeps the latest ${MAX_LOG_ENTRIES} entries`, async () => {
    const total = MAX_LOG_ENTRIES + 25;
    const answers = await pipelined(Array.from({ length: total }, (_, i) => `/nothing/${i}`));
    expect(answers.match(/HTTP\/1\.1 404 /g)).toHaveLength(total);
    const log = await emu.api.requests();
    expect(log.length).toBe(MAX_LOG_ENTRIES);
    // the 25 oldest are gone, the rest kept in the order they came (one connection: the order they were sent)
    expect(log.map((e) => e.path)).toEqual(Array.from({ length: MAX_LOG_ENTRIES }, (_, i) => `/nothing/${i + 25}`));
    expect((await emu.api.admin('GET', '/state')).body.requests_logged).toBe(MAX_LOG_ENTRIES);
  }, 60_000);
});

describe('fault list limits', () => {
  const fault = (i: number) => ({ method: 'GET', path: `/v1/none/${i}`, action: 'status', status: 503 });

  it(`holds ${MAX_FAULTS} faults; one more is refused with 409 too_many_faults in the error shape, adding nothing`, async () => {
    const full = await emu.api.fault(Array.from({ length: MAX_FAULTS }, (_, i) => fault(i)));
    expect(full.status).toBe(201);
    expect(full.body.added).toHaveLength(MAX_FAULTS);
    for (const spec of [fault(-1), { media_fail: 'broken' }, { destination_fail: 'dst_demo_youtube' }]) {
      const r = await emu.api.fault(spec);
      expect(r.status).toBe(409);
      expect(r.body).toEqual({
        error: {
          type: 'conflict',
          code: 'too_many_faults',
          message: `The emulator holds at most ${MAX_FAULTS} faults; it has ${MAX_FAULTS} and this request adds 1. Nothing was added: clear them with DELETE /_emulator/faults (or POST /_emulator/reset), or use "times" to repeat one fault.`,
          limit: MAX_FAULTS,
          held: MAX_FAULTS,
        },
      });
    }
    expect((await emu.api.admin('GET', '/faults')).body.requests).toHaveLength(MAX_FAULTS);
    expect((await emu.api.admin('DELETE', '/faults')).body.faults.requests).toEqual([]);
    expect((await emu.api.fault(fault(0))).status).toBe(201);
  });

  it('an array that would overflow the list is refused whole', async () => {
    await emu.api.fault(fault(0));
    const r = await emu.api.fault(Array.from({ length: MAX_FAULTS }, (_, i) => fault(i)));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('too_many_faults');
    expect(r.body.error.message).toContain(`it has 1 and this request adds ${MAX_FAULTS}`);
    expect((await emu.api.admin('GET', '/faults')).body.requests).toHaveLength(1);
  });

  it('over-long fault texts are refused with invalid_field naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ path: `/${'p'.repeat(3000)}`, action: 'delay', ms: 1 }, 'path'],
      [{ media_fail: 'm'.repeat(3000) }, 'media_fail'],
      [{ path: '/v1/me', action: 'status', status: 502, body: 'b'.repeat(70_000) }, 'body'],
    ];
    for (const [spec, param] of cases) {
      const r = await emu.api.fault(spec);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_field', param });
      expect(r.body.error.message).toMatch(new RegExp(`^${param} must be at most \\d+ characters\\.$`));
    }
  });
});

describe('requests refused before routing use the error shape', () => {
  it('headers over 16 KB: 431 headers_too_large, JSON', async () => {
    const r = await http('GET', `${emu.baseUrl}/me`, { headers: { 'x-big': 'a'.repeat(20_000) } });
    expect(r.status).toBe(431);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.body).toEqual({
      error: { type: 'invalid_request', code: 'headers_too_large', message: 'The request line and headers are larger than 16 KB (the path counts too); nothing was handled.' },
    });
  });

  it('a path over 16 KB is a 431 as well', async () => {
    const res = await raw(`GET /v1/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(res)).toMatchObject({ error: { code: 'headers_too_large' } });
  });

  it('a path that is not a valid URL: 400 malformed_url quoting the path', async () => {
    for (const path of ['/v1/%', '/v1/me%zz', '/v1/%E0%A4%A']) {
      const r = await http('GET', origin() + path);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: { type: 'invalid_request', code: 'malformed_url', message: `The path ${path} is not a valid URL (a "%" not followed by two hex digits, or bytes that are not UTF-8).` },
      });
    }
  });

  it('a request that is not HTTP: 400 malformed_request, JSON, then the connection is closed', async () => {
    const res = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
    expect(res).toContain('Connection: close');
    expect(bodyOf(res)).toEqual({ error: { type: 'invalid_request', code: 'malformed_request', message: 'The request is not valid HTTP/1.1; nothing was handled.' } });
  });
});

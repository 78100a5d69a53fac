import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { createTransport } from '../../src/api/net/transport.js';

const TIMEOUTS = { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000 };
const servers: { close(cb: () => void): void }[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ base: string; server: Server }> {
  const server = createServer(handler);
  server.on('connection', (s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

test('sends method, path with query, headers and a JSON body with its length; returns status, headers and text', async () => {
  const seen: string[] = [];
  const { base } = await serve((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-length'] ?? '-'} ${req.headers['x-test']} ${body}`);
      res.writeHead(201, { 'content-type': 'application/json', 'x-ratelimit-remaining': '7' });
      res.end('{"ok":"é"}');
    });
  });
  const t = createTransport(TIMEOUTS);
  const r = await t.request(`${base}/v1/posts?x=1`, { method: 'POST', headers: { 'x-test': 'yes', 'content-type': 'application/json' }, body: '{"a":"é"}' });
  expect(r).toEqual({ statusCode: 201, headers: expect.objectContaining({ 'x-ratelimit-remaining': '7' }), text: '{"ok":"é"}' });
  const g = await t.request(`${base}/v1/me`, { method: 'GET', headers: { 'x-test': 'no' } });
  expect(g.statusCode).toBe(201);
  expect(seen).toEqual(['POST /v1/posts?x=1 10 yes {"a":"é"}', 'GET /v1/me - no ']);
  await t.close();
});

test('keeps one connection alive between requests; close() ends it', async () => {
  let connections = 0;
  const { base, server } = await serve((_req, res) => res.end('ok'));
  server.on('connection', () => connections++);
  const t = createTransport(TIMEOUTS);
  for (let i = 0; i < 3; i++) expect((await t.request(`${base}/`, { method: 'GET', headers: {} })).text).toBe('ok');
  expect(connections).toBe(1);
  await t.close();
  const closed = new Promise<void>((r) => sockets[0]!.once('close', () => r()));
  await closed;
});

test('no response headers in time: UND_ERR_HEADERS_TIMEOUT', async () => {
  const { base } = await serve(() => undefined);
  const t = createTransport({ ...TIMEOUTS, headersMs: 100 });
  await expect(t.request(`${base}/slow`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT', message: /no response headers in time \(100 ms\)/ });
  await t.close();
});

test('a body that stalls: UND_ERR_BODY_TIMEOUT; a connection closed mid-body: ECONNRESET', async () => {
  const { base } = await serve((req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial');
    if (req.url === '/close') setTimeout(() => res.destroy(), 20);
  });
  const t = createTransport({ ...TIMEOUTS, bodyMs: 100 });
  await expect(t.request(`${base}/stall`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
  await expect(t.request(`${base}/close`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'ECONNRESET' });
  await t.close();
});

test('a TLS handshake that never completes: UND_ERR_CONNECT_TIMEOUT', async () => {
  const tcp = createTcpServer((s) => sockets.push(s)); // accepts, never answers the ClientHello
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  servers.push(tcp);
  const t = createTransport({ ...TIMEOUTS, connectMs: 100 });
  const port = (tcp.address() as AddressInfo).port;
  await expect(t.request(`https://127.0.0.1:${port}/v1/me`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT' });
  await t.close();
});

test('an aborted signal stops the request with an AbortError; refused connections keep their code', async () => {
  const { base } = await serve(() => undefined);
  const t = createTransport(TIMEOUTS);
  const controller = new AbortController();
  const pending = t.request(`${base}/hang`, { method: 'GET', headers: {}, signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  const closed = createTcpServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  await expect(t.request(`http://127.0.0.1:${port}/`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  await t.close();
});

test('a signal aborted before the request: nothing is sent, AbortError with the reason as its cause', async () => {
  let requests = 0;
  const { base } = await serve((_req, res) => {
    requests++;
    res.end('{}');
  });
  const t = createTransport(TIMEOUTS);
  const reason = new Error('received SIGTERM');
  const err = await t.request(`${base}/x`, { method: 'GET', headers: {}, signal: AbortSignal.abort(reason) }).catch((e: unknown) => e);
  expect(err).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR', cause: reason });
  expect(requests).toBe(0);
  await t.close();
});

test('a body trickled a byte at a time cannot outlast the body limit: it is a total, not a pause between chunks', async () => {
  const { base } = await serve((_req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    const timer = setInterval(() => res.write('x'), 20);
    res.on('close', () => clearInterval(timer));
  });
  const t = createTransport({ ...TIMEOUTS, bodyMs: 200 });
  await expect(t.request(`${base}/trickle`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT', requestSent: true });
  await t.close();
});

test('the ceiling of one request (VIDPUB_REQUEST_TIMEOUT) ends it whatever phase it is in', async () => {
  const { base } = await serve(() => undefined);
  const t = createTransport({ ...TIMEOUTS, totalMs: 150 });
  await expect(t.request(`${base}/hang`, { method: 'GET', headers: {} })).rejects.toMatchObject({
    code: 'UND_ERR_HEADERS_TIMEOUT',
    message: expect.stringContaining('VIDPUB_REQUEST_TIMEOUT'),
  });
  await t.close();
});

test('a failure says whether the request may have reached the service (requestSent)', async () => {
  const closed = createTcpServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const t = createTransport(TIMEOUTS);
  await expect(t.request(`http://127.0.0.1:${port}/`, { method: 'POST', headers: {}, body: '{}' })).rejects.toMatchObject({ code: 'ECONNREFUSED', requestSent: false });
  const { base } = await serve((req) => req.socket.destroy());
  await expect(t.request(`${base}/reset`, { method: 'POST', headers: {}, body: '{}' })).rejects.toMatchObject({ requestSent: true });
  await t.close();
});

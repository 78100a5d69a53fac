import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { loadUndici } from '../../src/api/undici.js';

test('loadUndici: Agent and request(url, {dispatcher}) behave as undici\'s own (path, query, method, body)', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { Agent, request } = await loadUndici();
  expect(await loadUndici()).toEqual(await loadUndici());
  const agent = new Agent();
  try {
    const a = await request(`${base}/v1/x?sig=1&b=2`, { dispatcher: agent });
    expect(a.statusCode).toBe(200);
    expect(await a.body.text()).toBe('ok');
    const b = await request(`${base}/up`, { dispatcher: agent, method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
    await b.body.text();
    const c = await request(`${base}/put-by-default`, { dispatcher: agent, body: 'bytes' });
    await c.body.text();
    expect(seen).toEqual(['GET /v1/x?sig=1&b=2 ', 'POST /up hello', 'PUT /put-by-default bytes']);
  } finally {
    await agent.close();
    await new Promise((r) => server.close(r));
  }
});

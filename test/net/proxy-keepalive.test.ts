/**
 * Kept-alive connections that the other end closed cost no retry.
 *
 * tinyproxy (1.11) answers a plain-http request forwarded in absolute form and then closes its
 * side of the connection, without a `Connection: close` to say so: a client that kept the
 * connection alive wrote its next request onto a closed socket, got ECONNRESET ("socket hang
 * up") and retried after a backoff (~450 ms each). Plain http through a proxy now takes a
 * connection per request: through a real tinyproxy, every request is answered at the first
 * attempt (the proxy's log and the emulator's agree, --debug names no retry).
 *
 * Any kept-alive connection can still be closed by the other end as a request crosses the close
 * (an idle timeout): a request that fails so, before any byte of an answer, is sent again at once
 * on a new connection, without a backoff, once (a server here resets the second request on a
 * reused connection).
 */
import { createServer, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { createApiClient, type ClientDeps } from '../../src/api/http-client.js';
import { streamNotices } from '../../src/ui/notices.js';
import { virtualClock } from '../support/clock.js';
import { KEYS } from '../support/rest.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { tempConfigDir } from '../support/cli.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { startTinyproxy, type Tinyproxy } from './tinyproxy.js';

beforeAll(() => ensureBuilt());

describe.skipIf(missing('tinyproxy', ['-v']))('plain http through tinyproxy, which closes after each answer', () => {
  let emu: TestEmulator;
  let proxy: Tinyproxy;
  beforeAll(async () => {
    emu = await startTestEmulator({ processingMs: 20, publishMs: 20 });
    proxy = await startTinyproxy({ connectPorts: [] });
  });
  afterAll(async () => {
    await proxy?.stop();
    await emu?.close();
  });

  it('post and its follow-up: every request answered at the first attempt, no retry, exit 0', async () => {
    const before = proxy.forwarded().length;
    const seenBefore = (await emu.requests()).length;
    const env = { ...process.env, ...emu.env(), HTTP_PROXY: proxy.url, VIDPUB_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' };
    const r = await runAsync(process.execPath, [BIN, 'post', '--media', 'med_demo_sample', '--to', 'youtube,linkedin', '--caption', 'through tinyproxy', '--no-input', '--debug'], { env, timeoutMs: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const sent = r.stderr.split('\n').filter((l) => /^\[debug\] → /.test(l));
    // Several requests, each on its own connection to the proxy: the GET of the video, the POST, the looks.
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(r.stderr).not.toMatch(/socket hang up|ECONNRESET|retry \d|attempt=2|sent again/);
    // What the proxy forwarded is what the emulator answered, one each: nothing was sent twice.
    const forwarded = proxy.forwarded().slice(before);
    const answered = (await emu.requests()).slice(seenBefore).filter((q) => q.path.startsWith('/v1/'));
    expect(forwarded.length).toBe(sent.length);
    expect(answered.length).toBe(sent.length);
    expect(answered.filter((q) => q.method === 'POST' && q.path === '/v1/posts')).toHaveLength(1);
  });
});

describe('a kept-alive connection the server closes as the next request arrives', () => {
  let server: ReturnType<typeof createServer>;
  let port = 0;
  const requests: string[] = [];
  beforeAll(async () => {
    // Answers the first request on each connection, keeping it alive; resets the connection when a
    // second request arrives on it, before any byte of an answer (as a closed socket does).
    server = createServer((socket: Socket) => {
      let served = 0;
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        while (buffered.includes('\r\n\r\n')) {
          const head = buffered.slice(0, buffered.indexOf('\r\n\r\n'));
          const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          const end = buffered.indexOf('\r\n\r\n') + 4 + length;
          if (buffered.length < end) return;
          buffered = buffered.slice(end);
          const line = head.split('\r\n')[0]!;
          requests.push(line);
          if (served++ > 0) {
            socket.resetAndDestroy();
            return;
          }
          const body = JSON.stringify({ id: 'med_1', status: 'ready', source: 'upload', filename: 'clip.mp4' });
          socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`);
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('the request is sent again at once on a new connection (no backoff, no retry counted)', async () => {
    const err = new PassThrough();
    let debug = '';
    err.on('data', (c: Buffer) => (debug += c.toString()));
    const clock = virtualClock();
    const deps: ClientDeps = {
      clock,
      signal: new AbortController().signal,
      version: 'test',
      notices: streamNotices(err, false),
      debugOut: err,
      credentials: { env: { VIDPUB_BASE_URL: `http://127.0.0.1:${port}/v1`, VIDPUB_API_KEY: KEYS.demo_rw }, cwd: process.cwd(), readProfile: async () => undefined },
    };
    const c = await createApiClient({ profile: 'default', debug: true, maxWaitMs: 600_000, waitForQuota: false, quiet: false }, deps);
    try {
      expect((await c.getMedia('med_1')).id).toBe('med_1');
      // The second request goes out on the kept-alive connection, which the server resets: sent
      // again on a new one without waiting (the clock is never advanced: a backoff would hang here).
      expect((await c.getMedia('med_1')).id).toBe('med_1');
    } finally {
      await c.close();
    }
    expect(requests).toEqual(['GET /v1/media/med_1 HTTP/1.1', 'GET /v1/media/med_1 HTTP/1.1', 'GET /v1/media/med_1 HTTP/1.1']);
    expect(debug).toMatch(/GET \S+\/v1\/media\/med_1: the kept-alive connection was closed by the other end \(ECONNRESET[^)]*\); sent again on a new connection/);
    expect(debug).not.toMatch(/retry \d+ in/);
  });
});

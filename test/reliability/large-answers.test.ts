/**
 * Answers no service gives, from a hostile server in the service's place (a proxy, a captive
 * portal): one larger than the client reads is cut off while it arrives, named with its size and
 * the URL (exit 1), whether its Content-Length announces it or not, an error body at a far smaller
 * size; JSON nested two million levels deep is an unexpected answer (exit 1), not a crash of the
 * stack; and a read whose answer came after the --timeout is not parsed, nor one whose handling
 * (parsing, redacting) ran past it printed (exit 7, on a manual clock).
 * The time and peak memory of `me --timeout 2s` against 50 MB are measured by
 * bench/pressure.bench.mjs, not here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ERROR_BODY_BYTES, MAX_RECORD_BYTES } from '../../src/api/net/answer-limit.js';
import { main, type Context } from '../../src/cli/main.js';
import { makeContext, runCli } from '../support/cli.js';
import { startTestEmulator } from '../support/emulator.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { manualClock } from '../support/clock.js';

const KEY = 'vp_live_0123456789abcdefABCDEFgh';
const FIFTY_MB = 50_000_000;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** What the server does with the next GET /v1/me. */
let answer: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
/** Requests seen, and the bytes of body written before the client went away. */
let requests = 0;
let written = 0;
let server: Server;
let base = '';
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    answer(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  requests = 0;
  written = 0;
});

/** `size` bytes of a JSON-looking body, written as the client takes them (never held whole), until it goes away. */
function stream(res: ServerResponse, size: number): void {
  const write = (): void => {
    while (written < size && !res.destroyed) {
      const part = CHUNK.subarray(0, Math.min(CHUNK.length, size - written));
      written += part.length;
      if (!res.write(part)) {
        res.once('drain', write);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.write('{"workspace":{"name":"');
  write();
}

// A --timeout far above what any case takes, however loaded the machine: `me --timeout 2s` against 50 MB is bench/pressure.bench.mjs's.
const me = (...args: string[]) => runCli(['me', '--timeout', '60s', ...args], { env: { VIDPUB_API_KEY: KEY, VIDPUB_BASE_URL: `${base}/v1` } });

describe('an answer larger than the client reads', () => {
  it('50 MB announced by its Content-Length: cut off at once, the size and the URL named (exit 1)', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(FIFTY_MB) });
      stream(res, FIFTY_MB);
    };
    const r = await me();
    expect(r.stderr).toContain(`Error: The answer to GET ${base}/v1/me (HTTP 200) was cut off: it is 50.0 MB (its Content-Length), far more than an answer of the service can be (at most 8.0 MB is read).`);
    expect(r.stderr).toContain('Something other than the service may be answering at this address (a proxy, a captive portal)');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
    expect(requests).toBe(1); // not retried
  });

  it('50 MB sent chunked, no length said: cut off once more than the limit arrived, not read on (exit 1, --json too)', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      stream(res, FIFTY_MB);
    };
    const r = await me('--json');
    const doc = JSON.parse(r.stderr) as { error: { type: string; message: string; exit_code: number } };
    expect(doc.error).toMatchObject({ type: 'service', exit_code: 1 });
    expect(doc.error.message).toBe(`The answer to GET ${base}/v1/me (HTTP 200) was cut off: it is more than 8.0 MB (it was still arriving), far more than an answer of the service can be (at most 8.0 MB is read).`);
    expect(r.code).toBe(1);
    // The server was stopped well before the end: what it wrote is the limit and what the socket buffers held.
    expect(written).toBeGreaterThan(MAX_RECORD_BYTES);
    expect(written).toBeLessThan(FIFTY_MB / 2);
  });

  it('an error body is cut off far sooner: a 503 page of 1 MB (exit 1, not retried)', async () => {
    answer = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      stream(res, 1_000_000);
    };
    const r = await me();
    expect(r.stderr).toContain(`Error: The answer to GET ${base}/v1/me (HTTP 503) was cut off: it is more than ${MAX_ERROR_BODY_BYTES / 1000}.0 kB (it was still arriving), far more than an error body can be (at most 256.0 kB is read).`);
    expect(r.code).toBe(1);
    expect(requests).toBe(1);
  });

  it('just under the limit is read as usual', async () => {
    answer = (_req, res) => {
      const body = JSON.stringify({ workspace: { id: 'ws_1', name: 'w'.repeat(MAX_RECORD_BYTES - 200) }, key: { prefix: 'vp_live_', last4: 'FDgh' } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    };
    const r = await me('--json', 'key');
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ key: { prefix: 'vp_live_', last4: 'FDgh' } });
    expect(r.code).toBe(0);
  });
});

describe('a write whose answer is too large', () => {
  it('POST /posts handled by the service, its answer replaced by 9 MB: outcome unknown (exit 9) with the rerun that settles it', async () => {
    const emu = await startTestEmulator({ processingMs: 20, publishMs: 20 });
    const proxy = await startFaultProxy(emu.baseUrl);
    try {
      const posts = async () => ((await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] }).workspaces.find((w) => w.name === 'Demo')!.posts.total;
      const before = await posts();
      proxy.add({ method: 'POST', path: '/v1/posts', mode: 'after', answer: { status: 201, contentType: 'application/json', body: `{"id":"${'x'.repeat(9_000_000)}"}` } });
      const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'big answer', '--no-input'];
      const r = await runCli(args, { env: { ...emu.env(), VIDPUB_BASE_URL: proxy.baseUrl } });
      expect(r.stderr).toContain("Error: The outcome is unknown: the post may have been created (video med_demo_sample); the answer was not the service's own: HTTP 201 of 9.0 MB (its Content-Length).");
      const rerun = /Rerun to settle it \(nothing is done twice\): vidpub .* --idempotency-key (\S+)/.exec(r.stderr);
      expect(rerun).not.toBeNull();
      expect(r.code).toBe(9);
      // The rerun, through the service's own answer this time, settles it: the post made once.
      const again = await runCli([...args, '--idempotency-key', rerun![1]!, '--json'], { env: emu.env() });
      expect(again.code).toBe(0);
      expect(await posts()).toBe(before + 1);
    } finally {
      await proxy.close();
      await emu.close();
    }
  });
});

describe('an answer nested too deep', () => {
  it('two million levels of arrays: an unexpected answer naming the depth (exit 1), not "Maximum call stack size exceeded"', async () => {
    const levels = 2_000_000;
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('['.repeat(levels) + ']'.repeat(levels));
    };
    for (const args of [['--json'], []]) {
      const r = await me(...args);
      const message = args.length > 0 ? (JSON.parse(r.stderr) as { error: { message: string } }).error.message : r.stderr;
      expect(message).toContain(`Unexpected response to GET ${base}/v1/me: HTTP 200 (application/json) whose JSON nests deeper than 64 levels`);
      expect(r.stderr).not.toMatch(/call stack|please report it/);
      expect(r.code).toBe(1);
    }
  });

  it('an error body nested as deep reads as text: the status speaks (exit 1), nothing crashes', async () => {
    answer = (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":'.repeat(100_000) + '1' + '}'.repeat(100_000));
    };
    const r = await me();
    expect(r.stderr).toMatch(/^Error: .*HTTP 400/);
    expect(r.stderr).not.toMatch(/call stack|please report it/);
    expect(r.code).toBe(1);
  });
});

it('the --timeout covers reading the answer: one that came after it is not parsed (exit 7)', async () => {
  const clock = manualClock();
  answer = (_req, res) => {
    // The deadline passes while the answer is on its way (the clock moved on by the whole --timeout).
    clock.tick(2_000);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ workspace: { id: 'ws_1', name: 'late' } }));
  };
  const r = await runCli(['me', '--timeout', '2s', '--json'], { env: { VIDPUB_API_KEY: KEY, VIDPUB_BASE_URL: `${base}/v1` }, clock });
  expect(r.stdout).toBe('');
  expect(JSON.parse(r.stderr)).toMatchObject({ error: { type: 'timeout', exit_code: 7 } });
  expect(r.code).toBe(7);
});

it('the --timeout covers handling the answer after it arrived: spent by then, nothing is printed (exit 7)', async () => {
  answer = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ workspace: { id: 'ws_1', name: 'slow to handle' } }));
  };
  const run = async (handlingMs: number) => {
    const clock = manualClock();
    const made = makeContext({ env: { VIDPUB_API_KEY: KEY, VIDPUB_BASE_URL: `${base}/v1` }, clock });
    // The client's answer in hand, its handling takes `handlingMs` (the clock moves on by that much).
    const ctx: Context = {
      ...made.ctx,
      createClient: async (settings) => {
        const client = await made.ctx.createClient(settings);
        const getMe = client.getMe.bind(client);
        client.getMe = async (o) => {
          const me = await getMe(o);
          clock.tick(handlingMs);
          return me;
        };
        return client;
      },
    };
    const code = await main(['me', '--timeout', '2s', '--json'], ctx);
    return { code, stdout: made.stdout(), stderr: made.stderr() };
  };
  const inTime = await run(1_000);
  expect(inTime.code, inTime.stderr).toBe(0);
  expect(JSON.parse(inTime.stdout)).toMatchObject({ workspace: { name: 'slow to handle' } });
  const late = await run(2_000);
  expect(late.stdout).toBe('');
  expect(JSON.parse(late.stderr)).toMatchObject({
    error: { type: 'timeout', exit_code: 7, message: 'Stopped (--timeout reached) while handling the answer, after it arrived; nothing was printed.' },
  });
  expect(late.code).toBe(7);
});

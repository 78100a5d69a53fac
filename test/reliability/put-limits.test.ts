/**
 * The signed-URL PUT's own limits, against tiny local storage servers that
 * misbehave (a fake remote, not a mock of our layer): a storage that stops
 * reading (idle limit), one that reads too slowly (throughput floor), one that
 * takes the bytes and never answers (headers limit); and how the node:http PUT
 * meets a refusal before the body, a dropped connection, an abort, no listener.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { putFile, UploadLinkRefusedError } from '../../src/api/upload/put-file.js';
import { realClock } from '../../src/core/clock.js';
import { InterruptedError, ServiceError } from '../../src/errors.js';

const servers: Server[] = [];
const dirs: string[] = [];
async function storage(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/put`;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/**
 * A file of `size` bytes to upload, sparse (a hole of zeros): the PUT reads and sends every byte as from any file,
 * but making it writes nothing (64 MiB written four times over was most of this file's CPU). Removed after the test.
 */
function file(size: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-put-'));
  dirs.push(dir);
  const path = join(dir, 'clip.mp4');
  writeFileSync(path, '');
  truncateSync(path, size);
  return path;
}

// Every limit is long here; a test shortens only the one it checks, so a loaded machine's slow connect, write or
// answer never trips a limit the test is not about (a 300 ms idle limit once made the dropped-connection test retry
// twice under load).
const LONG = { connectMs: 30_000, headersMs: 30_000, responseBodyMs: 30_000, idleMs: 30_000, minBytesPerSec: 1, floorWindowMs: 60_000 };

async function put(url: string, size: number, limits: Partial<typeof LONG>) {
  const retries: string[] = [];
  const err = await putFile({
    target: { url, headers: { 'content-type': 'video/mp4' } },
    path: file(size),
    size,
    // The limits are timed by the wall (the watchdog's own timers); the pause between the two attempts is the
    // backoff on the command's clock, not what is checked here: it ends at once.
    clock: { ...realClock, sleep: () => Promise.resolve() },
    maxAttempts: 2,
    limits: { ...LONG, ...limits },
    onRetry: (r) => retries.push(r.reason),
  }).catch((e: unknown) => e);
  return { err, retries };
}

describe('PUT limits', () => {
  it('a storage that stops reading: the idle limit fails the attempt, retried, then a clear error', async () => {
    const url = await storage((req) => req.pause());
    const { err, retries } = await put(url, 64 * 1024 * 1024, { idleMs: 300 });
    expect(retries).toEqual(['the upload stalled: no data went out for 300 ms']);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as Error).message).toBe('the upload failed after 2 attempts: the upload stalled: no data went out for 300 ms');
  });

  it('a storage that reads too slowly: the throughput floor fails the attempt', async () => {
    const url = await storage((req) => {
      req.on('data', () => {
        req.pause();
        setTimeout(() => req.resume(), 10);
      });
    });
    const { err } = await put(url, 64 * 1024 * 1024, { minBytesPerSec: 1024 * 1024 * 1024, floorWindowMs: 400 });
    expect((err as Error).message).toMatch(/^the upload failed after 2 attempts: the upload was too slow: \d+ KiB\/s over \d+ s, under the floor of 1048576 KiB\/s$/);
  });

  it('a storage that takes every byte and never answers: the headers limit, in seconds', async () => {
    const url = await storage((req) => req.resume());
    const { err, retries } = await put(url, 1024, { headersMs: 300 });
    expect(retries).toEqual(['network error (UND_ERR_HEADERS_TIMEOUT)']);
    expect((err as Error).message).toBe('the upload failed after 2 attempts: network error (UND_ERR_HEADERS_TIMEOUT)');
  });
});

describe('PUT answers and failures on node:http', () => {
  it('a storage that refuses before reading the body (403, then closes): the answer counts, nothing is sent again', async () => {
    let requests = 0;
    const url = await storage((_req, res) => {
      requests++;
      res.writeHead(403, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { code: 'upload_link_expired', message: 'The upload link expired.' } }));
    });
    const { err, retries } = await put(url, 32 * 1024 * 1024, {});
    expect(err).toBeInstanceOf(UploadLinkRefusedError);
    expect((err as UploadLinkRefusedError).status).toBe(403);
    expect((err as Error).message).toBe('the upload link was refused: The upload link expired.');
    expect(retries).toEqual([]);
    expect(requests).toBe(1);
  });

  it('a storage that drops the connection halfway: retried from the start, every byte arrives, progress restarts at 0', async () => {
    const size = 8 * 1024 * 1024;
    const received: number[] = [];
    const url = await storage((req, res) => {
      let n = 0;
      const first = received.length === 0;
      received.push(0);
      req.on('data', (c: Buffer) => {
        n += c.length;
        received[received.length - 1] = n;
        if (first && n >= size / 2) req.socket.destroy();
      });
      req.on('end', () => res.end('{}'));
    });
    const progress: number[] = [];
    const retries: string[] = [];
    const result = await putFile({
      target: { url, headers: {} },
      path: file(size),
      size,
      clock: { ...realClock, sleep: () => Promise.resolve() },
      limits: LONG,
      onRetry: (r) => retries.push(r.reason),
      onProgress: (sent) => progress.push(sent),
    });
    expect(result).toEqual({ status: 200, attempts: 2 });
    expect(retries).toEqual(['the connection was dropped']);
    expect(received[1]).toBe(size);
    expect(progress.filter((p) => p === 0)).toHaveLength(2);
    expect(progress.at(-1)).toBe(size);
  });

  it('the signal aborted mid-body (Ctrl-C): InterruptedError, no retry', async () => {
    const url = await storage((req) => req.pause());
    const controller = new AbortController();
    const retries: string[] = [];
    const pending = putFile({
      target: { url, headers: {} },
      path: file(64 * 1024 * 1024),
      size: 64 * 1024 * 1024,
      clock: realClock,
      signal: controller.signal,
      limits: LONG,
      onRetry: (r) => retries.push(r.reason),
      onProgress: (sent) => {
        if (sent > 0) controller.abort(Object.assign(new Error('received SIGINT'), { name: 'AbortError' }));
      },
    }).catch((e: unknown) => e);
    const err = await pending;
    expect(err).toBeInstanceOf(InterruptedError);
    expect(retries).toEqual([]);
  });

  it('nothing listens at the link: a network error named by its code, after the attempts', async () => {
    const closed = await storage(() => undefined);
    const s = servers.pop()!;
    await new Promise((r) => s.close(r));
    const { err, retries } = await put(closed, 1024, {});
    expect(retries).toEqual(['network error (ECONNREFUSED)']);
    expect((err as Error).message).toBe('the upload failed after 2 attempts: network error (ECONNREFUSED)');
  });
});

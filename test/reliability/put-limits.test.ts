/**
 * The signed-URL PUT's own limits, against tiny local storage servers that
 * misbehave (a fake remote, not a mock of our layer): a storage that stops
 * reading (idle limit), one that reads too slowly (throughput floor), one that
 * takes the bytes and never answers (headers limit, not undici's 300 s).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { putFile } from '../../src/api/upload.js';
import { realClock } from '../../src/core/clock.js';
import { ServiceError } from '../../src/errors.js';

const servers: Server[] = [];
async function storage(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/put`;
}
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function file(size: number): string {
  const path = join(mkdtempSync(join(tmpdir(), 'vidpub-put-')), 'clip.mp4');
  writeFileSync(path, Buffer.alloc(size, 7));
  return path;
}

const FAST = { connectMs: 1000, headersMs: 300, responseBodyMs: 300, idleMs: 300, minBytesPerSec: 1, floorWindowMs: 60_000, keepAliveMs: 100 };

async function put(url: string, size: number, limits: Partial<typeof FAST>) {
  const retries: string[] = [];
  const err = await putFile({
    target: { url, headers: { 'content-type': 'video/mp4' } },
    path: file(size),
    size,
    clock: realClock,
    maxAttempts: 2,
    limits: { ...FAST, ...limits },
    onRetry: (r) => retries.push(r.reason),
  }).catch((e: unknown) => e);
  return { err, retries };
}

describe('PUT limits', () => {
  it('a storage that stops reading: the idle limit fails the attempt, retried, then a clear error', async () => {
    const url = await storage((req) => req.pause());
    const { err, retries } = await put(url, 64 * 1024 * 1024, {});
    expect(retries).toEqual(['the upload stalled: no data went out for 300 ms']);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as Error).message).toBe('the upload failed after 2 attempts: the upload stalled: no data went out for 300 ms');
  });

  it('a storage that reads too slowly: the throughput floor fails the attempt', async () => {
    const url = await storage((req) => {
      req.on('data', () => {
        req.pause();
        setTimeout(() => req.resume(), 100);
      });
    });
    const { err } = await put(url, 64 * 1024 * 1024, { idleMs: 10_000, headersMs: 10_000, minBytesPerSec: 1024 * 1024 * 1024, floorWindowMs: 400 });
    expect((err as Error).message).toMatch(/^the upload failed after 2 attempts: the upload was too slow: \d+ KiB\/s over \d+ s, under the floor of 1048576 KiB\/s$/);
  });

  it('a storage that takes every byte and never answers: the headers limit, not undici\'s 300 s', async () => {
    const url = await storage((req) => req.resume());
    const { err, retries } = await put(url, 1024, {});
    expect(retries).toEqual(['network error (UND_ERR_HEADERS_TIMEOUT)']);
    expect((err as Error).message).toBe('the upload failed after 2 attempts: network error (UND_ERR_HEADERS_TIMEOUT)');
  });
});

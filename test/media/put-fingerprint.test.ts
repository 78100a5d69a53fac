/**
 * The fingerprint the PUT takes of the bytes it sends (put-file.ts
 * `fingerprint: true`), against a small local storage that takes every byte:
 * the SHA-256 of the file, none for a file rewritten while it was read, and a
 * file that changed size refused as before. On this thread (a small file) and on
 * the hashing thread (util/running-fingerprint.ts; `workerFromBytes: 0` sends
 * these 4 MB there), whose failure leaves the fingerprint unknown, the upload done.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putFile } from '../../src/api/upload/put-file.js';
import { realClock } from '../../src/core/clock.js';
import { FileChangedError } from '../../src/api/upload/file-chunks.js';
import { exitCodeOf } from '../../src/errors.js';
import { createDebugLogger } from '../../src/api/send/debug.js';
import type { StartHashWorker } from '../../src/util/running-fingerprint.js';

const SIZE = 4 * 1024 * 1024;
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/put`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function file(fill: number | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'vidpub-fp-')), 'clip.mp4');
  writeFileSync(path, typeof fill === 'number' ? Buffer.alloc(SIZE, fill) : fill);
  return path;
}

type Fingerprint = boolean | { startWorker?: StartHashWorker; workerFromBytes?: number };

/** The PUT, with `midway` run once the connection has taken its first bytes; `debug` gets the --debug lines. */
function send(path: string, midway?: () => void, fingerprint: Fingerprint = true, debug?: string[]) {
  let done = false;
  return putFile({
    target: { url, headers: {} },
    path,
    size: SIZE,
    clock: realClock,
    fingerprint,
    ...(debug ? { debug: createDebugLogger({ out: { write: (t: string) => debug.push(t) }, now: () => 0 }) } : {}),
    onProgress: (sent) => {
      if (sent > 0 && !done && midway) {
        done = true;
        midway();
      }
    },
  });
}

describe('the PUT fingerprint', () => {
  it('is the SHA-256 of the file sent', async () => {
    const result = await send(file(7));
    expect(result.fingerprint).toBe(createHash('sha256').update(Buffer.alloc(SIZE, 7)).digest('hex'));
  });

  it('a file rewritten (same size) while it is read: uploaded, no fingerprint', async () => {
    const path = file(7);
    const result = await send(path, () => {
      writeFileSync(path, Buffer.alloc(SIZE, 8));
      const later = new Date(Date.now() + 60_000);
      utimesSync(path, later, later);
    });
    expect(result.status).toBe(200);
    expect(result.fingerprint).toBeUndefined();
  });

  it('a file that shrinks while it is read: refused as before (exit 2), no fingerprint', async () => {
    const path = file(7);
    const err = await send(path, () => truncateSync(path, 1024)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileChangedError);
    expect((err as Error).message).toMatch(/clip\.mp4 changed size during the upload \(it was 4,194,304 bytes/);
    expect(exitCodeOf(err)).toBe(2);
  });
});

describe('the PUT fingerprint on the hashing thread', () => {
  const onThread = { workerFromBytes: 0 };

  it('is the SHA-256 of the file sent, chunk after chunk in order', async () => {
    const bytes = randomBytes(SIZE + 12345).subarray(0, SIZE);
    const result = await send(file(bytes), undefined, onThread);
    expect(result.status).toBe(200);
    expect(result.fingerprint).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('a file rewritten (same size) while it is read: uploaded, no fingerprint', async () => {
    const path = file(7);
    const result = await send(
      path,
      () => {
        writeFileSync(path, Buffer.alloc(SIZE, 8));
        const later = new Date(Date.now() + 60_000);
        utimesSync(path, later, later);
      },
      onThread,
    );
    expect(result.status).toBe(200);
    expect(result.fingerprint).toBeUndefined();
  });

  it('a thread that cannot start: uploaded, no fingerprint, said with --debug', async () => {
    const debug: string[] = [];
    const startWorker: StartHashWorker = () => {
      throw new Error('no threads here');
    };
    const result = await send(file(7), undefined, { ...onThread, startWorker }, debug);
    expect(result.status).toBe(200);
    expect(result.fingerprint).toBeUndefined();
    expect(debug.join('')).toMatch(/the content fingerprint of \S*clip\.mp4 is not taken: the hashing thread could not start: no threads here/);
  });

  it('a thread that fails while the file is sent: uploaded, no fingerprint, said once with --debug', async () => {
    const debug: string[] = [];
    // The real thread, which throws once it has hashed a few chunks: the PUT waits for it no longer.
    const startWorker: StartHashWorker = (source, options) => new Worker(source.replace('hash.update(', "if (k === 3) throw new Error('hashing broke'); hash.update("), options);
    const result = await send(file(7), undefined, { ...onThread, startWorker }, debug);
    expect(result.status).toBe(200);
    expect(result.fingerprint).toBeUndefined();
    const said = debug.join('').match(/is not taken: .*/g) ?? [];
    expect(said).toEqual([expect.stringMatching(/is not taken: the hashing thread failed: hashing broke/)]);
  });
});

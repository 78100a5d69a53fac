/**
 * The fingerprint the PUT takes of the bytes it sends (put-file.ts
 * `fingerprint: true`), against a small local storage that takes every byte:
 * the SHA-256 of the file, none for a file rewritten while it was read, and a
 * file that changed size refused as before.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putFile } from '../../src/api/upload/put-file.js';
import { realClock } from '../../src/core/clock.js';
import { FileChangedError } from '../../src/api/upload/file-chunks.js';
import { exitCodeOf } from '../../src/errors.js';

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

function file(fill: number): string {
  const path = join(mkdtempSync(join(tmpdir(), 'vidpub-fp-')), 'clip.mp4');
  writeFileSync(path, Buffer.alloc(SIZE, fill));
  return path;
}

/** The PUT, with `midway` run once the connection has taken its first bytes. */
function send(path: string, midway?: () => void) {
  let done = false;
  return putFile({
    target: { url, headers: {} },
    path,
    size: SIZE,
    clock: realClock,
    fingerprint: true,
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

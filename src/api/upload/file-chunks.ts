/**
 * A file's bytes for the signed-URL PUT (put-file.ts), read in chunks into a
 * few reused buffers, and the checks that the file still has the size that
 * was announced to the service.
 */
import { readSync } from 'node:fs';
import { closeFd, openForReading, statPath } from '../../util/fs-calls.js';
import { UsageError } from '../../errors.js';
import { exactBytes } from '../../util/bytes.js';

/**
 * 64 KiB reads, as curl's: a read this size lands in a buffer still in the
 * CPU's cache, and the socket's copy of it reads it from there. With 1 MiB
 * reads the kernel's copy into the buffer cost more than the send itself
 * (docs/performance.md, on the PUT).
 */
export const UPLOAD_CHUNK_BYTES = 64 * 1024;
/** Buffers reused in turn: the socket holds at most this many chunks not yet sent. */
export const POOL_SIZE = 8;

/** The file grew or shrank while it was being sent. */
export class FileChangedError extends UsageError {
  constructor(path: string, expected: number, actual: string) {
    super(`${path} changed size during the upload (it was ${exactBytes(expected)}, ${actual})`, {
      hint: 'Wait until the file is completely written, then upload it again.',
    });
  }
}

/** Throws when the file can no longer be read or no longer has `expected` bytes. */
export async function ensureSize(path: string, name: string, expected: number): Promise<void> {
  let size: number;
  try {
    size = (await statPath(path)).size;
  } catch (err) {
    throw new UsageError(`${name} can no longer be read: ${(err as Error).message}`);
  }
  if (size !== expected) throw new FileChangedError(name, expected, `now ${size.toLocaleString('en-US')}`);
}

/** The file's size and modification time, to tell whether it was rewritten meanwhile (undefined: it cannot be read). */
export async function fileStamp(path: string): Promise<string | undefined> {
  try {
    const st = await statPath(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The file's bytes in chunks read into a few buffers used in turn: memory
 * stays flat whatever the size (a fresh Buffer per read piles up garbage the
 * GC frees late; docs/performance.md).
 *
 * Reusing a buffer is safe because of how sendOnce() (put-stream.ts) writes
 * them: it asks for the next chunk only once fewer than POOL_SIZE chunks wait
 * in the socket (write callbacks come in order), so the buffer read into has
 * been sent.
 *
 * The reads are synchronous, as curl's are: a chunk's read from the page cache
 * or a disk takes well under the time the socket needs to send it, and it
 * spares the thread-pool round trip per chunk (a large share of the client's
 * CPU in the upload benchmark; docs/performance.md).
 *
 * The count is checked against `size`: a file that grew or shrank since it
 * was announced throws FileChangedError.
 */
export class FileChunks {
  private fd: number | undefined;

  constructor(
    private readonly path: string,
    private readonly name: string,
    private readonly size: number,
    private readonly chunkBytes = UPLOAD_CHUNK_BYTES,
    /** At least POOL_SIZE buffers of chunkBytes to read into in turn (the fingerprint's shared ones), instead of the reader's own. */
    private readonly pool?: Buffer[],
  ) {}

  async *read(): AsyncGenerator<Buffer> {
    const fd = (this.fd = await openForReading(this.path));
    const pool = this.pool ?? Array.from({ length: POOL_SIZE }, () => Buffer.allocUnsafe(Math.min(this.chunkBytes, Math.max(1, this.size))));
    try {
      let position = 0;
      for (let i = 0; position < this.size; i++) {
        // Closed by the attempt's end while this generator waited: its descriptor may already be another file's.
        if (this.fd !== fd) return;
        const buf = pool[i % pool.length]!;
        const want = Math.min(buf.length, this.size - position);
        let got = 0;
        while (got < want) {
          const n = readSync(fd, buf, got, want - got, position + got);
          if (n === 0) throw new FileChangedError(this.name, this.size, `only ${(position + got).toLocaleString('en-US')} could be read`);
          got += n;
        }
        position += got;
        yield buf.subarray(0, got);
      }
      if (this.fd === fd && readSync(fd, Buffer.alloc(1), 0, 1, this.size) > 0) throw new FileChangedError(this.name, this.size, 'now larger');
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await closeFd(fd).catch(() => undefined);
  }
}

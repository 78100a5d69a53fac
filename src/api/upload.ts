/**
 * The PUT of a file's bytes to a signed upload URL (upload.url). Streamed from
 * disk in 1 MiB reads with Content-Length, with exactly upload.headers and
 * never the API key: the link is already signed. Not fetch: Node's fetch
 * buffers a whole request body.
 *
 * A transient failure (connection reset, 5xx, 408, 429) is retried from the
 * start with a fresh stream; a refused link (403 expired or tampered, 409
 * already used, 410) is returned to the caller as UploadLinkRefusedError,
 * who completes (the bytes may be there) or asks for a new link.
 */
import { readSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { InterruptedError, ServiceError, UsageError, VidpubError } from '../errors.js';
import type { DebugLogger } from './debug.js';
import { isRetryableNetworkError, networkCode, parseErrorBody } from './http-errors.js';
import { backoffDelay, interruptibleSleep, isAbortError, parseRetryAfter, type BackoffPolicy } from './retry.js';
import { loadUndici } from './undici.js';

/** 1 MiB reads: with undici this is close to curl; 64 KiB reads lose about a third. */
export const UPLOAD_CHUNK_BYTES = 1024 * 1024;
/** Buffers reused in turn: one being sent, one being read, one spare. */
const POOL_SIZE = 3;
const DEFAULT_MAX_ATTEMPTS = 4;
const PUT_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 8000 };
/** The longest Retry-After of the storage we wait out between attempts. */
const MAX_DELAY_MS = 60_000;

function secToMs(sec: number | undefined): number | undefined {
  return sec === undefined ? undefined : sec * 1000;
}

export interface PutTarget {
  url: string;
  method?: string;
  headers: Record<string, string>;
}

export interface PutFileOptions {
  target: PutTarget;
  path: string;
  /** How the file is named in messages (default: path). */
  name?: string;
  /** The size announced to the service (size_bytes); the file must still have it. */
  size: number;
  clock: Clock;
  signal?: AbortSignal;
  /** Bytes handed to the connection so far in this attempt (restarts at 0 on a retry). */
  onProgress?(sent: number, total: number): void;
  /** Before a retry: which attempt comes next, why, and after how long. */
  onRetry?(info: { attempt: number; reason: string; delayMs: number }): void;
  /** The --debug log (it redacts the signed URL's query). */
  debug?: DebugLogger;
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
}

export interface PutFileResult {
  status: number;
  attempts: number;
}

/** The storage refused the signed link (403, 409, 410): expired, already used or tampered. Ask for a new one. */
export class UploadLinkRefusedError extends ServiceError {
  readonly status: number;
  readonly code?: string;
  /** An earlier attempt sent every byte before its connection failed: the bytes may have arrived. */
  readonly bytesMayHaveArrived: boolean;
  constructor(message: string, opts: { status: number; code?: string; bytesMayHaveArrived: boolean }) {
    super(message, { hint: 'Run the command again to get a new upload link.' });
    this.status = opts.status;
    this.code = opts.code;
    this.bytesMayHaveArrived = opts.bytesMayHaveArrived;
  }
}

/** The file grew or shrank while it was being sent. */
export class FileChangedError extends UsageError {
  constructor(path: string, expected: number, actual: string) {
    super(`${path} changed size during the upload (it was ${expected.toLocaleString('en-US')} bytes, ${actual})`, {
      hint: 'Wait until the file is completely written, then upload it again.',
    });
  }
}

class TransientError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A short reason for a network failure worth a retry, or undefined when it is not one. */
function networkReason(err: unknown): string | undefined {
  if (!isRetryableNetworkError(err)) return undefined;
  const code = networkCode(err);
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' ? 'the connection was dropped' : `network error (${code})`;
}


/**
 * Streams the file at `path` to the signed URL. Resolves on a 2xx; throws
 * UploadLinkRefusedError (403), UsageError (other 4xx, or the file changed
 * size), ServiceError (transient failures after the last attempt), or the
 * signal's reason when aborted.
 */
export async function putFile(opts: PutFileOptions): Promise<PutFileResult> {
  const { request, Agent } = await loadUndici();
  const maxAttempts = Math.max(1, opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const method = (opts.target.method || 'PUT').toUpperCase();
  const shownName = opts.name ?? opts.path;
  // A private pool: the signed URL is on the storage host, not the API's, and its sockets close with the upload.
  const agent: Dispatcher = new Agent({ connections: 1 });
  let sentAllBefore = false;
  try {
    for (let attempt = 1; ; attempt++) {
      if (opts.signal?.aborted) throw new InterruptedError('Interrupted.');
      await ensureSize(opts.path, shownName, opts.size);
      const chunks = new FileChunks(opts.path, shownName, opts.size);
      let sent = 0;
      opts.onProgress?.(0, opts.size);
      const body = (async function* () {
        for await (const chunk of chunks.read()) {
          sent += chunk.length;
          opts.onProgress?.(sent, opts.size);
          yield chunk;
        }
      })();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(opts.target.headers ?? {})) {
        // The link is signed: never send a key, whatever the headers say.
        if (k.toLowerCase() === 'authorization' || k.toLowerCase() === 'content-length') continue;
        headers[k] = v;
      }
      headers['content-length'] = String(opts.size);
      const logResponse = opts.debug?.request(method, opts.target.url, `(${opts.size} bytes${attempt > 1 ? `, attempt ${attempt}` : ''})`);
      let failure: TransientError;
      try {
        const res = await request(opts.target.url, {
          method: method as Dispatcher.HttpMethod,
          headers,
          // undici streams any (async) iterable body (docs/api/Dispatcher.md); its types list only Readable.
          body: body as unknown as Readable,
          signal: opts.signal,
          dispatcher: agent,
        });
        const text = await res.body.text().catch(() => '');
        logResponse?.(res.statusCode);
        if (res.statusCode >= 200 && res.statusCode < 300) {
          await ensureSize(opts.path, shownName, opts.size);
          return { status: res.statusCode, attempts: attempt };
        }
        const contentType = res.headers['content-type'];
        const parsed = parseErrorBody(text, Array.isArray(contentType) ? contentType[0] : contentType);
        const message = parsed.message || `HTTP ${res.statusCode}`;
        const code = parsed.code;
        // 403: expired or tampered; 409: already used (the bytes may be there); 410: gone.
        if (res.statusCode === 403 || res.statusCode === 409 || res.statusCode === 410) {
          throw new UploadLinkRefusedError(`the upload link was refused: ${message}`, {
            status: res.statusCode,
            code,
            bytesMayHaveArrived: sentAllBefore,
          });
        }
        if (res.statusCode >= 500 || res.statusCode === 408 || res.statusCode === 429) {
          failure = new TransientError(`the storage answered ${res.statusCode}: ${message}`, secToMs(parseRetryAfter(res.headers['retry-after'], opts.clock.now())));
        } else {
          throw new UsageError(`the upload was refused: ${message}`, {
            http: { status: res.statusCode, method, path: new URL(opts.target.url).pathname, code },
          });
        }
      } catch (err) {
        if (isAbortError(err, opts.signal)) throw new InterruptedError('Interrupted.', { cause: err });
        if (err instanceof VidpubError) throw err;
        const reason = networkReason(err);
        if (!reason) throw err;
        logResponse?.('failed', (err as Error).message);
        failure = new TransientError(reason);
      } finally {
        await chunks.close();
      }
      if (sent === opts.size) sentAllBefore = true;
      if (attempt >= maxAttempts) {
        throw new ServiceError(`the upload failed after ${attempt} attempts: ${failure.message}`, {
          hint: 'Check your connection and run the command again.',
        });
      }
      const delayMs = Math.min(MAX_DELAY_MS, failure.retryAfterMs ?? backoffDelay(attempt - 1, PUT_BACKOFF));
      opts.onRetry?.({ attempt: attempt + 1, reason: failure.message, delayMs });
      await interruptibleSleep(opts.clock, delayMs, opts.signal);
    }
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

async function ensureSize(path: string, name: string, expected: number): Promise<void> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (err) {
    throw new UsageError(`${name} can no longer be read: ${(err as Error).message}`);
  }
  if (size !== expected) throw new FileChangedError(name, expected, `now ${size.toLocaleString('en-US')}`);
}

/**
 * The file's bytes in 1 MiB chunks read into a few buffers used in turn:
 * memory stays flat whatever the size (a fresh 1 MiB Buffer per read piles up
 * garbage the GC frees late: +50 MB of RSS for 1 GB).
 *
 * Reusing a buffer is safe because of how undici writes an iterable body: it
 * asks for chunk i+1 only once write(i) returned true or after 'drain', so
 * the chunk before i has left the process by then.
 *
 * The reads are synchronous, as curl's are: a 1 MiB read from the page cache
 * or a disk takes well under the time the socket needs to send it, and it
 * spares the thread-pool round trip per chunk (a third of the client's CPU
 * in the upload benchmark).
 *
 * The count is checked against `size`: a file that grew or shrank since it
 * was announced throws FileChangedError.
 */
export class FileChunks {
  private handle: FileHandle | undefined;

  constructor(
    private readonly path: string,
    private readonly name: string,
    private readonly size: number,
    private readonly chunkBytes = UPLOAD_CHUNK_BYTES,
  ) {}

  async *read(): AsyncGenerator<Buffer> {
    const fh = (this.handle = await open(this.path, 'r'));
    const pool = Array.from({ length: POOL_SIZE }, () => Buffer.allocUnsafe(Math.min(this.chunkBytes, Math.max(1, this.size))));
    try {
      let position = 0;
      for (let i = 0; position < this.size; i++) {
        const buf = pool[i % POOL_SIZE]!;
        const want = Math.min(buf.length, this.size - position);
        let got = 0;
        while (got < want) {
          const n = readSync(fh.fd, buf, got, want - got, position + got);
          if (n === 0) throw new FileChangedError(this.name, this.size, `only ${(position + got).toLocaleString('en-US')} could be read`);
          got += n;
        }
        position += got;
        yield buf.subarray(0, got);
      }
      if (readSync(fh.fd, Buffer.alloc(1), 0, 1, this.size) > 0) throw new FileChangedError(this.name, this.size, 'now larger');
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    const fh = this.handle;
    this.handle = undefined;
    await fh?.close().catch(() => undefined);
  }
}

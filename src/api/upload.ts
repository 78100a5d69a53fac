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
import { ServiceError, UsageError, VidpubError } from '../errors.js';
import type { DebugLogger } from './debug.js';
import { isRetryableNetworkError, networkCode, parseErrorBody } from './http-errors.js';
import { backoffDelay, interruptibleSleep, isAbortError, parseRetryAfter, stoppedError, type BackoffPolicy } from './retry.js';
import { loadUndici } from './undici.js';

/** 1 MiB reads: with undici this is close to curl; 64 KiB reads lose about a third. */
export const UPLOAD_CHUNK_BYTES = 1024 * 1024;
/** Buffers reused in turn: one being sent, one being read, one spare. */
const POOL_SIZE = 3;
const DEFAULT_MAX_ATTEMPTS = 4;
const PUT_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 8000 };
/** The longest Retry-After of the storage we wait out between attempts. */
const MAX_DELAY_MS = 60_000;

/**
 * The PUT's own limits, instead of undici's 300 s defaults: a stalled
 * connection fails the attempt in seconds, never in five minutes. The body
 * has no total (1 GB on a slow line takes what it takes) but an idle limit
 * and a throughput floor, so a link that trickles cannot hold it forever.
 */
export const PUT_LIMITS = {
  connectMs: 10_000,
  /**
   * Until the response headers; undici also refreshes it at each chunk the
   * connection takes, so while sending it is an idle limit per 1 MiB chunk.
   */
  headersMs: 30_000,
  /** The response body (small JSON), between chunks. */
  responseBodyMs: 30_000,
  /** No byte taken by the connection for this long: the attempt failed. */
  idleMs: 30_000,
  /** Fewer bytes than this per second, averaged over `floorWindowMs`: the attempt failed. */
  minBytesPerSec: 16 * 1024,
  floorWindowMs: 60_000,
  /** A kept-alive socket of the storage is not kept longer than this. */
  keepAliveMs: 4_000,
};

export type PutLimits = typeof PUT_LIMITS;

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
  /** Overrides of PUT_LIMITS (tests). */
  limits?: Partial<PutLimits>;
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

  /** 409 "in progress": another upload to this link is being received right now (not a dropped connection). */
  get inUse(): boolean {
    return this.status === 409 && /in progress|in use|one upload at a time/i.test(this.message);
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
  const limits: PutLimits = { ...PUT_LIMITS, ...opts.limits };
  // A private pool: the signed URL is on the storage host, not the API's, and its sockets close with the upload.
  const agent: Dispatcher = new Agent({
    connections: 1,
    connect: { timeout: limits.connectMs },
    headersTimeout: limits.headersMs,
    bodyTimeout: limits.responseBodyMs,
    keepAliveTimeout: limits.keepAliveMs,
    keepAliveMaxTimeout: limits.keepAliveMs,
  });
  let sentAllBefore = false;
  try {
    for (let attempt = 1; ; attempt++) {
      if (opts.signal?.aborted) throw stoppedError(opts.signal);
      await ensureSize(opts.path, shownName, opts.size);
      const chunks = new FileChunks(opts.path, shownName, opts.size);
      let sent = 0;
      opts.onProgress?.(0, opts.size);
      const watchdog = new Watchdog(limits, opts.signal);
      const body = (async function* () {
        for await (const chunk of chunks.read()) {
          sent += chunk.length;
          watchdog.progress(sent);
          opts.onProgress?.(sent, opts.size);
          yield chunk;
        }
        watchdog.bodySent();
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
          signal: watchdog.signal,
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
        if (opts.signal?.aborted) throw stoppedError(opts.signal, err);
        if (watchdog.tripped) {
          logResponse?.('failed', watchdog.tripped);
          failure = new TransientError(watchdog.tripped);
        } else {
          if (isAbortError(err)) throw stoppedError(opts.signal, err);
          if (err instanceof VidpubError) throw err;
          const reason = networkReason(err);
          if (!reason) throw err;
          logResponse?.('failed', (err as Error).message);
          failure = new TransientError(reason);
        }
      } finally {
        watchdog.stop();
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

/**
 * Watches one PUT attempt: aborts it when no byte was taken for `idleMs`, or
 * when fewer than `minBytesPerSec` went out over the last `floorWindowMs`,
 * while the body is being sent. `tripped` says why, for the retry.
 */
class Watchdog {
  readonly #controller = new AbortController();
  readonly signal: AbortSignal;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #samples: { at: number; sent: number }[] = [];
  #lastAt = Date.now();
  #sending = true;
  tripped?: string;

  constructor(
    private readonly limits: PutLimits,
    outer?: AbortSignal,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.#controller.signal]) : this.#controller.signal;
    this.#samples.push({ at: this.#lastAt, sent: 0 });
    const tick = Math.max(20, Math.min(1000, Math.floor(limits.idleMs / 4)));
    this.#timer = setInterval(() => this.#check(), tick);
    this.#timer.unref?.();
  }

  progress(sent: number): void {
    const now = Date.now();
    this.#lastAt = now;
    const last = this.#samples[this.#samples.length - 1]!;
    if (now - last.at >= 250) this.#samples.push({ at: now, sent });
    while (this.#samples.length > 2 && now - this.#samples[1]!.at >= this.limits.floorWindowMs) this.#samples.shift();
  }

  /** The last byte went out: now undici's headersTimeout watches the answer. */
  bodySent(): void {
    this.#sending = false;
  }

  #check(): void {
    if (!this.#sending || this.tripped) return;
    const now = Date.now();
    if (now - this.#lastAt >= this.limits.idleMs) {
      return this.#trip(`the upload stalled: no data went out for ${seconds(this.limits.idleMs)}`);
    }
    const first = this.#samples[0]!;
    const span = now - first.at;
    if (span >= this.limits.floorWindowMs) {
      const last = this.#samples[this.#samples.length - 1]!;
      const rate = ((last.sent - first.sent) * 1000) / span;
      if (rate < this.limits.minBytesPerSec) {
        this.#trip(`the upload was too slow: ${Math.round(rate / 1024)} KiB/s over ${Math.round(span / 1000)} s, under the floor of ${Math.round(this.limits.minBytesPerSec / 1024)} KiB/s`);
      }
    }
  }

  #trip(why: string): void {
    this.tripped = why;
    this.#controller.abort(Object.assign(new Error(why), { name: 'AbortError' }));
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** "30 s", or "300 ms" under a second. */
function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
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

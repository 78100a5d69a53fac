/**
 * The PUT of a file's bytes to a signed upload URL (upload.url). Streamed from
 * disk in 1 MiB reads with Content-Length, with exactly upload.headers and
 * never the API key: the link is already signed. Not fetch: Node's fetch
 * buffers a whole request body.
 *
 * On node:http (node:https loaded for an https link), like the API client's
 * JSON calls (transport.ts): undici did the same PUT no faster (1 GB to the
 * emulator: node:http 1.88 s, undici 2.03 s, curl 2.37 s, medians of 11
 * interleaved runs), and loading it (~60 files through the CommonJS loader)
 * then compiling its WebAssembly HTTP parser for one request cost ~36 ms of
 * CPU per upload. See docs/performance.md.
 *
 * A transient failure (connection reset, 5xx, 408, 429) is retried from the
 * start with a fresh stream; a refused link (403 expired or tampered, 409
 * already used, 410) is returned to the caller as UploadLinkRefusedError,
 * who completes (the bytes may be there) or asks for a new link.
 */
import { readSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import http from 'node:http';
import type * as Https from 'node:https';
import type { Clock } from '../core/clock.js';
import { ServiceError, UsageError, VidpubError } from '../errors.js';
import type { DebugLogger } from './debug.js';
import { isRetryableNetworkError, networkCode, parseErrorBody } from './http-errors.js';
import { backoffDelay, interruptibleSleep, isAbortError, parseRetryAfter, stoppedError, type BackoffPolicy } from './backoff.js';
import { TransportTimeoutError, watchSignal } from './transport.js';

/** 1 MiB reads: close to curl; 64 KiB reads lose about a third. */
export const UPLOAD_CHUNK_BYTES = 1024 * 1024;
/** Buffers reused in turn (1 MiB each): the socket holds at most this many chunks not yet sent. */
const POOL_SIZE = 3;
const DEFAULT_MAX_ATTEMPTS = 4;
const PUT_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 8000 };
/** The longest Retry-After of the storage we wait out between attempts. */
const MAX_DELAY_MS = 60_000;

/**
 * The PUT's own limits: a stalled connection fails the attempt in seconds,
 * never in minutes. The body has no total (1 GB on a slow line takes what it
 * takes) but an idle limit and a throughput floor, so a link that trickles
 * cannot hold it forever.
 */
export const PUT_LIMITS = {
  connectMs: 10_000,
  /** From the last byte of the file sent until the response headers. */
  headersMs: 30_000,
  /** The response body (small JSON), between chunks. */
  responseBodyMs: 30_000,
  /** No byte taken by the connection for this long: the attempt failed. */
  idleMs: 30_000,
  /** Fewer bytes than this per second, averaged over `floorWindowMs`: the attempt failed. */
  minBytesPerSec: 16 * 1024,
  floorWindowMs: 60_000,
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
  /** Bytes taken by the connection so far in this attempt (restarts at 0 on a retry). */
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
  const maxAttempts = Math.max(1, opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const method = (opts.target.method || 'PUT').toUpperCase();
  const shownName = opts.name ?? opts.path;
  const limits: PutLimits = { ...PUT_LIMITS, ...opts.limits };
  const url = new URL(opts.target.url);
  const lib = url.protocol === 'https:' ? await import('node:https') : http;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.target.headers ?? {})) {
    // The link is signed: never send a key, whatever the headers say.
    if (k.toLowerCase() === 'authorization' || k.toLowerCase() === 'content-length') continue;
    headers[k] = v;
  }
  headers['content-length'] = String(opts.size);
  let sentAllBefore = false;
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw stoppedError(opts.signal);
    await ensureSize(opts.path, shownName, opts.size);
    const chunks = new FileChunks(opts.path, shownName, opts.size);
    let sent = 0;
    opts.onProgress?.(0, opts.size);
    const watchdog = new Watchdog(limits, opts.signal);
    const logResponse = opts.debug?.request(method, opts.target.url, `(${opts.size} bytes${attempt > 1 ? `, attempt ${attempt}` : ''})`);
    let failure: TransientError;
    try {
      const res = await sendOnce(lib, url, { method, headers, limits, chunks, signal: watchdog.signal }, {
        taken(n) {
          sent += n;
          watchdog.progress(sent);
          opts.onProgress?.(sent, opts.size);
        },
        bodySent: () => watchdog.bodySent(),
      });
      logResponse?.(res.statusCode);
      if (res.statusCode >= 200 && res.statusCode < 300) {
        await ensureSize(opts.path, shownName, opts.size);
        return { status: res.statusCode, attempts: attempt };
      }
      const contentType = res.headers['content-type'];
      const parsed = parseErrorBody(res.text, Array.isArray(contentType) ? contentType[0] : contentType);
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
          http: { status: res.statusCode, method, path: url.pathname, code },
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
}

interface PutResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

interface SendOptions {
  method: string;
  headers: Record<string, string>;
  limits: PutLimits;
  chunks: FileChunks;
  signal: AbortSignal;
}

interface SendEvents {
  /** `n` more bytes of the file were taken by the connection (written to the socket). */
  taken(n: number): void;
  /** The last byte of the file was taken: now the headers limit runs. */
  bodySent(): void;
}

/**
 * One attempt: a fresh connection (no keep-alive: a retry comes after a
 * failure or a back-off, and the sockets close with the upload), the file
 * written chunk by chunk. A chunk's buffer is read into again only once the
 * socket has written it (its write callback), and at most POOL_SIZE chunks
 * wait in the socket: backpressure, and memory flat whatever the size.
 *
 * Resolves with the response as soon as it has arrived, even when the
 * storage answered before the whole file was sent (a refusal); rejects with
 * the connection's error, a timeout (undici's codes, which the retry rules
 * and messages know), the file's FileChangedError, or the signal's abort.
 */
function sendOnce(lib: typeof http | typeof Https, url: URL, o: SendOptions, on: SendEvents): Promise<PutResponse> {
  return new Promise<PutResponse>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const req = lib.request(url, { method: o.method, headers: o.headers, agent: false });
    watchSignal(req, o.signal);
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      // Whatever was not sent or read: the connection goes with the attempt.
      setImmediate(() => req.destroy());
    };
    const fail = (err: Error) => settle(() => reject(err));
    const arm = (ms: number, code: TransportTimeoutError['code'], what: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => fail(new TransportTimeoutError(code, `${what} (${ms} ms)`)), ms);
    };
    req.on('error', fail);
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      arm(o.limits.connectMs, 'UND_ERR_CONNECT_TIMEOUT', 'could not connect in time');
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      const done = () => settle(() => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
      arm(o.limits.responseBodyMs, 'UND_ERR_BODY_TIMEOUT', 'the response body did not arrive in time');
      res.on('data', (c: Buffer) => {
        parts.push(c);
        arm(o.limits.responseBodyMs, 'UND_ERR_BODY_TIMEOUT', 'the response body did not arrive in time');
      });
      res.on('end', done);
      // A storage that answers then closes (a refusal before the body was read): the answer counts.
      res.on('error', done);
      res.on('close', done);
    });

    let inSocket = 0;
    let wake: (() => void) | undefined;
    const resume = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    req.on('close', resume);
    void (async () => {
      for await (const chunk of o.chunks.read()) {
        if (settled) return;
        const n = chunk.length;
        inSocket++;
        req.write(chunk, (err) => {
          inSocket--;
          if (!err && !settled) on.taken(n);
          resume();
        });
        // The next read goes into the buffer of the chunk POOL_SIZE back: it must have been sent.
        while (inSocket >= POOL_SIZE && !settled && !req.destroyed) await new Promise<void>((r) => (wake = r));
        if (settled || req.destroyed) return;
      }
      req.end(() => {
        if (settled) return;
        on.bodySent();
        arm(o.limits.headersMs, 'UND_ERR_HEADERS_TIMEOUT', 'no response headers in time');
      });
    })().catch(fail);
  });
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

  /** The last byte went out: now the headers limit watches the answer. */
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
 * Reusing a buffer is safe because of how sendOnce() writes them: it asks
 * for the next chunk only once fewer than POOL_SIZE chunks wait in the socket
 * (write callbacks come in order), so the buffer read into has been sent.
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

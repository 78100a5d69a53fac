/**
 * The PUT of a file's bytes to a signed upload URL (upload.url). Streamed from
 * disk in 64 KiB reads (file-chunks.ts) with Content-Length, with exactly upload.headers and
 * never the API key: the link is already signed. Not fetch: Node's fetch
 * buffers a whole request body.
 *
 * On node:http (node:https loaded for an https link), like the API client's
 * JSON calls (transport.ts): undici did the same PUT no faster, and loading
 * it (many files through the CommonJS loader) then compiling its WebAssembly
 * HTTP parser for one request cost every upload more than the PUT saved.
 * See docs/performance.md.
 *
 * A transient failure (connection reset, 5xx, 408, 429) is retried from the
 * start with a fresh stream; a refused link (403 expired or tampered, 409
 * already used, 410) is returned to the caller as UploadLinkRefusedError,
 * who completes (the bytes may be there) or asks for a new link.
 *
 * This file runs the attempts; one attempt's streaming is put-stream.ts,
 * its progress limits put-watchdog.ts, the file's chunks file-chunks.ts,
 * and what each outcome means put-retry.ts.
 */
import type { Clock } from '../../core/clock.js';
import { ServiceError, UsageError, VidpubError } from '../../errors.js';
import { interruptibleSleep, isAbortError, parseRetryAfter, stoppedError } from '../send/backoff.js';
import type { DebugLogger } from '../send/debug.js';
import { FileChunks, POOL_SIZE, UPLOAD_CHUNK_BYTES, ensureSize, fileStamp } from './file-chunks.js';
import type { RunningFingerprint } from '../../util/content-hash.js';
import { runningFingerprint, type StartHashWorker } from '../../util/running-fingerprint.js';
import { header, parseErrorBody } from '../send/http-errors.js';
import { Network } from '../net/net.js';
import type { NetSettings } from '../net/net-types.js';
import { isHopelessNetError, netProblem } from '../net/net-errors.js';
import { DEFAULT_MAX_ATTEMPTS, judgePutAnswer, retryDelayMs, retryableNetworkReason, type Transient } from './put-retry.js';
import { PUT_LIMITS, sendOnce, type PutLimits, type PutResponse } from './put-stream.js';
import { Watchdog } from './put-watchdog.js';

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
  /** Proxies and trusted CAs, as the API client's (net.ts). */
  net?: NetSettings;
  /**
   * Take the file's content fingerprint (util/content-hash.ts) from the bytes as they are sent (on a thread of its
   * own for a large file: util/running-fingerprint.ts; tests pass how that thread starts, and from what size).
   */
  fingerprint?: boolean | { startWorker?: StartHashWorker; workerFromBytes?: number };
}

export interface PutFileResult {
  status: number;
  attempts: number;
  /**
   * The fingerprint of the bytes the successful attempt sent, when asked for
   * and the file was the same (size and modification time) before and after.
   */
  fingerprint?: string;
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

/** One upload, ready to be attempted. */
interface Put {
  opts: PutFileOptions;
  method: string;
  url: URL;
  network: Network;
  headers: Record<string, string>;
  limits: PutLimits;
  /** How the file is named in messages. */
  name: string;
}

/**
 * Streams the file at `path` to the signed URL. Resolves on a 2xx; throws
 * UploadLinkRefusedError (403), UsageError (other 4xx, or the file changed
 * size), ServiceError (transient failures after the last attempt), or the
 * signal's reason when aborted.
 */
/** The PUT failed on every attempt (the flow names the video it was for). */
export class UploadFailedError extends ServiceError {}

export async function putFile(opts: PutFileOptions): Promise<PutFileResult> {
  const maxAttempts = Math.max(1, opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const put = await prepare(opts);
  let sentAllBefore = false;
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw stoppedError(opts.signal);
    const stampBefore = opts.fingerprint ? await fileStamp(opts.path) : undefined;
    await ensureSize(opts.path, put.name, opts.size);
    const progress = { sent: 0 };
    const running = startFingerprint(opts);
    let fingerprint: string | undefined;
    let outcome: { status: number } | Transient;
    try {
      outcome = await attemptOnce(put, { attempt, sentAllBefore, progress, running });
      if ('status' in outcome) fingerprint = await running?.digest();
    } finally {
      running?.close();
    }
    if ('status' in outcome) {
      // A file rewritten while it was read (its time moved) has no fingerprint: the bytes sent may be of two versions.
      const same = stampBefore !== undefined && stampBefore === (await fileStamp(opts.path));
      return { status: outcome.status, attempts: attempt, ...(same && fingerprint ? { fingerprint } : {}) };
    }
    if (progress.sent === opts.size) sentAllBefore = true;
    if (attempt >= maxAttempts) {
      throw new UploadFailedError(`the upload failed after ${attempt} attempts: ${outcome.reason}`, {
        hint: 'Check your connection and run the command again.',
      });
    }
    const delayMs = retryDelayMs(attempt, outcome);
    opts.onRetry?.({ attempt: attempt + 1, reason: outcome.reason, delayMs });
    await interruptibleSleep(opts.clock, delayMs, opts.signal);
  }
}

/** The attempt's fingerprint, when asked for: a failure of its hashing costs the upload nothing (said with --debug). */
function startFingerprint(opts: PutFileOptions): RunningFingerprint | undefined {
  if (!opts.fingerprint) return undefined;
  const how = opts.fingerprint === true ? {} : opts.fingerprint;
  return runningFingerprint(opts.size, {
    ...how,
    // Twice the socket's chunks: the hashing thread may fall behind the socket by as many again before the reads wait for it.
    slots: 2 * POOL_SIZE,
    slotBytes: UPLOAD_CHUNK_BYTES,
    onFailure: (reason) => opts.debug?.line(`the content fingerprint of ${opts.name ?? opts.path} is not taken: ${reason}`),
  });
}

async function prepare(opts: PutFileOptions): Promise<Put> {
  const url = new URL(opts.target.url);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.target.headers ?? {})) {
    // The link is signed: never send a key, whatever the headers say.
    if (k.toLowerCase() === 'authorization' || k.toLowerCase() === 'content-length') continue;
    headers[k] = v;
  }
  headers['content-length'] = String(opts.size);
  return {
    opts,
    method: (opts.target.method || 'PUT').toUpperCase(),
    url,
    network: new Network(opts.net),
    headers,
    limits: { ...PUT_LIMITS, ...opts.limits },
    name: opts.name ?? opts.path,
  };
}

interface Attempt {
  attempt: number;
  /** An earlier attempt sent every byte before it failed. */
  sentAllBefore: boolean;
  /** Bytes taken by the connection in this attempt. */
  progress: { sent: number };
  /** The fingerprint taken of the chunks read for the socket, when asked for. */
  running?: RunningFingerprint;
}

/** One attempt: the status of a 2xx, or a failure worth another; throws what ends the upload. */
async function attemptOnce(put: Put, a: Attempt): Promise<{ status: number } | Transient> {
  const { opts } = put;
  const chunks = new FileChunks(opts.path, put.name, opts.size, UPLOAD_CHUNK_BYTES, a.running?.pool);
  opts.onProgress?.(0, opts.size);
  const watchdog = new Watchdog(put.limits, opts.signal);
  const logResponse = opts.debug?.request(put.method, opts.target.url, `(${opts.size} bytes${a.attempt > 1 ? `, attempt ${a.attempt}` : ''})`);
  try {
    const route = await put.network.route(put.url, { keepAlive: false, connectMs: put.limits.connectMs });
    const res = await sendOnce(route, put.url, { method: put.method, headers: put.headers, limits: put.limits, chunks, signal: watchdog.signal, read: a.running ? (c) => a.running!.add(c) : undefined }, {
      taken(n) {
        a.progress.sent += n;
        watchdog.progress(a.progress.sent);
        opts.onProgress?.(a.progress.sent, opts.size);
      },
      bodySent: () => watchdog.bodySent(),
    });
    logResponse?.(res.statusCode);
    return await actOnAnswer(put, res, a.sentAllBefore);
  } catch (err) {
    if (opts.signal?.aborted) throw stoppedError(opts.signal, err);
    if (watchdog.tripped) {
      logResponse?.('failed', watchdog.tripped);
      return { reason: watchdog.tripped };
    }
    if (isAbortError(err)) throw stoppedError(opts.signal, err);
    if (err instanceof VidpubError) throw err;
    if (isHopelessNetError(err)) throw netProblem(err, put.method, opts.target.url, 'the upload storage') ?? err;
    const reason = retryableNetworkReason(err);
    if (!reason) throw err;
    logResponse?.('failed', (err as Error).message);
    return { reason };
  } finally {
    watchdog.stop();
    await chunks.close();
  }
}

/** The storage's answer: the status of a 2xx (the file checked once more), a failure worth another attempt, or a refusal thrown. */
async function actOnAnswer(put: Put, res: PutResponse, sentAllBefore: boolean): Promise<{ status: number } | Transient> {
  const parsed = parseErrorBody(res.text, header(res.headers, 'content-type'));
  const message = parsed.message || `HTTP ${res.statusCode}`;
  const code = parsed.code;
  const verdict = judgePutAnswer({ status: res.statusCode, message, retryAfterSec: parseRetryAfter(res.headers['retry-after'], put.opts.clock.now()) });
  switch (verdict.action) {
    case 'done':
      await ensureSize(put.opts.path, put.name, put.opts.size);
      return { status: res.statusCode };
    case 'link-refused':
      throw new UploadLinkRefusedError(`the upload link was refused: ${message}`, { status: res.statusCode, code, bytesMayHaveArrived: sentAllBefore });
    case 'retry':
      return verdict;
    case 'refused':
      throw new UsageError(`the upload was refused: ${message}`, { http: { status: res.statusCode, method: put.method, path: put.url.pathname, code } });
  }
}

/**
 * One attempt of the signed-URL PUT: the file streamed from disk over a
 * fresh node:http (or node:https) connection, straight or through a proxy
 * (the route, net.ts), with backpressure and the
 * connection's own time limits. Retries, and what an answer means, are
 * put-file.ts's.
 */
import type http from 'node:http';
import { POOL_SIZE, type FileChunks } from './file-chunks.js';
import type { Route } from '../net/net-types.js';
import { TransportTimeoutError, watchSignal } from '../net/transport.js';
import { MAX_ERROR_BODY_BYTES } from '../net/answer-limit.js';

/**
 * The PUT's own limits: a stalled connection fails the attempt in seconds,
 * never in minutes. The body has no total (1 GB on a slow line takes what it
 * takes) but an idle limit and a throughput floor (put-watchdog.ts), so a
 * link that trickles cannot hold it forever.
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

export interface PutResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface SendOptions {
  method: string;
  headers: Record<string, string>;
  limits: PutLimits;
  chunks: FileChunks;
  signal: AbortSignal;
  /**
   * Each chunk as it is read, in order (the content fingerprint is taken from
   * here, on a thread of its own for a large file: util/running-fingerprint.ts).
   * When it returns a promise, the next chunk is read only once it has resolved:
   * the chunk's buffer is read into again only once it has been hashed.
   */
  read?(chunk: Buffer): void | Promise<void>;
}

export interface SendEvents {
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
export function sendOnce(route: Route, url: URL, o: SendOptions, on: SendEvents): Promise<PutResponse> {
  return new Promise<PutResponse>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const req = route.lib.request({ ...route.options, method: o.method, headers: { ...o.headers, ...route.headers } });
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
      // The storage's answer is read for its status and a message: no more of it is kept than an error body (net/answer-limit.ts).
      let kept = 0;
      res.on('data', (c: Buffer) => {
        if (kept < MAX_ERROR_BODY_BYTES) parts.push(c.subarray(0, MAX_ERROR_BODY_BYTES - kept));
        kept += c.length;
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
        const hashed = o.read?.(chunk);
        inSocket++;
        req.write(chunk, (err) => {
          inSocket--;
          if (!err && !settled) on.taken(n);
          resume();
        });
        // The next read goes into the buffer of the chunk POOL_SIZE back: it must have been sent (and hashed).
        while (inSocket >= POOL_SIZE && !settled && !req.destroyed) await new Promise<void>((r) => (wake = r));
        if (hashed) await hashed;
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

/**
 * How the API client sends its JSON requests: node:http (node:https, loaded
 * on the first https URL) through one keep-alive agent per client and route
 * (straight, or through a proxy: net.ts), with the
 * connect, headers and body timeouts the client needs. Redirects are not
 * followed (the client decides), bodies are read whole as text, up to a limit
 * (answer-limit.ts: larger ones are cut off as they arrive).
 *
 * Not undici: `vidpub me`'s start-up is benchmarked, and undici's Agent and
 * request cost several times node:http's load, plus a WebAssembly HTTP
 * parser compiled at the first connection, where node:http is part of Node.
 * The signed-URL upload (src/api/upload/put-file.ts) is on node:http too, at curl's
 * throughput. The measurements are in docs/performance.md.
 *
 * Timeouts fail the attempt with undici's codes (UND_ERR_CONNECT_TIMEOUT,
 * UND_ERR_HEADERS_TIMEOUT, UND_ERR_BODY_TIMEOUT), which the retry policy and
 * the error messages of http-errors.ts already know.
 */
import type http from 'node:http';
import { setLongTimeout, type LongTimer } from '../../core/clock.js';
import { Network } from './net.js';
import type { NetSettings, Route } from './net-types.js';
import { TransportTimeoutError } from './transport-timeout.js';
import { AnswerTooLargeError, announcedLength, answerLimit } from './answer-limit.js';

export interface TransportTimeouts {
  /** Until the connection (and TLS handshake) is up. */
  connectMs: number;
  /** From the request sent until the response headers. */
  headersMs: number;
  /**
   * From the response headers until the last byte of the body: a total, not
   * a pause between chunks, so a body trickled a byte at a time cannot keep
   * the request alive forever.
   */
  bodyMs: number;
  /** The ceiling of one request, connect to last byte (VIDPUB_REQUEST_TIMEOUT); none when absent. */
  totalMs?: number;
}

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/**
 * Set on a failed request's error: true once the request may have reached the
 * service (the connection was up when it was written), false when it surely
 * did not (no connection). A write that may have arrived has an unknown outcome.
 */
export interface MaybeSent {
  requestSent?: boolean;
  /**
   * The request was written on a kept-alive connection that the other end (the service, its load
   * balancer, a proxy) had already closed: the write or the wait for an answer failed with
   * ECONNRESET or EPIPE before any byte of an answer. A close that crossed our request on the
   * wire, not a failure of the service: sent again at once on a new connection (request-sender.ts).
   */
  staleConnection?: boolean;
}

/** Errors of a connection closed by the other end. */
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE']);

export interface TransportResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface Transport {
  request(url: string, o: TransportRequest): Promise<TransportResponse>;
  /** Closes the kept-alive connections. */
  close(): Promise<void>;
}

export { TransportTimeoutError } from './transport-timeout.js';

/**
 * Aborts `req` when `signal` does, with the error Node's own `signal` option
 * gives (AbortError, ABORT_ERR, the reason as cause). Not that option: it
 * wires the request up through the streams' end-of-stream machinery, a cost
 * on the first request of a process that `vidpub me` would feel (docs/performance.md).
 */
export function watchSignal(req: http.ClientRequest, signal: AbortSignal | undefined): void {
  if (!signal) return;
  const onAbort = () => {
    req.destroy(Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' }));
  };
  if (signal.aborted) return onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  req.once('close', () => signal.removeEventListener('abort', onAbort));
}

/** `net`: proxies and trusted CAs (net.ts); none: straight, trusting Node's CAs. */
export function createTransport(timeouts: TransportTimeouts, net?: NetSettings): Transport {
  let network: Network | undefined;

  async function request(url: string, o: TransportRequest): Promise<TransportResponse> {
    const target = new URL(url);
    const route = await (network ??= new Network(net)).route(target, { keepAlive: true, connectMs: timeouts.connectMs });
    const headers = { ...o.headers, ...route.headers };
    if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
    return requestOnce({ route, secure: target.protocol === 'https:', headers, o, timeouts });
  }

  return {
    request,
    async close() {
      network?.close();
      network = undefined;
    },
  };
}

interface OneRequest {
  route: Route;
  secure: boolean;
  /** The request's headers, Content-Length included. */
  headers: Record<string, string>;
  o: TransportRequest;
  timeouts: TransportTimeouts;
}

/** One request on a connection of the agent, each phase within its time limit and the whole within the ceiling. */
function requestOnce(r: OneRequest): Promise<TransportResponse> {
  const { route, secure, headers, o, timeouts } = r;
  return new Promise<TransportResponse>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let ceiling: LongTimer | undefined;
    let settled = false;
    let sent = false;
    let phase: 'connect' | 'headers' | 'body' = 'connect';
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ceiling?.clear();
      fn();
    };
    const fail = (err: Error) =>
      settle(() => {
        if (Object.isExtensible(err)) {
          (err as Error & MaybeSent).requestSent = sent;
          const code = (err as NodeJS.ErrnoException).code;
          if (req.reusedSocket && phase !== 'body' && code !== undefined && CLOSED_CODES.has(code)) (err as Error & MaybeSent).staleConnection = true;
        }
        reject(err);
      });
    const req = route.lib.request({ ...route.options, method: o.method, headers });
    watchSignal(req, o.signal);
    const arm = (ms: number, code: TransportTimeoutError['code'], what: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => req.destroy(new TransportTimeoutError(code, `${what} (${ms} ms)`)), ms);
    };
    if (timeouts.totalMs !== undefined) {
      ceiling = setLongTimeout(() => {
        const code = phase === 'connect' ? 'UND_ERR_CONNECT_TIMEOUT' : phase === 'headers' ? 'UND_ERR_HEADERS_TIMEOUT' : 'UND_ERR_BODY_TIMEOUT';
        req.destroy(new TransportTimeoutError(code, `the request took longer than its ceiling (${timeouts.totalMs} ms, VIDPUB_REQUEST_TIMEOUT)`));
      }, timeouts.totalMs);
    }
    const awaitHeaders = () => {
      sent = true;
      phase = 'headers';
      arm(timeouts.headersMs, 'UND_ERR_HEADERS_TIMEOUT', 'no response headers in time');
    };
    req.on('socket', (socket) => {
      if (!socket.connecting) return awaitHeaders();
      arm(timeouts.connectMs, 'UND_ERR_CONNECT_TIMEOUT', 'could not connect in time');
      socket.once(secure ? 'secureConnect' : 'connect', awaitHeaders);
    });
    req.on('response', (res) => {
      if (res.statusCode === 407 && route.proxyRefusal) {
        // The proxy's own refusal: the request went no further, so nothing was sent to the service.
        res.resume();
        sent = false;
        return fail(route.proxyRefusal(407));
      }
      const chunks: Buffer[] = [];
      phase = 'body';
      // An answer larger than the client reads is cut off as it arrives (answer-limit.ts), at once when it says so.
      const status = res.statusCode ?? 0;
      const limit = answerLimit(status);
      const announced = announcedLength(res.headers['content-length']);
      const tooLarge = (): void => {
        fail(new AnswerTooLargeError(status, limit, announced));
        req.destroy();
      };
      if (announced !== undefined && announced > limit) return tooLarge();
      let received = 0;
      // One timer for the whole body: a trickle does not re-arm it.
      arm(timeouts.bodyMs, 'UND_ERR_BODY_TIMEOUT', 'the response body did not arrive in time');
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) return tooLarge();
        chunks.push(chunk);
      });
      res.on('end', () =>
        settle(() => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') })),
      );
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('the connection closed during the response'), { code: 'ECONNRESET' }));
      });
    });
    req.on('error', fail);
    req.end(o.body);
  });
}

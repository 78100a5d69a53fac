/**
 * HTTP face of the emulator (Fastify 5): /v1 REST routes calling the
 * service layer, the signed upload URL (/_uploads/*, streamed body), the
 * /_emulator test controls, the request log, request faults, and one error
 * shape for everything that goes wrong.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { EMULATOR_SERVER_HEADER, type EmulatorStartInfo } from '../contract/wire-types.js';
import { ADMIN_PREFIX, registerAdmin } from './admin.js';
import { controlRefused, controlsAnswer, controlsRefused, isControl } from './access.js';
import { isLoopbackPeer } from '../contract/addresses.js';
import type { Core } from './core.js';
import { errorBody, ServiceError } from './service-errors.js';
import { statusFaultResponse, type RequestFault } from './faults.js';
import { clip, type LogEntry } from './request-log.js';
import type { CallContext, EmulatorService, RequestBody, ServiceResult } from './service.js';
import { receiveUpload, UPLOAD_PATH_PREFIX } from './uploads.js';
import { fastV1, isJsonAnswer, writeJson } from './fast-v1.js';
import { V1_ROUTES } from './v1-routes.js';
import { registerWebApp } from './webapp/routes.js';
import { Guard } from './webapp/guard.js';

interface RequestMeta {
  entry: LogEntry | null;
  fault: RequestFault | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    emu: RequestMeta | null;
  }
}

/** The request log's status for an upload whose client went away before it was answered (nginx's 499). */
const CLIENT_CLOSED_REQUEST = 499;

export { MAX_LOG_ENTRIES, MAX_LOGGED_KEY, MAX_LOGGED_PATH, clip } from './request-log.js';

/** Extra routes on the same server (e.g. an MCP endpoint at /mcp calling the service). */
export type EmulatorPlugin = (ctx: { app: FastifyInstance; service: EmulatorService }) => void | Promise<void>;

/** Body limit of JSON requests (the upload URL has none: it streams). */
export const JSON_BODY_LIMIT = 1024 * 1024;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The path of a request URL, without its query. */
function pathOfUrl(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

const pathOf = (req: FastifyRequest): string => pathOfUrl(req.raw.url ?? '/');

/** A path as quoted in an error message: cut, so a 15 KB path is not sent back whole. */
const quotePath = (path: string): string => clip(path, 200);

/** Body of an error written straight to the socket (before Fastify has a request). */
function rawErrorResponse(status: number, code: string, message: string): string {
  const body = JSON.stringify(errorBody('invalid_request', code, message));
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Requests Node's HTTP parser refuses (headers over 16 KB, a malformed request
 * line...): answered in the service's error shape, then the connection closed.
 */
function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let response: string;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    response = rawErrorResponse(431, 'headers_too_large', 'The request line and headers are larger than 16 KB (the path counts too); nothing was handled.');
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    response = rawErrorResponse(408, 'request_timeout', 'The request was not received in time; nothing was handled.');
  } else {
    response = rawErrorResponse(400, 'malformed_request', 'The request is not valid HTTP/1.1; nothing was handled.');
  }
  if (socket.writable) socket.write(response);
  socket.destroy();
}
const isAdmin = (path: string): boolean => path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);

/** Sends a result, or drops the connection if a reset_after_handling fault applies. */
function send(req: FastifyRequest, reply: FastifyReply, status: number, headers: Record<string, string>, body: unknown, replayed = false): FastifyReply {
  const meta = req.emu;
  if (meta?.entry) meta.entry.replayed = replayed;
  if (meta?.fault?.action === 'reset_after_handling') {
    if (meta.entry) meta.entry.status = status;
    reply.hijack();
    req.raw.socket?.destroy();
    return reply;
  }
  if (meta?.fault?.action === 'trickle') {
    if (meta.entry) meta.entry.status = status;
    trickle(req, reply, status, headers, body, meta.fault.ms ?? 1000);
    return reply;
  }
  if (req.method === 'GET' || req.method === 'POST') {
    // A JSON answer, written as Fastify writes it (header names in lower case and in the same
    // order, then content-type and content-length; one writeHead, one end), without its reply
    // pipeline: this route has no serialiser or hook of its own. HEAD and other bodies go through Fastify.
    if (isJsonAnswer(headers, body)) {
      reply.hijack();
      writeJson(reply.raw, status, headers, body);
      return reply;
    }
  }
  reply.code(status).headers(headers);
  return reply.send(body);
}

/** A `trickle` fault: the real answer, its body one byte every `ms` (stops when the client goes away). */
function trickle(req: FastifyRequest, reply: FastifyReply, status: number, headers: Record<string, string>, body: unknown, ms: number): void {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body ?? null), 'utf8');
  reply.hijack();
  const res = reply.raw;
  res.writeHead(status, { ...headers, 'content-type': headers['Content-Type'] ?? 'application/json; charset=utf-8', 'content-length': String(bytes.length) });
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || i >= bytes.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(bytes.subarray(i, i + 1));
    i += 1;
  }, ms);
  timer.unref();
  req.raw.socket?.once('close', () => clearInterval(timer));
}

export interface ServerOptions {
  /** Extra routes, registered before the server listens. */
  plugins?: readonly EmulatorPlugin[];
  /** Let the test controls answer peers that are not on this machine's loopback (access.ts). */
  exposeControls?: boolean;
  /** Serve over HTTPS with this certificate and key (PEM). */
  https?: { cert: string; key: string };
}

/** The answer to a method and path that are not an endpoint. */
function noEndpoint(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = pathOf(req);
  const hint = path.startsWith('/v1/') || path === '/v1'
    ? ' The API endpoints are listed in the service contract (e.g. GET /v1/me).'
    : ' The API lives under /v1 and the test controls under /_emulator.';
  return send(req, reply, 404, {}, errorBody('not_found', 'not_found', `No endpoint ${req.method} ${quotePath(path)}.${hint}`));
}

export async function buildServer(
  core: Core,
  service: EmulatorService,
  info: () => EmulatorStartInfo,
  { plugins = [], exposeControls = false, https }: ServerOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    ...(https ? { https } : {}),
    logger: false,
    forceCloseConnections: true,
    bodyLimit: JSON_BODY_LIMIT,
    return503OnClosing: false,
    keepAliveTimeout: 10_000,
    // An id of any length reaches the route (and is a 404 there): Fastify's default of 100
    // characters answered a longer one with a 400 naming its router. Node limits the headers,
    // the path included, to 16 KB anyway.
    routerOptions: { maxParamLength: 16 * 1024 },
    clientErrorHandler,
    frameworkErrors: (err, req, reply) => {
      const path = quotePath(pathOf(req));
      const e = err.code === 'FST_ERR_BAD_URL'
        ? new ServiceError(400, 'malformed_url', `The path ${path} is not a valid URL (a "%" not followed by two hex digits, or bytes that are not UTF-8).`)
        : new ServiceError(400, 'malformed_request', `The request could not be read: ${err.message}`);
      return (reply as unknown as FastifyReply).code(e.status).send(e.toBody());
    },
  });
  app.decorateRequest('emu', null);
  // The web app's guard, for the test controls beside it (access.ts).
  const controls = new Guard(core.secret, () => core.origin);

  // JSON is parsed by the service after authentication (so a bad key is a 401
  // even with a malformed body, and idempotency sees the body as sent).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  // ---------------------------------------------------------------- log + request faults
  // One synchronous hook (no promise per request unless a delay fault applies).
  app.addHook('onRequest', (req, reply, done) => {
    const path = pathOf(req);
    if (isAdmin(path)) {
      const peer = req.raw.socket?.remoteAddress;
      if (!controlsAnswer(path, peer, exposeControls)) {
        void reply.code(403).send(controlsRefused(peer).toBody());
        return;
      }
      // Another machine let in by --expose-controls may name the emulator as it knows it (a container's service name).
      const why = isControl(path) ? controls.refuseControl(req, !isLoopbackPeer(peer)) : null;
      if (why) void reply.code(403).send(controlRefused(why).toBody());
      else done();
      return;
    }
    const entry = core.log.add(req.method, path, req.headers.authorization !== undefined, header(req, 'idempotency-key'));
    const res = reply.raw;
    res.on('finish', () => { entry.status = res.statusCode; });
    const fault = core.faults.take(req.method, path);
    req.emu = { entry, fault };
    if (!fault) {
      done();
      return;
    }
    entry.fault = fault.action;
    if (fault.action === 'reset_before_handling') {
      reply.hijack();
      req.raw.socket?.destroy();
      return;
    }
    if (fault.action === 'hang') {
      // Never answered, never handled; an upload's body is not read. The socket closes when the client gives up.
      reply.hijack();
      req.raw.pause();
      return;
    }
    if (fault.action === 'status') {
      const r = statusFaultResponse(fault);
      if (path.startsWith(UPLOAD_PATH_PREFIX)) r.headers.Connection = 'close';
      void reply.code(r.status).headers(r.headers).send(r.body);
      return;
    }
    // /v1 delays are applied by the service once the request is admitted (so an
    // Idempotency-Key is "in flight" during the delay).
    if (fault.action === 'delay' && !path.startsWith('/v1/')) {
      setTimeout(done, fault.ms ?? 0).unref();
      return;
    }
    done();
  });

  // ---------------------------------------------------------------- errors and 404
  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
    // No route: 404 whatever else is wrong with the request (a QUERY without Content-Type, a body
    // too large...), as for every other method and path that is not an endpoint.
    if (req.is404) return noEndpoint(req, reply);
    const path = pathOf(req);
    let e: ServiceError;
    if (err instanceof ServiceError) e = err;
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = new ServiceError(413, 'body_too_large', `The request body is larger than ${JSON_BODY_LIMIT} bytes.`);
    else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      e = path.startsWith(UPLOAD_PATH_PREFIX)
        ? new ServiceError(400, 'content_type_mismatch', 'The Content-Type header is not valid; send it exactly as returned in upload.headers.')
        : new ServiceError(400, 'invalid_json', 'The Content-Type header is not valid; send JSON with "Content-Type: application/json".');
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      e = new ServiceError(400, 'invalid_request', `The request could not be read: ${err.message}`, { type: 'invalid_request' });
    } else {
      console.error('[vidpub emulator] internal error:', err);
      e = new ServiceError(500, 'internal_error', 'The emulator hit an unexpected error while handling this request.');
    }
    // A /v1 request whose body could not be read (too large, a malformed Content-Type) still
    // goes through the gate, as every /v1 call does: a bad key is a 401, a read-only key a 403,
    // and otherwise the request is counted and answered with the rate-limit headers.
    const method = req.method === 'POST' ? 'POST' : req.method === 'GET' || req.method === 'HEAD' ? 'GET' : null;
    if (!(err instanceof ServiceError) && e.status < 500 && method && req.routeOptions.url?.startsWith('/v1/')) {
      const refused = e;
      const r = service.gate({ authorization: header(req, 'authorization'), idempotencyKey: null }, method, path.slice('/v1'.length), { json: undefined }, () => {
        throw refused;
      });
      if (r instanceof Promise) return r.then((x) => send(req, reply, x.status, x.headers, x.body));
      return send(req, reply, r.status, r.headers, r.body);
    }
    return send(req, reply, e.status, e.headers, e.toBody());
  });

  app.setNotFoundHandler((req, reply) => noEndpoint(req, reply));

  // ---------------------------------------------------------------- /v1
  const ctxOf = (req: FastifyRequest): CallContext => ({
    authorization: header(req, 'authorization'),
    idempotencyKey: header(req, 'idempotency-key') ?? null,
    delayMs: req.emu?.fault?.action === 'delay' ? req.emu.fault.ms : undefined,
  });
  const bodyOf = (req: FastifyRequest): RequestBody => ({
    raw: typeof req.body === 'string' ? req.body : '',
    contentType: header(req, 'content-type'),
  });
  type P = { Params: Record<string, string> };
  const route = (method: 'GET' | 'POST', url: string, call: (req: FastifyRequest<P>) => ServiceResult | Promise<ServiceResult>): void => {
    app.route<P>({
      method,
      url: `/v1${url}`,
      // Synchronous unless the service waits (a delay fault): no promise per request.
      handler: (req, reply) => {
        // An empty segment is not an id: /v1/media/ is /v1/media with a trailing slash, not an endpoint.
        if (req.params.id === '') {
          noEndpoint(req, reply);
          return undefined;
        }
        const r = call(req);
        if (r instanceof Promise) return r.then((x) => { send(req, reply, x.status, x.headers, x.body, x.replayed); });
        send(req, reply, r.status, r.headers, r.body, r.replayed);
        return undefined;
      },
    });
  };
  const op = service.direct;
  const noBody: RequestBody = { raw: '' };
  for (const r of V1_ROUTES) {
    route(r.method, r.path, (req) => r.op(op, ctxOf(req), req.params.id ?? '', r.method === 'POST' ? bodyOf(req) : noBody));
  }

  // ---------------------------------------------------------------- signed upload URL
  await app.register(async (up) => {
    up.removeAllContentTypeParsers();
    // Pass the raw request stream through untouched: the body is counted, never buffered.
    up.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    up.put<{ Params: { id: string }; Querystring: Record<string, string | string[] | undefined> }>(`${UPLOAD_PATH_PREFIX}:id`, async (req, reply) => {
      const q = req.query;
      const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
      const outcome = await receiveUpload(core, {
        mediaId: req.params.id,
        expires: first(q.expires),
        sig: first(q.sig),
        headers: req.headers,
        body: req.body as Readable | undefined,
      });
      if (!outcome) {
        // The client went away before the answer: logged 499, as nginx logs a request its client closed, so that
        // a look at the log tells it from a request still being received (0).
        if (req.emu?.entry) req.emu.entry.status = CLIENT_CLOSED_REQUEST;
        reply.hijack();
        req.raw.socket?.destroy();
        return reply;
      }
      const headers = { ...outcome.headers };
      if (outcome.closeConnection) headers.Connection = 'close';
      return send(req, reply, outcome.status, headers, outcome.body);
    });
    up.route({
      method: ['GET', 'POST', 'DELETE', 'PATCH'],
      url: `${UPLOAD_PATH_PREFIX}:id`,
      handler: async (req, reply) =>
        send(req, reply, 405, { Allow: 'PUT', Connection: 'close' }, errorBody('invalid_request', 'method_not_allowed', 'The upload link takes the file with PUT only.')),
    });
  });

  // ---------------------------------------------------------------- /_emulator
  registerAdmin(app, core, info);
  // The web app (review_url's page, the workspace page, their actions): under /_emulator, with the controls' peers.
  registerWebApp(app, core);

  for (const plugin of plugins) await plugin({ app, service });

  // ---------------------------------------------------------------- the common /v1 requests, in front of Fastify
  // Node's `request` listener is Fastify's router; the common /v1 requests are answered before it
  // (src/emulator/fast-v1.ts: the same bytes and log entry), everything else goes on to Fastify.
  // Not while closing: Fastify then adds "Connection: close" to its answers.
  const fast = fastV1(core, service, JSON_BODY_LIMIT);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const server = app.server;
  const routing = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (routing.length === 1) {
    const fastify = routing[0]!;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // Every answer names the emulator (a client tells it from the real service without asking again).
      res.setHeader('server', EMULATOR_SERVER_HEADER);
      // Its Date is the emulator's clock (moved on by /_emulator/clock), as a client judging the service's time reads it.
      res.setHeader('date', new Date(core.clock.now()).toUTCString());
      if (closing || !fast(req, res)) fastify.call(server, req, res);
    });
  }
  return app;
}

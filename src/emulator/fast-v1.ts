/**
 * The common /v1 requests answered straight from Node's HTTP server, in
 * front of Fastify: a GET or a JSON POST to a known route, with no request
 * fault held. It writes the same bytes Fastify's route would (the JSON
 * answer with one writeHead and one end, header names in lower case and in
 * the service's order, then content-type and content-length) and adds the
 * same request log entry, without Fastify's request and reply objects, hook
 * chain, router and body parser, or a `finish` listener per request (the
 * entry's status is set when the answer is written). The emulator runs in
 * other people's CI, under load.
 *
 * Anything else is left to Fastify (`false`), which answers it as before:
 * HEAD and other methods, paths that are not a route or that carry a "%" or
 * an id longer than 64 characters, a body without Content-Length or in
 * chunks, larger than the limit or not declared as JSON, and every request
 * while a request fault is held (faults are matched in Fastify's hook).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from './core.js';
import { internalError } from './service-errors.js';
import type { LogEntry } from './request-log.js';
import type { CallContext, EmulatorService, RequestBody, ServiceResult } from './service.js';
import { V1_ROUTES } from './v1-routes.js';

type Op = (ctx: CallContext, id: string, body: RequestBody) => ServiceResult | Promise<ServiceResult>;

interface Route {
  op: Op;
  post: boolean;
}

/** The content types a JSON body is accepted with here (others go through Fastify's parser). */
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
/** An id segment taken here: what the emulator's ids are made of, not too long (Fastify decodes "%" and limits params to 100 characters). */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The /v1 routes (v1-routes.ts) as a table of static paths and of `/v1/<kind>/:id[/<action>]` shapes. */
function routes(service: EmulatorService): { exact: Map<string, Route>; byId: Map<string, Route> } {
  const direct = service.direct;
  const exact = new Map<string, Route>();
  // Keyed "METHOD kind/action" for /v1/<kind>/<id>[/<action>].
  const byId = new Map<string, Route>();
  for (const r of V1_ROUTES) {
    const route: Route = { op: (ctx, id, body) => r.op(direct, ctx, id, body), post: r.method === 'POST' };
    const shape = /^\/([a-z]+)\/:id(?:\/([a-z]+))?$/.exec(r.path);
    if (shape) byId.set(`${r.method} ${shape[1]}/${shape[2] ?? ''}`, route);
    else exact.set(`${r.method} /v1${r.path}`, route);
  }
  return { exact, byId };
}

/** Header names in lower case, remembered (the same few names on every answer). */
const LOWER = new Map<string, string>();

/** Whether writeJson writes this answer: a JSON object with no content type of its own. */
export function isJsonAnswer(headers: Record<string, string>, body: unknown): body is object {
  return body !== null && typeof body === 'object' && !('Content-Type' in headers);
}

/** Writes a JSON answer as the Fastify route does; false when the answer is not a JSON object (left to the caller). */
export function writeJson(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): boolean {
  if (!isJsonAnswer(headers, body)) return false;
  const payload = JSON.stringify(body);
  const out: Record<string, string> = {};
  for (const name in headers) {
    let lower = LOWER.get(name);
    if (lower === undefined) {
      lower = name.toLowerCase();
      if (LOWER.size < 64) LOWER.set(name, lower);
    }
    out[lower] = headers[name]!;
  }
  out['content-type'] = JSON_CONTENT_TYPE;
  out['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(status, out);
  res.end(payload);
  return true;
}

const ignore = (): void => undefined;
const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * A handler for Node's `request` event: answers the request and returns true,
 * or returns false without touching it (Fastify answers it).
 */
export function fastV1(core: Core, service: EmulatorService, bodyLimit: number): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { exact, byId } = routes(service);

  const lookUp = (method: string, path: string): { route: Route; id: string } | undefined => {
    const r = exact.get(`${method} ${path}`);
    if (r) return { route: r, id: '' };
    // /v1/<kind>/<id> or /v1/<kind>/<id>/<action>
    const a = path.indexOf('/', 4);
    if (a < 0) return undefined;
    const b = path.indexOf('/', a + 1);
    const kind = path.slice(4, a);
    const id = b < 0 ? path.slice(a + 1) : path.slice(a + 1, b);
    const action = b < 0 ? '' : path.slice(b + 1);
    // A trailing slash (/v1/media/{id}/) is another path, as on every route: left to Fastify's 404.
    if (b >= 0 && action === '') return undefined;
    const route = byId.get(`${method} ${kind}/${action}`);
    // Like Fastify's router: the static POST paths (/v1/media/uploads...) were matched above; an id is any segment.
    if (!route || !ID.test(id)) return undefined;
    return { route, id };
  };

  const answer = (res: ServerResponse, entry: LogEntry, r: ServiceResult): void => {
    entry.replayed = r.replayed;
    entry.status = r.status;
    if (!writeJson(res, r.status, r.headers, r.body)) {
      // Not produced by the /v1 operations; answered as an internal error rather than in a shape Fastify would not write.
      const e = internalError();
      entry.status = e.status;
      writeJson(res, e.status, e.headers, e.toBody());
    }
  };

  const call = (res: ServerResponse, entry: LogEntry, route: Route, id: string, ctx: CallContext, body: RequestBody): void => {
    let r: ServiceResult | Promise<ServiceResult>;
    try {
      r = route.op(ctx, id, body);
    } catch (err) {
      fail(res, entry, err);
      return;
    }
    if (r instanceof Promise) r.then((x) => answer(res, entry, x), (err: unknown) => fail(res, entry, err));
    else answer(res, entry, r);
  };

  const fail = (res: ServerResponse, entry: LogEntry, err: unknown): void => {
    console.error('[vidpub emulator] internal error:', err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const e = internalError();
    entry.status = e.status;
    writeJson(res, e.status, e.headers, e.toBody());
  };

  return (req, res) => {
    const method = req.method;
    const url = req.url;
    if ((method !== 'GET' && method !== 'POST') || url === undefined || !url.startsWith('/v1/') || core.faults.holdsRequestFaults) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.includes('%')) return false;
    const found = lookUp(method, path);
    if (!found) return false;
    const { route, id } = found;
    const h = req.headers;
    const te = h['transfer-encoding'];
    const cl = h['content-length'];
    let length = 0;
    if (route.post) {
      const ct = h['content-type'];
      if (te !== undefined || cl === undefined || ct === undefined || !JSON_TYPES.has(ct.toLowerCase()) || !/^\d{1,7}$/.test(cl)) return false;
      length = Number(cl);
      if (length > bodyLimit) return false;
    } else if (te !== undefined || (cl !== undefined && cl !== '0')) {
      return false;
    }

    const idempotencyKey = first(h['idempotency-key']);
    const entry = core.log.add(method, path, h.authorization !== undefined, idempotencyKey);
    const ctx: CallContext = { authorization: h.authorization, idempotencyKey: idempotencyKey ?? null, delayMs: undefined };
    if (!route.post) {
      call(res, entry, route, id, ctx, { raw: '', contentType: undefined });
      return true;
    }
    const contentType = h['content-type'];
    if (length === 0) {
      call(res, entry, route, id, ctx, { raw: '', contentType });
      return true;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('error', ignore);
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    req.on('end', () => {
      // Node's parser ends the body at Content-Length; a shorter one means the client went away.
      if (received !== length) return;
      const raw = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8');
      call(res, entry, route, id, ctx, { raw, contentType });
    });
    return true;
  };
}

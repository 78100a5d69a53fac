/**
 * The service layer, independent of HTTP. Every operation goes through
 * `gate`, the one place that applies authentication, the per-minute
 * counters, write access and idempotency, then shapes the result (errors
 * included) as {status, body, headers}. The REST routes call it; an MCP
 * endpoint can call the same methods and share the same allowances.
 */
import { API_VERSION_PREFIX, type Me } from '../contract/wire-types.js';
import { keyPrefix } from '../core/key-format.js';
import type { Core } from './core.js';
import { ServiceError, internalError, notFound } from './service-errors.js';
import { IdempotencyStore, fingerprint, type StoredResponse } from './idempotency.js';
import type { AuthContext, RequestKind } from './limits.js';
import { completeUpload, createImport, createUpload, getMedia } from './media.js';
import { createPost, getPost, publishPost } from './posts.js';
import { destinationRecord, optionsRecord } from './records.js';
import type { Result } from './result.js';
import { parseJsonBody } from './validate.js';
import { lastFour } from '../util/key-mask.js';

/** Who is calling and how. */
export interface CallContext {
  /** The Authorization header value as sent ("Bearer vp_live_..."), if any. */
  authorization?: string | undefined;
  /** Idempotency-Key header (POST only). */
  idempotencyKey?: string | null | undefined;
  /** Hold the request this long after it is admitted (delay fault). */
  delayMs?: number | undefined;
}

/** A request body: the text as sent over HTTP, or an already parsed value (MCP). */
export type RequestBody = { raw: string; contentType?: string | undefined } | { json: unknown };

export interface ServiceResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** True when this is a replay of an earlier response (Idempotency-Key). */
  replayed: boolean;
}

const NO_BODY: RequestBody = { json: undefined };

function errorResult(err: unknown): Result {
  if (err instanceof ServiceError) return { status: err.status, body: err.toBody(), headers: err.headers };
  console.error('[vidpub emulator] internal error:', err);
  const e = internalError();
  return { status: e.status, body: e.toBody() };
}

const sleepUnref = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class EmulatorService {
  constructor(private readonly core: Core) {}

  // ---------------------------------------------------------------- operations

  /**
   * The operations as `gate` calls: a ServiceResult at once when nothing in
   * them waits (the REST routes use these), a promise otherwise.
   */
  readonly direct = {
    getMe: (ctx: CallContext) => this.gate(ctx, 'GET', '/me', NO_BODY, (auth) => ({ status: 200, body: this.me(auth) })),
    listDestinations: (ctx: CallContext) =>
      this.gate(ctx, 'GET', '/destinations', NO_BODY, (auth) => ({
        status: 200,
        body: { data: [...auth.workspace.destinations.values()].map(destinationRecord) },
      })),
    getDestinationOptions: (ctx: CallContext, id: string) =>
      this.gate(ctx, 'GET', `/destinations/${id}/options`, NO_BODY, (auth) => {
        const d = auth.workspace.destinations.get(id);
        if (!d) throw notFound('destination', id);
        return { status: 200, body: optionsRecord(d) };
      }),
    createUpload: (ctx: CallContext, body: RequestBody) =>
      this.gate(ctx, 'POST', '/media/uploads', body, (auth, json) => createUpload(this.core, auth, json)),
    completeUpload: (ctx: CallContext, mediaId: string, body: RequestBody = NO_BODY) =>
      this.gate(ctx, 'POST', `/media/${mediaId}/complete`, body, (auth) => completeUpload(this.core, auth, mediaId)),
    createImport: (ctx: CallContext, body: RequestBody) =>
      this.gate(ctx, 'POST', '/media/imports', body, (auth, json) => createImport(this.core, auth, json)),
    getMedia: (ctx: CallContext, mediaId: string) => this.gate(ctx, 'GET', `/media/${mediaId}`, NO_BODY, (auth) => getMedia(auth, mediaId)),
    createPost: (ctx: CallContext, body: RequestBody) => this.gate(ctx, 'POST', '/posts', body, (auth, json) => createPost(this.core, auth, json)),
    publishPost: (ctx: CallContext, postId: string, body: RequestBody) =>
      this.gate(ctx, 'POST', `/posts/${postId}/publish`, body, (auth, json) => publishPost(this.core, auth, postId, json)),
    getPost: (ctx: CallContext, postId: string) => this.gate(ctx, 'GET', `/posts/${postId}`, NO_BODY, (auth) => getPost(this.core, auth, postId)),
  } satisfies Record<string, (...args: never[]) => ServiceResult | Promise<ServiceResult>>;

  async getMe(ctx: CallContext): Promise<ServiceResult> {
    return this.direct.getMe(ctx);
  }

  async listDestinations(ctx: CallContext): Promise<ServiceResult> {
    return this.direct.listDestinations(ctx);
  }

  async getDestinationOptions(ctx: CallContext, id: string): Promise<ServiceResult> {
    return this.direct.getDestinationOptions(ctx, id);
  }

  async createUpload(ctx: CallContext, body: RequestBody): Promise<ServiceResult> {
    return this.direct.createUpload(ctx, body);
  }

  async completeUpload(ctx: CallContext, mediaId: string, body: RequestBody = NO_BODY): Promise<ServiceResult> {
    return this.direct.completeUpload(ctx, mediaId, body);
  }

  async createImport(ctx: CallContext, body: RequestBody): Promise<ServiceResult> {
    return this.direct.createImport(ctx, body);
  }

  async getMedia(ctx: CallContext, mediaId: string): Promise<ServiceResult> {
    return this.direct.getMedia(ctx, mediaId);
  }

  async createPost(ctx: CallContext, body: RequestBody): Promise<ServiceResult> {
    return this.direct.createPost(ctx, body);
  }

  async publishPost(ctx: CallContext, postId: string, body: RequestBody): Promise<ServiceResult> {
    return this.direct.publishPost(ctx, postId, body);
  }

  async getPost(ctx: CallContext, postId: string): Promise<ServiceResult> {
    return this.direct.getPost(ctx, postId);
  }

  /**
   * Checks the key without counting a request (an MCP endpoint refuses a bad
   * key before handling the protocol): null when accepted, else the 401/403.
   */
  checkKey(ctx: CallContext): ServiceResult | null {
    try {
      this.core.limits.authenticate(ctx.authorization);
      return null;
    } catch (err) {
      return { ...withHeaders(errorResult(err)), replayed: false };
    }
  }

  // ---------------------------------------------------------------- the one gate

  /**
   * Order: authenticate (401/403 plan) -> count against the read or write
   * per-minute counter (429 not counted) -> write access (403) ->
   * Idempotency-Key (replay / 400 reused / 409 in use) -> delay fault ->
   * parse the body -> the operation. A 429 gives the counted request back.
   * Without a promise when none is needed: synchronous unless a delay fault
   * applies or the operation itself is asynchronous (the REST routes answer
   * in the same tick).
   */
  gate(
    ctx: CallContext,
    method: 'GET' | 'POST',
    path: string,
    body: RequestBody,
    handler: (auth: AuthContext, json: unknown) => Result | Promise<Result>,
  ): ServiceResult | Promise<ServiceResult> {
    const { limits, idempotency } = this.core;
    const kind: RequestKind = method === 'GET' ? 'read' : 'write';

    let auth: AuthContext;
    try {
      auth = limits.authenticate(ctx.authorization);
    } catch (err) {
      return { ...withHeaders(errorResult(err)), replayed: false };
    }

    try {
      limits.take(auth, kind);
    } catch (err) {
      const r = withHeaders(errorResult(err));
      return { ...r, headers: { ...r.headers, ...limits.headers(auth, kind) }, replayed: false };
    }

    let outcome: Result | Promise<Result>;
    let idemKey: string | null = null;
    let replayed = false;
    try {
      if (kind === 'write' && auth.key.access !== 'read_write') {
        throw new ServiceError(403, 'read_only_key', 'This API key has read access only; adding videos and posts needs a key with read and write access.');
      }
      const key = method === 'POST' ? ctx.idempotencyKey ?? null : null;
      let stored: StoredResponse | null = null;
      if (key !== null) {
        IdempotencyStore.validateKey(key);
        const fp = fingerprint(method, `${API_VERSION_PREFIX}${path}`, 'raw' in body ? body.raw : JSON.stringify(body.json ?? null));
        const begin = idempotency.begin(auth.workspace.id, key, fp);
        if (begin.kind === 'replay') stored = begin.response;
        else idemKey = key;
      }
      if (stored) {
        outcome = { status: stored.status, body: structuredClone(stored.body), headers: { 'Idempotent-Replayed': 'true' } };
        replayed = true;
      } else if (ctx.delayMs) {
        outcome = sleepUnref(ctx.delayMs).then(() => operate(auth, body, handler));
      } else {
        outcome = operate(auth, body, handler);
      }
    } catch (err) {
      outcome = errorResult(err);
    }

    const settle = (result: Result): ServiceResult => {
      if (result.status === 429) limits.refund(auth, kind);
      if (idemKey !== null) idempotency.finish(auth.workspace.id, idemKey, { status: result.status, body: result.body });
      const rate = limits.headers(auth, kind);
      return {
        status: result.status,
        body: result.body,
        headers: result.headers ? { ...result.headers, ...rate } : rate,
        replayed,
      };
    };
    if (outcome instanceof Promise) return outcome.then(settle, (err: unknown) => settle(errorResult(err)));
    return settle(outcome);
  }

  // ---------------------------------------------------------------- /me

  private me(auth: AuthContext): Me {
    const { limits } = this.core;
    const ws = auth.workspace;
    const k = auth.key;
    const minute = (kind: RequestKind) => {
      const c = limits.counter(auth, kind);
      return { limit: c.limit, used: c.used, remaining: c.remaining, reset_at: limits.minuteResetIso(c.resetAtMs) };
    };
    const daily = limits.daily(ws);
    return {
      key: { id: k.id, name: k.name, access: k.access, prefix: keyPrefix(k.key) ?? '', last4: lastFour(k.key), created_at: k.created_at },
      workspace: { id: ws.id, name: ws.name },
      plan: { name: auth.planName },
      usage: { posts_today: limits.postsToday(ws), media_count: ws.media.size, post_count: ws.posts.size },
      limits: {
        requests_per_minute: { read: minute('read'), write: minute('write'), scope: 'key' },
        api_posts_per_day: { limit: daily.limit, used: daily.used, remaining: daily.remaining, scope: daily.scope, reset_at: limits.dailyResetIso(daily.resetAtMs) },
      },
    };
  }
}

/** Parses the body, then the operation. */
function operate(auth: AuthContext, body: RequestBody, handler: (auth: AuthContext, json: unknown) => Result | Promise<Result>): Result | Promise<Result> {
  const json = 'raw' in body ? parseJsonBody(body.raw, body.contentType) : body.json;
  return handler(auth, json);
}

function withHeaders(r: Result): Omit<ServiceResult, 'replayed'> {
  return { status: r.status, body: r.body, headers: r.headers ?? {} };
}

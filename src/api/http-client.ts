/**
 * The API client: a thin typed layer over node:http (transport.ts) for every
 * endpoint of the contract, with what a CLI that runs in cron jobs needs:
 *
 * - base URL and key resolved from flags, env, then the stored profile
 *   (credentials.ts); the key sent to the service only (redirects to another
 *   origin are not followed);
 * - one Idempotency-Key per logical POST, reused on every retry;
 * - retries of connection errors, timeouts and 5xx with capped, jittered
 *   exponential backoff; 429 waited out per Retry-After within --max-wait
 *   (daily_post_limit only with --wait-for-quota); X-RateLimit-* used to
 *   slow down before a 429;
 * - write rules (--workspace checked against GET /me, an Idempotency-Key)
 *   keyed on the request kind, not the method;
 * - what to do after each attempt decided by a pure function (retry-decision.ts);
 * - every failure mapped to the error hierarchy in http-errors.ts;
 * - each result carrying its own response metadata (responseMeta());
 * - what rarely changes (destinations, options, the key's workspace) kept
 *   between runs in the key's cache (src/cache/) for CACHE_TTL_MS (the workspace for WORKSPACE_TTL_MS), read from
 *   there only when a call asks (`cached`), forgotten on a 401/403;
 * - notices through a callback, and a --debug line per request and
 *   response with secrets redacted.
 *
 * It needs no CLI Context: a clock, a signal and two sinks (ClientDeps).
 */
import type { Clock } from '../core/clock.js';
import { AuthError, DeadlineReached, OutcomeUnknownError, RateLimitError, ServiceError, TimeoutError, VidpubError, isDeadline, sanitize } from '../errors.js';
import { KeyCache } from '../cache/key-cache.js';
import { formatDuration } from '../time/duration.js';
import { nodeCrypto } from '../util/lazy-crypto.js';
import { envFlag } from '../util/env.js';
import { cacheDir } from '../util/xdg.js';
import {
  CACHE_ENTRIES,
  CACHE_TTL_MS,
  WORKSPACE_TTL_MS,
  attachMeta,
  responseMeta,
  type ApiClient,
  type ClientMemory,
  type ClientSettings,
  type HttpMethod,
  type RequestOptions,
  type ResponseMeta,
} from './client.js';
import { noKeyError, resolveCredentials, withKeyHint, type CredentialSources, type KeyOrigin } from './credentials.js';
import { createDebugLogger, redactUrl, type DebugLogger } from './debug.js';
import { errorFromResponse, formatResetTime, isRetryableNetworkError, networkError, parseErrorBody } from './http-errors.js';
import { Pacer, kindOf } from './rate-limit-state.js';
import { decideAfterAttempt, decideRateLimit, type RetryCounters } from './retry-decision.js';
import { DEFAULT_BACKOFF, backoffDelay, interruptibleSleep, isAbortError, parseRetryAfter, stoppedError, waitWithNotice, type BackoffPolicy, type NoticeSink } from './backoff.js';
import type {
  CreateImportRequest,
  CreatePostRequest,
  CreateUploadRequest,
  CreateUploadResponse,
  Destination,
  DestinationOptions,
  Me,
  Media,
  Post,
  PublishPostRequest,
} from './wire-types.js';
import { createTransport, type MaybeSent, type Transport } from './transport.js';

/** Retries after a connection error, a timeout or a 5xx (so at most 1 + this many attempts). */
export const MAX_RETRIES = 3;
/** Retries of a 409 idempotency_key_in_use (the first request is still being handled). */
const MAX_IN_USE_RETRIES = 6;
const MAX_REDIRECTS = 5;
const CONNECT_TIMEOUT_MS = 10_000;
const HEADERS_TIMEOUT_MS = 30_000;
/** The whole response body, from its headers (a total: a trickle cannot stretch it). */
const BODY_TIMEOUT_MS = 30_000;
/** The ceiling of one request, connect to last byte (VIDPUB_REQUEST_TIMEOUT overrides it). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** What the client runs on: no CLI Context, only these. */
export interface ClientDeps {
  clock: Clock;
  /** Aborts every request of this client (Ctrl-C). */
  signal: AbortSignal;
  /** For the User-Agent. */
  version: string;
  /** Retries and rate-limit waits, for a person (silentNotices with --quiet). */
  notices: NoticeSink;
  /** Where --debug lines go (secrets redacted); absent: no debug log. */
  debugOut?: { write(text: string): unknown };
  /** Where the base URL and key are read from. */
  credentials: CredentialSources;
}

/** Extra knobs for tests and other callers; defaults suit the CLI. */
export interface ClientTuning {
  backoff?: BackoffPolicy;
  maxRetries?: number;
  random?: () => number;
  /** How long to wait for response headers (ms) before the attempt counts as timed out. */
  headersTimeoutMs?: number;
  /** The ceiling of one request (ms), connect to last byte (VIDPUB_REQUEST_TIMEOUT; default 60 s). */
  requestTimeoutMs?: number;
}

function header(h: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

type Headers = Record<string, string | string[] | undefined>;

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Set on the response #send returns. */
  meta?: ResponseMeta;
}

/** Creates the client. Reads the profile only when flags and env leave the base URL or key open. */
export async function createApiClient(settings: ClientSettings, deps: ClientDeps, tuning: ClientTuning = {}): Promise<ApiClient> {
  const creds = await resolveCredentials(deps.credentials, settings);
  if (creds.apiKey === undefined) throw noKeyError(settings.profile);
  const origin: KeyOrigin = { source: creds.keySource, profile: settings.profile, file: settings.apiKeyFile };
  return new HttpApiClient(deps, settings, creds.baseUrl, creds.apiKey, tuning, origin);
}

/** The key's cache, unless --no-cache, VIDPUB_NO_CACHE=1 or no cache directory. */
function cacheFor(settings: ClientSettings, deps: ClientDeps, baseUrl: string, keyId: string): KeyCache | undefined {
  const env = deps.credentials.env;
  if (settings.cache === false || envFlag(env, 'VIDPUB_NO_CACHE')) return undefined;
  const dir = cacheDir(env);
  return dir === undefined ? undefined : new KeyCache({ dir, baseUrl, keyId, now: () => deps.clock.now() });
}

class HttpApiClient implements ApiClient {
  readonly baseUrl: string;
  #keyId: string | undefined;
  /** A short hash of the key, computed on first use: node:crypto takes ~4 ms of CPU to load, which a read needs nothing of. */
  get keyId(): string {
    return (this.#keyId ??= nodeCrypto().createHash('sha256').update(this.#key).digest('hex').slice(0, 12));
  }
  /** The key's cache, opened on first use (null: none, --no-cache); `me` never needs it. */
  #cache?: KeyCache | null;
  get memory(): ClientMemory | undefined {
    if (this.#cache === undefined) this.#cache = cacheFor(this.settings, this.deps, this.baseUrl, this.keyId) ?? null;
    return this.#cache ?? undefined;
  }
  readonly #key: string;
  readonly #origin: URL;
  readonly #debug: DebugLogger;
  readonly #pacer: Pacer;
  readonly #sink: NoticeSink;
  readonly #backoff: BackoffPolicy;
  readonly #maxRetries: number;
  readonly #random: () => number;
  readonly #headersTimeoutMs: number;
  readonly #requestTimeoutMs: number;
  #transport?: Transport;
  #workspaceChecked?: Promise<void>;
  #workspace?: Promise<Me['workspace'] | undefined>;
  /** Rate-limit waits so far, against --max-wait (when it bounds the whole command). */
  #rateLimitWaitedMs = 0;
  /** The --timeout budget, started by the first request; `stop` ends its timer at close. */
  #budget?: { signal: AbortSignal; endsAt: number; stop(): void; expire(): void };
  /** The workspace in hand came from the cache (the --workspace check reads it afresh before refusing). */
  #workspaceCached = false;

  constructor(
    private readonly deps: ClientDeps,
    private readonly settings: ClientSettings,
    baseUrl: string,
    key: string,
    tuning: ClientTuning,
    /** Where the key came from: the hint after it is refused says where a new one goes. */
    private readonly keyOrigin?: KeyOrigin,
  ) {
    this.baseUrl = baseUrl;
    this.#key = key;
    this.#origin = new URL(baseUrl);
    this.#debug = createDebugLogger({ out: deps.debugOut, now: () => deps.clock.now(), secrets: () => [this.#key] });
    this.#pacer = new Pacer(deps.clock);
    this.#sink = deps.notices;
    this.#backoff = tuning.backoff ?? DEFAULT_BACKOFF;
    this.#maxRetries = tuning.maxRetries ?? MAX_RETRIES;
    this.#random = tuning.random ?? Math.random;
    this.#requestTimeoutMs = tuning.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#headersTimeoutMs = Math.min(tuning.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, this.#requestTimeoutMs);
  }

  // ------------------------------------------------------------ endpoints

  getMe(o: RequestOptions = {}): Promise<Me> {
    return this.request<Me>('GET', '/me', o);
  }

  workspace(o: RequestOptions = {}): Promise<Me['workspace'] | undefined> {
    this.#workspace ??= (async () => {
      const hit = await this.memory?.get<Me['workspace']>(CACHE_ENTRIES.workspace, WORKSPACE_TTL_MS);
      if (hit?.value && typeof hit.value === 'object') {
        this.#workspaceCached = true;
        return hit.value;
      }
      return this.#readWorkspace(o);
    })();
    // A failed read (network, interrupt) is tried again by the next caller.
    this.#workspace.catch(() => (this.#workspace = undefined));
    return this.#workspace;
  }

  /** The workspace from GET /me, kept for the next runs' --workspace check and journal (`vidpub me` alone writes no cache). */
  async #readWorkspace(o: RequestOptions): Promise<Me['workspace'] | undefined> {
    this.#workspaceCached = false;
    const workspace = (await this.getMe(o))?.workspace;
    if (workspace) await this.#remember(CACHE_ENTRIES.workspace, workspace);
    return workspace;
  }

  async listDestinations(o: RequestOptions = {}): Promise<Destination[]> {
    if (o.cached) {
      const hit = await this.memory?.get<Destination[]>(CACHE_ENTRIES.destinations, CACHE_TTL_MS);
      if (hit && Array.isArray(hit.value) && hit.value.every((d) => typeof d?.id === 'string')) return attachMeta(hit.value, { status: 200, replayed: false, cachedAt: hit.at });
    }
    const body = await this.request<unknown>('GET', '/destinations', o);
    const data = Array.isArray(body) ? body : (body as { data?: unknown } | undefined)?.data;
    const list = Array.isArray(data) ? (data as Destination[]) : [];
    await this.#remember(CACHE_ENTRIES.destinations, list);
    return list;
  }

  async getDestinationOptions(destinationId: string, o: RequestOptions = {}): Promise<DestinationOptions> {
    if (o.cached) {
      const hit = await this.memory?.get<DestinationOptions>(CACHE_ENTRIES.options(destinationId), CACHE_TTL_MS);
      if (hit && hit.value && typeof hit.value === 'object' && Array.isArray(hit.value.options) && hit.value.options.every((o) => typeof o?.key === 'string')) {
        return attachMeta(hit.value, { status: 200, replayed: false, cachedAt: hit.at });
      }
    }
    const body = await this.request<DestinationOptions>('GET', `/destinations/${encodeURIComponent(destinationId)}/options`, o);
    const options = { ...body, options: Array.isArray(body?.options) ? body.options : [] };
    await this.#remember(CACHE_ENTRIES.options(destinationId), options);
    return attachMeta(options, responseMeta(body));
  }

  /**
   * Keeps an answer in the key's cache. Awaited (a few ms of file work) so
   * that nothing is left to write once a command has printed: a process that
   * lingers after printing into a closed pipe (| head) meets EPIPE.
   */
  async #remember(name: string, value: unknown): Promise<void> {
    await this.memory?.set(name, value);
  }

  createUpload(body: CreateUploadRequest, o: RequestOptions = {}): Promise<CreateUploadResponse> {
    return this.request('POST', '/media/uploads', { action: 'upload a video', ...o, body });
  }

  completeUpload(mediaId: string, o: RequestOptions = {}): Promise<Media> {
    return this.request('POST', `/media/${encodeURIComponent(mediaId)}/complete`, { action: 'finish an upload', ...o });
  }

  createImport(body: CreateImportRequest, o: RequestOptions = {}): Promise<Media> {
    return this.request('POST', '/media/imports', { action: 'import a video', ...o, body });
  }

  async getMedia(mediaId: string, o: RequestOptions = {}): Promise<Media> {
    const path = `/media/${encodeURIComponent(mediaId)}`;
    return this.#record(await this.request<Media>('GET', path, o), mediaId, path, "video's");
  }

  createPost(body: CreatePostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.request('POST', '/posts', { action: 'create a post', ...o, body });
  }

  publishPost(postId: string, body: PublishPostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.request('POST', `/posts/${encodeURIComponent(postId)}/publish`, { action: 'publish a post', ...o, body });
  }

  async getPost(postId: string, o: RequestOptions = {}): Promise<Post> {
    const path = `/posts/${encodeURIComponent(postId)}`;
    return this.#record(await this.request<Post>('GET', path, o), postId, path, "post's");
  }

  /**
   * A record read by id must at least say its status: an answer without one
   * (an empty object, a list) is refused here, rather than printed as a post
   * with no id or taken by a wait for a finished video. A record without its
   * id gets the one asked for.
   */
  #record<T extends { id: string; status: string }>(body: T | undefined, id: string, path: string, what: string): T {
    if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.status !== 'string') {
      const pathname = new URL(this.baseUrl + path).pathname;
      throw new ServiceError(`Unexpected response to GET ${pathname}: HTTP 200 without the ${what} status.`, {
        hint: 'Run the command again with --debug to see the answer; if it keeps happening, the service is answering outside its contract.',
        http: { status: 200, method: 'GET', path: pathname },
      });
    }
    if (typeof body.id !== 'string') body.id = id;
    return body;
  }

  async close(): Promise<void> {
    this.#budget?.stop();
    await this.#cache?.close();
    const transport = this.#transport;
    this.#transport = undefined;
    await transport?.close().catch(() => undefined);
  }

  // ------------------------------------------------------------ core

  /** Any endpoint of the contract: `path` is relative to baseUrl (e.g. "/me"). */
  async request<T = unknown>(method: HttpMethod, path: string, o: RequestOptions = {}): Promise<T> {
    if (kindOf(method) === 'write') await this.checkWorkspace(o);
    const res = await this.#send(method, path, o);
    if (res.text.trim() === '') return undefined as T;
    try {
      return attachMeta(JSON.parse(res.text) as T, res.meta);
    } catch {
      const type = header(res.headers, 'content-type') ?? 'no content type';
      throw new ServiceError(
        `Unexpected response to ${method} ${redactUrl(this.baseUrl + path)}: HTTP ${res.status} (${sanitize(type)}) is not JSON: ${parseErrorBody(res.text, type).message}`,
        { http: { status: res.status, method, path: new URL(this.baseUrl + path).pathname } },
      );
    }
  }

  /** --workspace: the key must belong to the named workspace before anything is written. */
  checkWorkspace({ signal }: { signal?: AbortSignal } = {}): Promise<void> {
    const want = this.settings.workspace;
    if (!want) return Promise.resolve();
    this.#workspaceChecked ??= (async () => {
      let actual = (await this.workspace({ signal }))?.name;
      if (actual !== want && this.#workspaceCached) {
        // The cache may predate a rename: refuse only on what the service says now.
        this.#workspace = this.#readWorkspace({ signal });
        actual = (await this.#workspace)?.name;
      }
      if (actual !== want) {
        throw new AuthError(
          `This API key belongs to workspace "${sanitize(String(actual ?? 'unknown'))}", not "${sanitize(want)}" (--workspace / VIDPUB_WORKSPACE); nothing was written.`,
          { hint: 'Use the key of that workspace (--profile, VIDPUB_API_KEY), or correct --workspace.' },
        );
      }
    })();
    // A failed check (network, interrupt) may be retried by a later write.
    this.#workspaceChecked.catch(() => (this.#workspaceChecked = undefined));
    return this.#workspaceChecked;
  }

  #transportFor(): Transport {
    return (this.#transport ??= createTransport({
      connectMs: Math.min(CONNECT_TIMEOUT_MS, this.#requestTimeoutMs),
      headersMs: this.#headersTimeoutMs,
      bodyMs: Math.min(BODY_TIMEOUT_MS, this.#requestTimeoutMs),
      totalMs: this.#requestTimeoutMs,
    }));
  }

  #signal(o: RequestOptions): AbortSignal {
    if (o.signal && o.signalOnly) return o.signal;
    const signals = [this.deps.signal, ...(o.signal ? [o.signal] : []), ...(this.#budgetSignal() ?? [])];
    return signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
  }

  /**
   * settings.timeoutMs as a signal that aborts with DeadlineReached once spent,
   * started by the first request. A real timer aborts what is in flight; each
   * call also checks the clock (a test's clock may run faster than real time).
   */
  #budgetSignal(): [AbortSignal] | undefined {
    const ms = this.settings.timeoutMs;
    if (ms === undefined) return undefined;
    if (!this.#budget) {
      const expired = new AbortController();
      const reason = new DeadlineReached(ms);
      const timer = setTimeout(() => expired.abort(reason), ms);
      timer.unref?.();
      this.#budget = { signal: expired.signal, endsAt: this.deps.clock.now() + ms, stop: () => clearTimeout(timer), expire: () => expired.abort(reason) };
    }
    if (this.deps.clock.now() >= this.#budget.endsAt) this.#budget.expire();
    return [this.#budget.signal];
  }

  /**
   * Sends one logical request; a write that may have reached the service but
   * got no answer (timeout, dropped connection, still in flight, Ctrl-C or the
   * deadline during it) ends in OutcomeUnknownError, never in a refusal.
   */
  async #send(method: HttpMethod, path: string, o: RequestOptions): Promise<RawResponse> {
    const signal = this.#signal(o);
    const kind = kindOf(method);
    // A write carries one Idempotency-Key for all its attempts.
    const idempotencyKey = kind === 'write' ? (o.idempotencyKey ?? nodeCrypto().randomUUID()) : undefined;
    const state = { uncertain: false };
    try {
      return await this.#attempts(method, path, o, signal, idempotencyKey, state);
    } catch (caught) {
      let err = caught;
      // A refused key: what was cached under it may no longer hold (a key moved, access changed).
      if (err instanceof AuthError) {
        await this.memory?.forget();
        if (this.keyOrigin) err = withKeyHint(err, this.keyOrigin);
      }
      if (kind !== 'write') throw err;
      throw unknownOutcome(err, state.uncertain, signal, `${method} ${new URL(this.baseUrl + path).pathname}`, o.action) ?? err;
    }
  }

  /** The attempts of one logical request: retries, rate limits, redirects; returns a 2xx response or throws. */
  async #attempts(
    method: HttpMethod,
    path: string,
    o: RequestOptions,
    signal: AbortSignal,
    idempotencyKey: string | undefined,
    state: { uncertain: boolean },
  ): Promise<RawResponse> {
    const kind = kindOf(method);
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    const limits = { maxRetries: this.#maxRetries, maxInUseRetries: MAX_IN_USE_RETRIES };
    const counters: RetryCounters = { retries: 0, inUseRetries: 0 };
    let url = this.baseUrl + path;
    let redirects = 0;
    // --max-wait bounds every rate-limit wait of the command together, or of this request alone.
    const perRequest = this.settings.maxWaitPer === 'request';
    let requestWaitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      this.#budgetSignal(); // spent by now on the clock: the signal aborts
      if (signal.aborted) throw stoppedError(signal);
      // Per request (the MCP server): a wait for the minute's allowance counts against --max-wait like a 429's.
      const paceMs = perRequest ? this.#pacer.delayFor(kind) : 0;
      if (paceMs > this.settings.maxWaitMs - requestWaitedMs) {
        const wait = formatDuration(Math.ceil(paceMs / 1000) * 1000);
        throw new RateLimitError(`Rate limited (requests_per_minute): no ${kind} requests are left this minute; the allowance resets in ${wait}, more than --max-wait (${formatDuration(this.settings.maxWaitMs)}) allows.`, {
          code: 'requests_per_minute',
          retryAfterSec: Math.ceil(paceMs / 1000),
          hint: `Try again in ${wait}, or raise --max-wait.`,
        });
      }
      await this.#pacer.before(kind, signal, (ms) => {
        const text = `Pacing: no ${kind} requests left this minute; waiting ${formatDuration(ms)} for the allowance to reset.`;
        if (ms >= 5_000) this.#sink.line(text);
        else this.#debug.line(text);
      });

      let res: RawResponse;
      try {
        res = await this.#once(method, url, body, idempotencyKey, signal, attempt);
      } catch (err) {
        // The request may have reached the service (the connection was up): its outcome is open.
        if ((err as MaybeSent | undefined)?.requestSent !== false) state.uncertain = true;
        if (isAbortError(err, signal)) throw stoppedError(signal, err);
        const decision = decideAfterAttempt({ kind: 'network', retryable: isRetryableNetworkError(err) }, counters, limits);
        if (decision.action === 'retry') {
          await this.#backoffWait(counters[decision.counter]++, signal, `${method} ${redactUrl(url)} failed (${networkReason(err)})`);
          continue;
        }
        throw networkError(err, method, url, attempt);
      }

      const { status, headers } = res;
      const rate = this.#pacer.note(kind, headers);
      const retryAfterSec = parseRetryAfter(headers['retry-after'], this.deps.clock.now());
      res.meta = {
        status,
        replayed: header(headers, 'idempotent-replayed') === 'true',
        rateLimit: rate ? { limit: rate.limit ?? 0, remaining: rate.remaining, resetSec: Math.max(0, Math.round((rate.resetAtMs - this.deps.clock.now()) / 1000)) } : undefined,
        ...(retryAfterSec !== undefined ? { retryAfterSec } : {}),
        ...(headers.server !== undefined ? { server: header(headers, 'server') } : {}),
      };
      const info = { status, method, url, headers, bodyText: res.text, retryAfterSec, secrets: [this.#key] };
      const code = status >= 400 ? parseErrorBody(res.text, header(headers, 'content-type')).code : undefined;
      // 409 idempotency_key_in_use: a request with this key is still being handled: its outcome is open.
      if (status === 409 && code === 'idempotency_key_in_use') state.uncertain = true;
      // A gateway's 502/504: it may have passed the request on, and the service may have handled it.
      else if (status === 502 || status === 504) state.uncertain = true;
      else if (status < 500 && status !== 429) state.uncertain = false;
      const decision = decideAfterAttempt({ kind: 'response', status, code, retryAfterSec }, counters, limits);
      switch (decision.action) {
        case 'accept':
          return res;
        case 'redirect':
          url = this.#redirectTarget(res, method, url, ++redirects);
          continue;
        case 'rate-limited': {
          const waited = await this.#rateLimited(info, perRequest ? requestWaitedMs : this.#rateLimitWaitedMs, signal, o.action);
          requestWaitedMs += waited;
          this.#rateLimitWaitedMs += waited;
          continue;
        }
        case 'retry': {
          const why = decision.counter === 'inUseRetries' ? `${method} ${redactUrl(url)}: the same request is still being handled` : `${method} ${redactUrl(url)} got HTTP ${status}`;
          await this.#backoffWait(counters[decision.counter]++, signal, why, decision.delayMs);
          continue;
        }
        case 'fail': {
          const err = errorFromResponse(info, { action: o.action });
          if (status >= 500 && attempt > 1 && err instanceof ServiceError) {
            throw new ServiceError(`${err.message} after ${attempt} attempts`, { http: err.http, hint: err.hint });
          }
          throw err;
        }
      }
    }
  }

  /** One HTTP exchange, logged. */
  async #once(method: string, url: string, body: string | undefined, idempotencyKey: string | undefined, signal: AbortSignal, attempt: number): Promise<RawResponse> {
    const transport = this.#transportFor();
    const target = new URL(url);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `vidpub/${this.deps.version}`,
    };
    // The key goes to the service's origin only.
    if (sameOrigin(target, this.#origin)) headers.authorization = `Bearer ${this.#key}`;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const done = this.#debug.request(method, url, [idempotencyKey ? `idempotency-key=${idempotencyKey}` : '', attempt > 1 ? `attempt=${attempt}` : ''].filter(Boolean).join(' '));
    try {
      const res = await transport.request(url, { method, headers, body, signal });
      const { text } = res;
      const h: Headers = res.headers;
      const extra = [
        header(h, 'x-ratelimit-remaining') !== undefined ? `remaining=${header(h, 'x-ratelimit-remaining')}/${header(h, 'x-ratelimit-limit') ?? '?'} reset=${header(h, 'x-ratelimit-reset') ?? '?'}s` : '',
        header(h, 'idempotent-replayed') === 'true' ? 'replayed' : '',
        header(h, 'retry-after') !== undefined ? `retry-after=${header(h, 'retry-after')}` : '',
        res.statusCode >= 400 ? `body=${JSON.stringify(parseErrorBody(text, header(h, 'content-type')).message.slice(0, 120))}` : '',
      ].filter(Boolean);
      done(res.statusCode, extra.join(' '));
      return { status: res.statusCode, headers: h, text };
    } catch (err) {
      done('ERR', networkReason(err));
      throw err;
    }
  }

  #redirectTarget(res: RawResponse, method: string, url: string, count: number): string {
    const location = header(res.headers, 'location');
    const from = new URL(url);
    const fail = (why: string) =>
      new ServiceError(`The service answered ${method} ${redactUrl(url)} with a redirect (HTTP ${res.status}) that vidpub does not follow: ${why}`, {
        http: { status: res.status, method, path: from.pathname },
        hint: 'Check the base URL (--base-url, VIDPUB_BASE_URL or the profile): it should be the service root, including /v1.',
      });
    if (!location) throw fail('no Location header');
    let to: URL;
    try {
      to = new URL(location, url);
    } catch {
      throw fail('an invalid Location');
    }
    if (!sameOrigin(to, this.#origin)) {
      throw fail(`it points to another origin (${redactUrl(to.origin)}), and the API key is only ever sent to ${this.#origin.origin}`);
    }
    if (count > MAX_REDIRECTS) throw fail('too many redirects');
    if (method !== 'GET' && res.status !== 307 && res.status !== 308) throw fail(`HTTP ${res.status} would turn the ${method} into a GET`);
    this.#debug.line(`redirect ${res.status} → ${redactUrl(to.href)}`);
    return to.href;
  }

  /** A 429: waits it out (returns the ms waited that count against --max-wait) or throws RateLimitError. */
  async #rateLimited(info: Parameters<typeof errorFromResponse>[0], waitedMs: number, signal: AbortSignal, action?: string): Promise<number> {
    const parsed = parseErrorBody(info.bodyText, header(info.headers, 'content-type'));
    const code = parsed.code ?? 'rate_limited';
    const now = this.deps.clock.now();
    const decision = decideRateLimit({
      code,
      retryAfterSec: info.retryAfterSec,
      resetAt: parsed.resetAt,
      now,
      waitedMs,
      maxWaitMs: this.settings.maxWaitMs,
      waitForQuota: this.settings.waitForQuota,
    });
    if (decision.action === 'fail' && decision.reason === 'daily') {
      throw new RateLimitError(`The daily post allowance is used up (daily_post_limit); it resets at ${formatResetTime(decision.resetAt, now)}.`, {
        http: errorFromResponse(info).http,
        code,
        retryAfterSec: info.retryAfterSec,
        resetAt: decision.resetAt,
        hint: 'Run again after the reset, add --wait-for-quota to wait for it, or schedule the post for later.',
      });
    }
    if (decision.action === 'fail') {
      const base = errorFromResponse(info, { action });
      const already = waitedMs > 0 ? ` after waiting ${formatDuration(waitedMs)}` : '';
      throw new RateLimitError(
        `Rate limited (${code})${already}: the service asks to wait ${formatDuration(decision.waitMs)}, more than --max-wait (${formatDuration(this.settings.maxWaitMs)}) allows. ${parsed.message ? sanitize(parsed.message) : ''}`.trim(),
        {
          http: base.http,
          code,
          retryAfterSec: info.retryAfterSec,
          resetAt: parsed.resetAt,
          hint: `Try again in ${formatDuration(decision.waitMs)}, or raise --max-wait.`,
        },
      );
    }
    const when = formatResetTime(decision.resetAt, now);
    await waitWithNotice({
      clock: this.deps.clock,
      ms: decision.ms,
      signal,
      sink: this.#sink,
      message: decision.daily
        ? decision.resetAt === undefined
          ? (left) => `Daily post allowance used up and the service gave no reset time; asking again in ${left} (--wait-for-quota)…`
          : (left) => `Daily post allowance used up; waiting for the reset at ${when} (--wait-for-quota), ${left} left…`
        : (left) => `Rate limited (${code}); retrying in ${left}…`,
    });
    return decision.daily ? 0 : decision.ms;
  }

  async #backoffWait(retry: number, signal: AbortSignal, why: string, overrideMs?: number): Promise<void> {
    const ms = overrideMs ?? backoffDelay(retry, this.#backoff, this.#random);
    this.#debug.line(`${why}; retry ${retry + 1} in ${ms} ms`);
    if (retry >= 1) this.#sink.line(`${why}; retrying in ${formatDuration(ms)}…`);
    await interruptibleSleep(this.deps.clock, ms, signal);
  }

}

/**
 * A write's failure as OutcomeUnknownError when the service may have handled
 * it without our hearing: an earlier attempt got no answer (or the same
 * request is still in flight), and nothing definitive came since. Undefined
 * when the failure says nothing was done (a 4xx, no connection at all).
 */
function unknownOutcome(err: unknown, uncertain: boolean, signal: AbortSignal, request: string, action?: string): OutcomeUnknownError | undefined {
  if (!uncertain || err instanceof OutcomeUnknownError) return undefined;
  const status = err instanceof VidpubError ? err.http?.status : undefined;
  const inFlight = status === 409 && err instanceof VidpubError && err.http?.code === 'idempotency_key_in_use';
  // A per-minute 429 comes before the Idempotency-Key is looked at: it refuses this attempt only, and an
  // earlier one may have been done. The operation's own 429s (daily_post_limit, imports_in_flight) come after
  // it, where an earlier attempt that was done would have been replayed: those are refusals.
  const code = err instanceof RateLimitError ? err.code : err instanceof VidpubError ? err.http?.code : undefined;
  const beforeKey = status === 429 && code !== 'daily_post_limit' && code !== 'imports_in_flight';
  if (status !== undefined && status >= 400 && status < 500 && !beforeKey && !inFlight) return undefined;
  const gateway = status === 502 || status === 504;
  const reason: OutcomeUnknownError['reason'] =
    isDeadline(signal) || err instanceof TimeoutError ? 'deadline' : signal.aborted ? 'interrupt' : inFlight ? 'in-flight' : gateway ? 'gateway' : 'network';
  const unknown = new OutcomeUnknownError(`The outcome of ${request}${action ? ` (${action})` : ''} is unknown`, {
    request,
    reason,
    cause: err,
    http: err instanceof VidpubError ? err.http : undefined,
  });
  return unknown.retold(`The outcome of ${request}${action ? ` (${action})` : ''} is unknown: ${unknown.why}; it may have been done.`, {});
}

function networkReason(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const msg = err instanceof Error ? err.message : String(err);
  return sanitize(typeof code === 'string' ? `${code}: ${msg}` : msg);
}


/**
 * The API client: a thin typed layer over node:http (transport.ts) for every
 * endpoint of the contract, with what a CLI that runs in cron jobs needs:
 *
 * - base URL and key resolved from flags, env, then the stored profile;
 *   `http://` refused unless loopback; the key sent to the service only
 *   (redirects to another origin are not followed);
 * - one Idempotency-Key per logical POST, reused on every retry;
 * - retries of connection errors, timeouts and 5xx with capped, jittered
 *   exponential backoff; 429 waited out per Retry-After within --max-wait
 *   (daily_post_limit only with --wait-for-quota); X-RateLimit-* used to
 *   slow down before a 429;
 * - --workspace checked against GET /me before the first write;
 * - every failure mapped to the error hierarchy in http-errors.ts;
 * - a --debug line per request and response, secrets redacted.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Context, Profile } from '../cli/context.js';
import { AuthError, InterruptedError, RateLimitError, ServiceError, UsageError, sanitize } from '../errors.js';
import { formatDuration } from '../util/duration.js';
import type { ApiClient, ClientSettings, KeySource, RequestOptions, ResponseMeta } from './client.js';
import { createDebugLogger, redactUrl, type DebugLogger } from './debug.js';
import { errorFromResponse, formatResetTime, isRetryableNetworkError, networkError, parseErrorBody } from './http-errors.js';
import { Pacer, kindOf } from './pacing.js';
import { DEFAULT_BACKOFF, backoffDelay, interruptibleSleep, isAbortError, parseRetryAfter, waitWithNotice, type BackoffPolicy, type NoticeSink } from './retry.js';
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
} from './types.js';
import { createTransport, type Transport } from './transport.js';

/** The built-in default base URL (documented in the README). */
export const DEFAULT_BASE_URL = 'https://api.videopublishing.example/v1';

/** Retries after a connection error, a timeout or a 5xx (so at most 1 + this many attempts). */
export const MAX_RETRIES = 3;
/** Retries of a 409 idempotency_key_in_use (the first request is still being handled). */
const MAX_IN_USE_RETRIES = 6;
const MAX_REDIRECTS = 5;
const CONNECT_TIMEOUT_MS = 10_000;
const HEADERS_TIMEOUT_MS = 30_000;
const BODY_TIMEOUT_MS = 60_000;

/** Extra knobs for tests and other callers; defaults suit the CLI. */
export interface ClientTuning {
  backoff?: BackoffPolicy;
  maxRetries?: number;
  random?: () => number;
  /** How long to wait for response headers (ms) before the attempt counts as timed out. */
  headersTimeoutMs?: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(h) || h.endsWith('.localhost')) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Validates a base URL: https, or http on a loopback address only (an API key
 * must not cross a network in clear text). Returns it without a trailing slash.
 */
export function normalizeBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`invalid base URL "${sanitize(raw)}" (from ${source}): write it like https://api.example.com/v1`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid base URL "${redactUrl(sanitize(raw))}" (from ${source}): use https://`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing the http:// base URL ${redactUrl(url.href)} (from ${source}): the API key would travel unencrypted`, {
      hint: 'Use https://, or http:// only on this machine (localhost, 127.0.0.1, ::1) such as the emulator.',
    });
  }
  if (url.username || url.password) {
    throw new UsageError(`the base URL (from ${source}) must not contain a user name or password`);
  }
  if (url.search || url.hash) {
    throw new UsageError(`the base URL ${redactUrl(url.href)} (from ${source}) must not have a query string or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}

/** Where the base URL and key come from, in order; the profile is read only when needed. */
export async function resolveCredentials(
  ctx: Context,
  settings: ClientSettings,
): Promise<{ baseUrl: string; baseUrlSource: string; apiKey?: string; keySource?: KeySource; profile?: Profile }> {
  let profile: Profile | undefined;
  let profileRead = false;
  const readProfile = async () => {
    if (!profileRead) {
      profileRead = true;
      profile = (await ctx.config()).getProfile(settings.profile);
    }
    return profile;
  };

  let baseUrl: string;
  let baseUrlSource: string;
  const envBase = ctx.env.VIDPUB_BASE_URL?.trim();
  if (settings.baseUrl !== undefined) {
    baseUrl = settings.baseUrl;
    baseUrlSource = '--base-url';
  } else if (envBase) {
    baseUrl = envBase;
    baseUrlSource = 'VIDPUB_BASE_URL';
  } else if ((await readProfile())?.base_url) {
    baseUrl = profile!.base_url!;
    baseUrlSource = `profile "${settings.profile}"`;
  } else {
    baseUrl = DEFAULT_BASE_URL;
    baseUrlSource = 'the built-in default';
  }
  baseUrl = normalizeBaseUrl(baseUrl, baseUrlSource);

  let apiKey: string | undefined;
  let keySource: KeySource | undefined;
  if (settings.apiKey !== undefined) {
    apiKey = settings.apiKey.trim();
    keySource = 'settings';
  } else if (settings.apiKeyFile !== undefined) {
    apiKey = await readKeyFile(ctx, settings.apiKeyFile);
    keySource = '--api-key-file';
  } else if (ctx.env.VIDPUB_API_KEY?.trim()) {
    apiKey = ctx.env.VIDPUB_API_KEY.trim();
    keySource = 'VIDPUB_API_KEY';
  } else if ((await readProfile())?.api_key) {
    apiKey = profile!.api_key!.trim();
    keySource = 'profile';
  }
  if (apiKey !== undefined) checkKeyCharacters(apiKey, keySource!);
  return { baseUrl, baseUrlSource, apiKey, keySource, profile };
}

/** Reads a key file (--api-key-file): trimmed; a missing or empty file is a usage error naming it. */
export async function readKeyFile(ctx: Context, file: string): Promise<string> {
  const path = isAbsolute(file) ? file : resolvePath(ctx.cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the API key file ${sanitize(path)}${code ? ` (${code})` : ''}`, {
      hint: 'Give --api-key-file a file that holds only the key.',
    });
  }
  const key = text.trim();
  if (!key) throw new UsageError(`the API key file ${sanitize(path)} is empty`);
  return key;
}

function checkKeyCharacters(key: string, source: string): void {
  // A header value cannot hold spaces or control characters; saying so beats the HTTP library's error.
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(`the API key from ${source} contains spaces or characters a key cannot have`, {
      hint: 'Check that the key was copied whole, on one line.',
    });
  }
}

export function noKeyError(profile: string): AuthError {
  return new AuthError('No API key: none was given and none is stored' + (profile === 'default' ? '.' : ` in profile "${profile}".`), {
    hint: 'Run "vidpub login" to store one, or set VIDPUB_API_KEY (or pass --api-key-file PATH).',
  });
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
}

/** Creates the client. Reads the profile only when flags and env leave the base URL or key open. */
export async function createApiClient(ctx: Context, settings: ClientSettings, tuning: ClientTuning = {}): Promise<ApiClient> {
  const creds = await resolveCredentials(ctx, settings);
  if (creds.apiKey === undefined) throw noKeyError(settings.profile);
  return new HttpApiClient(ctx, settings, creds.baseUrl, creds.apiKey, creds.keySource!, tuning);
}

class HttpApiClient implements ApiClient {
  readonly baseUrl: string;
  readonly keySource: KeySource;
  lastResponse?: ResponseMeta;
  readonly #key: string;
  readonly #origin: URL;
  readonly #debug: DebugLogger;
  readonly #pacer: Pacer;
  readonly #sink: NoticeSink;
  readonly #backoff: BackoffPolicy;
  readonly #maxRetries: number;
  readonly #random: () => number;
  readonly #headersTimeoutMs: number;
  #transport?: Transport;
  #workspaceChecked?: Promise<void>;

  constructor(
    private readonly ctx: Context,
    private readonly settings: ClientSettings,
    baseUrl: string,
    key: string,
    keySource: KeySource,
    tuning: ClientTuning,
  ) {
    this.baseUrl = baseUrl;
    this.keySource = keySource;
    this.#key = key;
    this.#origin = new URL(baseUrl);
    this.#debug = createDebugLogger({ enabled: settings.debug, stderr: ctx.io.stderr, now: () => ctx.clock.now(), secrets: () => [this.#key] });
    this.#pacer = new Pacer(ctx.clock);
    this.#sink = { enabled: !settings.quiet, tty: ctx.io.stderrIsTTY, stream: ctx.io.stderr };
    this.#backoff = tuning.backoff ?? DEFAULT_BACKOFF;
    this.#maxRetries = tuning.maxRetries ?? MAX_RETRIES;
    this.#random = tuning.random ?? Math.random;
    this.#headersTimeoutMs = tuning.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  }

  // ------------------------------------------------------------ endpoints

  getMe(o: RequestOptions = {}): Promise<Me> {
    return this.request<Me>('GET', '/me', o);
  }

  async listDestinations(o: RequestOptions = {}): Promise<Destination[]> {
    const body = await this.request<unknown>('GET', '/destinations', o);
    if (Array.isArray(body)) return body as Destination[];
    const data = (body as { data?: unknown } | undefined)?.data;
    return Array.isArray(data) ? (data as Destination[]) : [];
  }

  async getDestinationOptions(destinationId: string, o: RequestOptions = {}): Promise<DestinationOptions> {
    const body = await this.request<DestinationOptions>('GET', `/destinations/${encodeURIComponent(destinationId)}/options`, o);
    return { ...body, options: Array.isArray(body?.options) ? body.options : [] };
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

  getMedia(mediaId: string, o: RequestOptions = {}): Promise<Media> {
    return this.request('GET', `/media/${encodeURIComponent(mediaId)}`, o);
  }

  createPost(body: CreatePostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.request('POST', '/posts', { action: 'create a post', ...o, body });
  }

  publishPost(postId: string, body: PublishPostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.request('POST', `/posts/${encodeURIComponent(postId)}/publish`, { action: 'publish a post', ...o, body });
  }

  getPost(postId: string, o: RequestOptions = {}): Promise<Post> {
    return this.request('GET', `/posts/${encodeURIComponent(postId)}`, o);
  }

  async close(): Promise<void> {
    const transport = this.#transport;
    this.#transport = undefined;
    await transport?.close().catch(() => undefined);
  }

  // ------------------------------------------------------------ core

  async request<T = unknown>(method: 'GET' | 'POST', path: string, o: RequestOptions = {}): Promise<T> {
    if (method === 'POST') await this.#checkWorkspace(o.signal);
    const res = await this.#send(method, path, o);
    if (res.text.trim() === '') return undefined as T;
    try {
      return JSON.parse(res.text) as T;
    } catch {
      const type = header(res.headers, 'content-type') ?? 'no content type';
      throw new ServiceError(
        `Unexpected response to ${method} ${redactUrl(this.baseUrl + path)}: HTTP ${res.status} (${sanitize(type)}) is not JSON: ${parseErrorBody(res.text, type).message}`,
        { http: { status: res.status, method, path: new URL(this.baseUrl + path).pathname } },
      );
    }
  }

  /** --workspace: the key must belong to the named workspace before anything is written. */
  #checkWorkspace(signal?: AbortSignal): Promise<void> {
    const want = this.settings.workspace;
    if (!want) return Promise.resolve();
    this.#workspaceChecked ??= (async () => {
      const me = await this.getMe({ signal });
      const actual = me?.workspace?.name;
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
    return (this.#transport ??= createTransport({ connectMs: CONNECT_TIMEOUT_MS, headersMs: this.#headersTimeoutMs, bodyMs: BODY_TIMEOUT_MS }));
  }

  #signal(o: RequestOptions): AbortSignal {
    return o.signal ? AbortSignal.any([this.ctx.signal, o.signal]) : this.ctx.signal;
  }

  /** Sends one logical request: retries, rate limits, redirects; returns a 2xx response or throws. */
  async #send(method: 'GET' | 'POST', path: string, o: RequestOptions): Promise<RawResponse> {
    const signal = this.#signal(o);
    const kind = kindOf(method);
    const idempotencyKey = method === 'POST' ? (o.idempotencyKey ?? randomUUID()) : undefined;
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    let url = this.baseUrl + path;
    let retries = 0;
    let inUseRetries = 0;
    let redirects = 0;
    let rateLimitWaitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw new InterruptedError('Interrupted.');
      await this.#pacer.before(kind, signal, (ms) => {
        const text = `Pacing: no ${kind} requests left this minute; waiting ${formatDuration(ms)} for the allowance to reset.`;
        if (ms >= 5_000) this.#notice(text);
        else this.#debug.line(text);
      });

      let res: RawResponse;
      try {
        res = await this.#once(method, url, body, idempotencyKey, signal, attempt);
      } catch (err) {
        if (isAbortError(err, signal)) throw new InterruptedError('Interrupted.', { cause: err });
        if (isRetryableNetworkError(err) && retries < this.#maxRetries) {
          await this.#backoffWait(retries++, signal, `${method} ${redactUrl(url)} failed (${networkReason(err)})`);
          continue;
        }
        throw networkError(err, method, url, attempt);
      }

      const { status, headers } = res;
      const rate = this.#pacer.note(kind, headers);
      const replayed = header(headers, 'idempotent-replayed') === 'true';
      this.lastResponse = {
        status,
        replayed,
        rateLimit: rate ? { limit: rate.limit ?? 0, remaining: rate.remaining, resetSec: Math.max(0, Math.round((rate.resetAtMs - this.ctx.clock.now()) / 1000)) } : undefined,
      };
      if (status >= 200 && status < 300) return res;

      const retryAfterSec = parseRetryAfter(headers['retry-after'], this.ctx.clock.now());
      const info = { status, method, url, headers, bodyText: res.text, retryAfterSec };

      if (status >= 300 && status < 400) {
        url = this.#redirectTarget(res, method, url, ++redirects);
        continue;
      }
      if (status === 429) {
        rateLimitWaitedMs += await this.#rateLimited(info, rateLimitWaitedMs, signal, o.action);
        continue;
      }
      if (status === 409 && parseErrorBody(res.text, header(headers, 'content-type')).code === 'idempotency_key_in_use' && inUseRetries < MAX_IN_USE_RETRIES) {
        await this.#backoffWait(inUseRetries++, signal, `${method} ${redactUrl(url)}: the same request is still being handled`);
        continue;
      }
      if (status >= 500 && retries < this.#maxRetries) {
        const wait = retryAfterSec !== undefined ? Math.min(retryAfterSec * 1000, 60_000) : undefined;
        await this.#backoffWait(retries++, signal, `${method} ${redactUrl(url)} got HTTP ${status}`, wait);
        continue;
      }
      const err = errorFromResponse(info, { action: o.action });
      if (status >= 500 && attempt > 1 && err instanceof ServiceError) {
        throw new ServiceError(`${err.message} after ${attempt} attempts`, { http: err.http, hint: err.hint });
      }
      throw err;
    }
  }

  /** One HTTP exchange, logged. */
  async #once(method: string, url: string, body: string | undefined, idempotencyKey: string | undefined, signal: AbortSignal, attempt: number): Promise<RawResponse> {
    const transport = this.#transportFor();
    const target = new URL(url);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `vidpub/${this.ctx.version}`,
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

  /** A 429: waits it out (returns the ms waited) or throws RateLimitError. */
  async #rateLimited(info: Parameters<typeof errorFromResponse>[0], waitedMs: number, signal: AbortSignal, action?: string): Promise<number> {
    const parsed = parseErrorBody(info.bodyText, header(info.headers, 'content-type'));
    const code = parsed.code ?? 'rate_limited';
    const now = this.ctx.clock.now();
    if (code === 'daily_post_limit') {
      const resetMs = parsed.resetAt ? Date.parse(parsed.resetAt) : NaN;
      const resetAt = !Number.isNaN(resetMs) ? parsed.resetAt : info.retryAfterSec !== undefined ? new Date(now + info.retryAfterSec * 1000).toISOString() : undefined;
      const when = formatResetTime(resetAt, now);
      if (!this.settings.waitForQuota) {
        throw new RateLimitError(`The daily post allowance is used up (daily_post_limit); it resets at ${when}.`, {
          http: errorFromResponse(info).http,
          code,
          retryAfterSec: info.retryAfterSec,
          resetAt,
          hint: 'Run again after the reset, add --wait-for-quota to wait for it, or schedule the post for later.',
        });
      }
      const waitMs = resetAt ? Math.max(1000, Date.parse(resetAt) - now + 1000) : Math.max(1000, (info.retryAfterSec ?? 60) * 1000);
      await waitWithNotice({
        clock: this.ctx.clock,
        ms: waitMs,
        signal,
        sink: this.#sink,
        message: (left) => `Daily post allowance used up; waiting for the reset at ${when} (--wait-for-quota), ${left} left…`,
      });
      return 0;
    }
    const waitMs = Math.max(1, info.retryAfterSec ?? 1) * 1000;
    if (waitedMs + waitMs > this.settings.maxWaitMs) {
      const base = errorFromResponse(info, { action });
      const already = waitedMs > 0 ? ` after waiting ${formatDuration(waitedMs)}` : '';
      throw new RateLimitError(
        `Rate limited (${code})${already}: the service asks to wait ${formatDuration(waitMs)}, more than --max-wait (${formatDuration(this.settings.maxWaitMs)}) allows. ${parsed.message ? sanitize(parsed.message) : ''}`.trim(),
        {
          http: base.http,
          code,
          retryAfterSec: info.retryAfterSec,
          resetAt: parsed.resetAt,
          hint: `Try again in ${formatDuration(waitMs)}, or raise --max-wait.`,
        },
      );
    }
    await waitWithNotice({
      clock: this.ctx.clock,
      ms: waitMs,
      signal,
      sink: this.#sink,
      message: (left) => `Rate limited (${code}); retrying in ${left}…`,
    });
    return waitMs;
  }

  async #backoffWait(retry: number, signal: AbortSignal, why: string, overrideMs?: number): Promise<void> {
    const ms = overrideMs ?? backoffDelay(retry, this.#backoff, this.#random);
    this.#debug.line(`${why}; retry ${retry + 1} in ${ms} ms`);
    if (retry >= 1) this.#notice(`${why}; retrying in ${formatDuration(ms)}…`);
    await interruptibleSleep(this.ctx.clock, ms, signal);
  }

  #notice(line: string): void {
    if (this.#sink.enabled) this.#sink.stream.write(line + '\n');
  }
}

function networkReason(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const msg = err instanceof Error ? err.message : String(err);
  return sanitize(typeof code === 'string' ? `${code}: ${msg}` : msg);
}


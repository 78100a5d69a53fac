/**
 * The API client's public shape. Commands depend on this interface only; the
 * implementation (node:http, retries, idempotency, pacing, debug log)
 * lives beside it in src/api/ and is loaded lazily through Context.createClient.
 */
import type { Expectation } from './send/service-word.js';
import type { NetSettings } from './net/net-types.js';
import type { RequestKind } from './send/rate-limit-state.js';
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
} from '../contract/wire-types.js';

/** What an invocation tells the client factory (from global flags and env). */
export interface ClientSettings {
  /** Profile name (--profile / VIDPUB_PROFILE, default "default"). */
  profile: string;
  /** --base-url; falls back to VIDPUB_BASE_URL, the profile, then the built-in default. */
  baseUrl?: string;
  /** --api-key-file; falls back to VIDPUB_API_KEY, then the profile. */
  apiKeyFile?: string;
  /** A key given directly by code (login checks a key before storing it). */
  apiKey?: string;
  /** --ca-file; falls back to VIDPUB_CA_FILE, then the profile: CA certificates trusted besides the system's. */
  caFile?: string;
  /** --workspace / VIDPUB_WORKSPACE: checked against GET /me before any write. */
  workspace?: string;
  /** --debug / VIDPUB_DEBUG=1. */
  debug: boolean;
  /** --max-wait: the longest we wait out 429s (ms), in all (see maxWaitPer). */
  maxWaitMs: number;
  /**
   * What --max-wait bounds: the sum of every rate-limit wait of this client
   * ('command', the default: a command's whole run) or of each request alone
   * ('request': the MCP server, whose client lives as long as the session).
   */
  maxWaitPer?: 'command' | 'request';
  /**
   * --timeout of a command that is only requests (me, destinations, options,
   * login): a budget in ms for all of this client's requests, counted from the
   * first; when it is spent every request and wait stops with TimeoutError.
   */
  timeoutMs?: number;
  /** --wait-for-quota: sleep to the daily reset instead of failing on daily_post_limit. */
  waitForQuota: boolean;
  /** --quiet: no notices on stderr (errors still go there). */
  quiet: boolean;
  /** false with --no-cache or VIDPUB_NO_CACHE=1: nothing is read from or written to the cache (src/cache/). */
  cache?: boolean;
}

export interface CallOptions {
  /** Idempotency-Key for a write; generated once per call when absent, reused on retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /**
   * Only `signal` stops this call, not the client's own (Ctrl-C) signal: for a
   * short step that `signal` lets finish after Ctrl-C (an upload's complete).
   */
  signalOnly?: boolean;
  /**
   * Reads (destinations, a destination's options, a settled post): an answer
   * from the key's cache is good enough when it is at most CACHE_TTL_MS old.
   * Without it the service is asked, and its answer refreshes the cache.
   */
  cached?: boolean;
  /**
   * A look of a wait (a poll): the sender's retries of this request say nothing on stderr (the
   * --debug log still has them); the wait says once that the service stopped answering, and
   * once that it answers again (poll.ts, onTrouble).
   */
  quietRetries?: boolean;
}

/** How long an answer about what rarely changes (destinations, options) is reused: 10 minutes. */
export const CACHE_TTL_MS = 10 * 60_000;

/**
 * How long a settled post (every destination published, failed or cancelled) is reused: it never
 * changes, so the identical runs that report it (and status, retry, a rerun under its key) read it
 * once between them. Short, so that the file stays small and a post deleted in the web app is soon
 * read as gone.
 */
export const SETTLED_POST_TTL_MS = CACHE_TTL_MS;

/**
 * How long the key's workspace is reused: 7 days. A key belongs to one
 * workspace for good; only its name may change, and a --workspace check reads
 * it again before refusing. A daily cron line thus sends no GET /me for it.
 */
export const WORKSPACE_TTL_MS = 7 * 24 * 60 * 60_000;

/** Names of the client's cache entries. */
export const CACHE_ENTRIES = {
  destinations: 'destinations',
  workspace: 'workspace',
  /** GET /me's limits.api_posts_per_day as last read. */
  daily: 'daily',
  options: (destinationId: string) => `options:${destinationId}`,
  /** A settled post (SETTLED_POST_TTL_MS), as GET /posts/{id} last answered. */
  post: (postId: string) => `post:${postId}`,
  isPost: (name: string) => name.startsWith('post:'),
  /** Destinations and every destination's options. */
  isDestinationData: (name: string) => name === 'destinations' || name.startsWith('options:'),
} as const;

/**
 * What the client remembers between runs for its base URL and key
 * (src/cache/key-cache.ts): absent with --no-cache / VIDPUB_NO_CACHE=1 or
 * without a cache directory. Never throws.
 */
export interface ClientMemory {
  /** The value stored under `name`, if stored at most `maxAgeMs` ago, with when (`reread`: looked for on disk again when not held). */
  get<T>(name: string, maxAgeMs: number, o?: { reread?: boolean }): Promise<{ value: T; at: number } | undefined>;
  /** Stores a value; `drop`: entries dropped in the same write, by name and age. */
  set(name: string, value: unknown, drop?: (name: string, ageMs: number) => boolean): Promise<void>;
  /** Drops the entries whose name matches (all without a test). */
  forget(match?: (name: string) => boolean): Promise<void>;
}

/** Response metadata a caller may want (pacing, replay detection). */
export interface ResponseMeta {
  status: number;
  replayed: boolean;
  /** The counter of the request's kind (a GET's reads, a POST's writes), as this response left it. */
  rateLimit?: { limit: number; remaining: number; resetSec: number; kind: RequestKind };
  /** Retry-After of the response, in seconds, when it carried one. */
  retryAfterSec?: number;
  /** The answer came from the cache, read from the service at this time (epoch ms), not from a response now. */
  cachedAt?: number;
  /** The response's Server header, when it carried one (the emulator names itself there). */
  server?: string;
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const META = new WeakMap<object, ResponseMeta>();

/** Attaches the response's metadata to a parsed result (objects and arrays only). */
export function attachMeta<T>(result: T, meta: ResponseMeta | undefined): T {
  if (meta && typeof result === 'object' && result !== null) META.set(result, meta);
  return result;
}

/**
 * The metadata of the response a result came from (replay flag, rate-limit
 * headers): each result carries its own, so two calls in flight never read
 * each other's (stripe-node's lastResponse, without a shared mutable field).
 */
export function responseMeta(result: unknown): ResponseMeta | undefined {
  return typeof result === 'object' && result !== null ? META.get(result) : undefined;
}

export interface ApiClient {
  readonly baseUrl: string;
  /** A short hash of the API key (never the key), naming it in the local journal. */
  readonly keyId?: string;
  /** What this key's client remembers between runs (absent: nothing is). */
  readonly memory?: ClientMemory;
  /** Proxies and trusted CAs the client goes through: the upload PUT goes the same way. */
  readonly net?: NetSettings;
  /** The service's time now, from the Date header of its last answer (undefined before one): what judges how long it remembers a key. */
  serviceNow?(): number | undefined;
  /** settings.timeoutMs, the budget the first request started, is spent by now (false without one). */
  budgetSpent?(): boolean;
  getMe(o?: CallOptions): Promise<Me>;
  /**
   * Today's API post allowance (GET /me's limits.api_posts_per_day): from the key's cache while it
   * is recent and far from spent (or spent until a reset still ahead), else read from the service.
   */
  dailyAllowance(o?: CallOptions): Promise<Me['limits']['api_posts_per_day'] | undefined>;
  /**
   * The workspace this key belongs to: GET /me once per client (a key's
   * workspace does not change), and from the cache for WORKSPACE_TTL_MS.
   */
  workspace(o?: CallOptions): Promise<Me['workspace'] | undefined>;
  /**
   * --workspace / VIDPUB_WORKSPACE: resolves when the key belongs to the named
   * workspace (at once when none is named), else rejects with an AuthError.
   * Every write checks it; a flow calls it first when its reads decide what it
   * writes, so a wrong key is told as such, not as a missing account.
   */
  checkWorkspace(o?: CallOptions): Promise<void>;
  listDestinations(o?: CallOptions): Promise<Destination[]>;
  getDestinationOptions(destinationId: string, o?: CallOptions): Promise<DestinationOptions>;
  createUpload(body: CreateUploadRequest, o?: CallOptions): Promise<CreateUploadResponse>;
  completeUpload(mediaId: string, o?: CallOptions): Promise<Media>;
  createImport(body: CreateImportRequest, o?: CallOptions): Promise<Media>;
  getMedia(mediaId: string, o?: CallOptions): Promise<Media>;
  createPost(body: CreatePostRequest, o?: CallOptions): Promise<Post>;
  publishPost(postId: string, body: PublishPostRequest, o?: CallOptions): Promise<Post>;
  getPost(postId: string, o?: CallOptions): Promise<Post>;
  /** Releases sockets. */
  close(): Promise<void>;
}

/** Options of one request of the implementation. */
export interface RequestOptions extends CallOptions {
  /** JSON body (POST). */
  body?: unknown;
  /** What the request does, for a permission message ("create a post"). */
  action?: string;
  /** What the record of a success must carry to be the service's word (service-word.ts); any JSON when absent. */
  expect?: Expectation;
}

/** Where the client's key came from (never the key itself). */
export type KeySource = 'settings' | '--api-key-file' | 'VIDPUB_API_KEY' | 'profile';

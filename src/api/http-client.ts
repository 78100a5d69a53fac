/**
 * The API client: the ApiClient interface (client.ts) over a request sender
 * and the contract's resources, the way stripe-node puts a RequestSender
 * under its resource classes:
 *
 * - request-sender.ts sends one logical request: the key, idempotency,
 *   retries, pacing, 429s, redirects, the --timeout budget, errors;
 * - resources/ say what each endpoint is (me, destinations, media, posts) and
 *   keep what rarely changes (destinations, options, the key's workspace) in
 *   the key's cache (src/cache/), forgotten when the key is refused.
 *
 * This file wires them: base URL and key resolved from flags, env, then the
 * stored profile (credentials.ts); the --workspace check before every write;
 * the cache opened on first use. It needs no CLI Context: a clock, a signal,
 * two sinks and credential sources (ClientDeps).
 */
import { KeyCache } from '../cache/key-cache.js';
import { envFlag } from '../util/env.js';
import { guardOutput } from '../util/redact.js';
import { cacheDir } from '../util/xdg.js';
import type { ApiClient, CallOptions, ClientMemory, ClientSettings } from './client.js';
import { noKeyError, resolveCredentials, type CredentialSources, type KeyOrigin } from './credentials.js';
import { secretForms } from './send/http-errors.js';
import { prepareNet } from './net/net.js';
import type { NetSettings } from './net/net-types.js';
import { RequestSender, type ClientTuning, type SenderDeps } from './send/request-sender.js';
import { DestinationsResource } from './resources/destinations-resource.js';
import { MediaResource } from './resources/media-resource.js';
import { MeResource } from './resources/me-resource.js';
import { PostsResource } from './resources/posts-resource.js';
import type { CreateImportRequest, CreatePostRequest, CreateUploadRequest, PublishPostRequest } from '../contract/wire-types.js';

/** What the client runs on: no CLI Context, only these. */
export interface ClientDeps extends SenderDeps {
  /** Where the base URL and key are read from. */
  credentials: CredentialSources;
  /**
   * The streams the command prints on (stdout, stderr): once the key is
   * known, nothing written to them shows it, in any form (util/redact.ts).
   */
  shows?: readonly object[];
  /** A warning on stderr (a NO_PROXY entry that cannot be read); shown even with --quiet. */
  warn?: (line: string) => void;
}

/** Creates the client. Reads the profile only when flags and env leave the base URL or key open. */
export async function createApiClient(settings: ClientSettings, deps: ClientDeps, tuning: ClientTuning = {}): Promise<ApiClient> {
  const creds = await resolveCredentials({ signal: deps.signal, clock: deps.clock, ...deps.credentials }, settings);
  if (creds.apiKey === undefined) throw noKeyError(settings.profile, await deps.credentials.profilesWithKeys?.().catch(() => []));
  for (const stream of deps.shows ?? []) guardOutput(stream, secretForms(creds.apiKey));
  const keyOrigin: KeyOrigin = { source: creds.keySource, profile: settings.profile, file: settings.apiKeyFile, baseUrl: settings.baseUrl };
  const net = await prepareNet({ env: deps.credentials.env, cwd: deps.credentials.cwd, caFile: creds.caFile, caFileSource: creds.caFileSource, warn: deps.warn });
  return new HttpApiClient({ deps: { ...deps, net }, settings, baseUrl: creds.baseUrl, key: creds.apiKey, tuning, keyOrigin });
}

/** The key's cache, unless --no-cache, VIDPUB_NO_CACHE=1 or no cache directory. */
function cacheFor(settings: ClientSettings, deps: ClientDeps, baseUrl: string, keyId: string): KeyCache | undefined {
  const env = deps.credentials.env;
  if (settings.cache === false || envFlag(env, 'VIDPUB_NO_CACHE')) return undefined;
  const dir = cacheDir(env);
  return dir === undefined ? undefined : new KeyCache({ dir, baseUrl, keyId, now: () => deps.clock.now() });
}

interface ClientParts {
  deps: ClientDeps;
  settings: ClientSettings;
  baseUrl: string;
  key: string;
  tuning: ClientTuning;
  keyOrigin: KeyOrigin;
}

class HttpApiClient implements ApiClient {
  readonly baseUrl: string;
  readonly net?: NetSettings;
  readonly #sender: RequestSender;
  readonly #me: MeResource;
  readonly #destinations: DestinationsResource;
  readonly #media: MediaResource;
  readonly #posts: PostsResource;
  /** The key's cache, opened on first use (null: none, --no-cache); `me` never needs it. */
  #cache?: KeyCache | null;

  constructor(private readonly p: ClientParts) {
    this.baseUrl = p.baseUrl;
    this.net = p.deps.net;
    this.#sender = new RequestSender({
      ...p,
      beforeWrite: (o) => this.checkWorkspace(o),
      keyRefused: async () => this.memory?.forget(),
    });
    const memory = () => this.memory;
    this.#me = new MeResource(this.#sender, memory, p.settings.workspace);
    this.#destinations = new DestinationsResource(this.#sender, memory);
    this.#media = new MediaResource(this.#sender);
    this.#posts = new PostsResource(this.#sender, memory);
  }

  get keyId(): string {
    return this.#sender.keyId;
  }

  get memory(): ClientMemory | undefined {
    if (this.#cache === undefined) this.#cache = cacheFor(this.p.settings, this.p.deps, this.baseUrl, this.keyId) ?? null;
    return this.#cache ?? undefined;
  }

  serviceNow() {
    return this.#sender.serviceNow();
  }
  budgetSpent() {
    return this.#sender.budgetSpent();
  }
  getMe(o?: CallOptions) {
    return this.#me.get(o);
  }
  workspace(o?: CallOptions) {
    return this.#me.workspace(o);
  }
  dailyAllowance(o?: CallOptions) {
    return this.#me.daily(o);
  }
  checkWorkspace(o?: CallOptions) {
    return this.#me.checkWorkspace(o);
  }
  listDestinations(o?: CallOptions) {
    return this.#destinations.list(o);
  }
  getDestinationOptions(destinationId: string, o?: CallOptions) {
    return this.#destinations.options(destinationId, o);
  }
  createUpload(body: CreateUploadRequest, o?: CallOptions) {
    return this.#media.createUpload(body, o);
  }
  completeUpload(mediaId: string, o?: CallOptions) {
    return this.#media.completeUpload(mediaId, o);
  }
  createImport(body: CreateImportRequest, o?: CallOptions) {
    return this.#media.createImport(body, o);
  }
  getMedia(mediaId: string, o?: CallOptions) {
    return this.#media.get(mediaId, o);
  }
  createPost(body: CreatePostRequest, o?: CallOptions) {
    return this.#posts.create(body, o);
  }
  publishPost(postId: string, body: PublishPostRequest, o?: CallOptions) {
    return this.#posts.publish(postId, body, o);
  }
  getPost(postId: string, o?: CallOptions) {
    return this.#posts.get(postId, o);
  }

  async close(): Promise<void> {
    await this.#cache?.close();
    await this.#sender.close();
  }
}

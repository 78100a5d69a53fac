/**
 * GET /me: the key's account and its workspace. The workspace is kept in the
 * key's cache for WORKSPACE_TTL_MS; the --workspace check every write makes
 * reads it from there, and afresh before refusing.
 */
import { AuthError, sanitize } from '../../errors.js';
import { CACHE_ENTRIES, WORKSPACE_TTL_MS, type RequestOptions } from '../client.js';
import type { Me } from '../../contract/wire-types.js';
import { remember, type MemoryOf, type Requester } from './resource-base.js';

type Workspace = Me['workspace'];
type Daily = Me['limits']['api_posts_per_day'];

/**
 * A cached allowance is trusted only with more than DAILY_LOW posts left (another run may spend
 * some meanwhile), and for a day at most. It only shrinks until its reset, and a post refused for
 * it forgets it (CACHE_ENTRIES.daily): at worst the service refuses after the upload, as without it.
 */
const DAILY_TTL_MS = 24 * 60 * 60_000;
const DAILY_LOW = 5;

export class MeResource {
  #checked?: Promise<void>;
  #workspace?: Promise<Workspace | undefined>;
  /** The workspace in hand came from the cache (the --workspace check reads it afresh before refusing). */
  #cached = false;
  /** This run's GET /me, once read. */
  #me?: Promise<Me | undefined>;

  constructor(
    private readonly api: Requester,
    private readonly memory: MemoryOf,
    /** --workspace / VIDPUB_WORKSPACE. */
    private readonly want: string | undefined,
  ) {}

  get(o: RequestOptions = {}): Promise<Me> {
    return this.api.request<Me>('GET', '/me', o);
  }

  workspace(o: RequestOptions = {}): Promise<Workspace | undefined> {
    this.#workspace ??= (async () => {
      const hit = await this.memory()?.get<Workspace>(CACHE_ENTRIES.workspace, WORKSPACE_TTL_MS);
      if (hit?.value && typeof hit.value === 'object') {
        this.#cached = true;
        return hit.value;
      }
      return this.#read(o);
    })();
    // A failed read (network, interrupt) is tried again by the next caller.
    this.#workspace.catch(() => (this.#workspace = undefined));
    return this.#workspace;
  }

  /** The workspace from GET /me, kept for the next runs' --workspace check and journal (`vidpub me` alone writes no cache). */
  async #read(o: RequestOptions): Promise<Workspace | undefined> {
    return (await this.#readMe(o))?.workspace;
  }

  /** GET /me, its workspace and daily allowance kept in the key's cache. */
  async #readMe(o: RequestOptions): Promise<Me | undefined> {
    this.#cached = false;
    const read = this.get(o);
    this.#me = read;
    read.catch(() => (this.#me = undefined));
    const me = await read;
    if (me?.workspace) await remember(this.memory, CACHE_ENTRIES.workspace, me.workspace);
    const daily = me?.limits?.api_posts_per_day;
    if (daily && typeof daily === 'object') await remember(this.memory, CACHE_ENTRIES.daily, daily);
    return me;
  }

  /**
   * Today's API post allowance: the key's cache while recent with more than DAILY_LOW left, else GET /me (the
   * workspace kept too). `cached`: only what costs no read of its own, undefined else: GET /me is read for it only
   * when the workspace is not in the key's cache either (the run reads GET /me for it anyway).
   */
  async daily(o: RequestOptions = {}): Promise<Daily | undefined> {
    const hit = await this.memory()?.get<Daily>(CACHE_ENTRIES.daily, DAILY_TTL_MS);
    if (typeof hit?.value?.remaining === 'number' && hit.value.remaining > DAILY_LOW) return hit.value;
    if (this.#me) return (await this.#me)?.limits?.api_posts_per_day;
    if (o.cached && (await this.memory()?.get(CACHE_ENTRIES.workspace, WORKSPACE_TTL_MS))?.value) return undefined;
    const me = this.#readMe(o);
    // One read for this and the workspace: a later workspace() takes it from here.
    this.#workspace ??= me.then((m) => m?.workspace);
    this.#workspace.catch(() => (this.#workspace = undefined));
    return (await me)?.limits?.api_posts_per_day;
  }

  /** --workspace: the key must belong to the named workspace before anything is written. */
  checkWorkspace({ signal }: { signal?: AbortSignal } = {}): Promise<void> {
    const want = this.want;
    if (!want) return Promise.resolve();
    this.#checked ??= (async () => {
      let actual = (await this.workspace({ signal }))?.name;
      if (actual !== want && this.#cached) {
        // The cache may predate a rename: refuse only on what the service says now.
        this.#workspace = this.#read({ signal });
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
    this.#checked.catch(() => (this.#checked = undefined));
    return this.#checked;
  }
}

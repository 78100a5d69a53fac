/**
 * GET /me: the key's account and its workspace. The workspace is kept in the
 * key's cache for WORKSPACE_TTL_MS; the --workspace check every write makes
 * reads it from there, and afresh before refusing.
 */
import { AuthError, sanitize } from '../../errors.js';
import { CACHE_ENTRIES, WORKSPACE_TTL_MS, type RequestOptions } from '../client.js';
import type { Me } from '../wire-types.js';
import { remember, type MemoryOf, type Requester } from './resource-base.js';

type Workspace = Me['workspace'];

export class MeResource {
  #checked?: Promise<void>;
  #workspace?: Promise<Workspace | undefined>;
  /** The workspace in hand came from the cache (the --workspace check reads it afresh before refusing). */
  #cached = false;

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
    this.#cached = false;
    const workspace = (await this.get(o))?.workspace;
    if (workspace) await remember(this.memory, CACHE_ENTRIES.workspace, workspace);
    return workspace;
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

/**
 * Who writes the journal's records and whose they are: the command's profile,
 * service and key (a short hash), and the key's workspace. Each is asked of
 * the client once per command, and GET /me only when a post is recorded or a
 * key must be matched.
 */
import type { JournalDeps, PostRecord, RecordContext } from './journal-types.js';
import type { Workspace } from './journal-records.js';

export class JournalOwner {
  private context: Promise<RecordContext> | undefined;
  private ws: Promise<Workspace> | undefined;

  constructor(private readonly deps: Pick<JournalDeps, 'profile' | 'client' | 'signal'>) {}

  /** The profile, the service and the key's hash; rejects when there is no client. */
  record(): Promise<RecordContext> {
    return (this.context ??= (async () => {
      const client = await this.deps.client();
      return { profile: this.deps.profile, base_url: client.baseUrl, ...(client.keyId ? { key: client.keyId } : {}) };
    })());
  }

  /** The key's workspace (nothing known when GET /me fails). */
  workspace(): Promise<Workspace> {
    return (this.ws ??= (async () => {
      try {
        const ws = await (await this.deps.client()).workspace({ signal: this.deps.signal });
        return { id: ws?.id, name: ws?.name };
      } catch {
        return {};
      }
    })());
  }

  /** Whether a record of this service was made with this key or in its workspace. */
  async owns(r: Pick<PostRecord, 'base_url' | 'key' | 'workspace_id'>, ctx: RecordContext): Promise<boolean> {
    if (r.base_url !== ctx.base_url) return false;
    if (r.key !== undefined && r.key === ctx.key) return true;
    return r.workspace_id ? (await this.workspace()).id === r.workspace_id : false;
  }
}

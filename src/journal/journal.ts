/**
 * The journal behind Session.journal: records what vidpub created and what
 * it saw later, and reads it back folded per post (history, status without
 * an id, the rerun guard of --idempotency-key, retry). Writing never fails a
 * command: the first failure warns once and the journal stays quiet after.
 */
import type { ApiClient } from '../api/client.js';
import type { Post } from '../api/wire-types.js';
import type { Clock } from '../core/clock.js';
import { sanitize, VidpubError } from '../errors.js';
import { nodeCrypto } from '../util/lazy-crypto.js';
import { decode, JournalStore, type ReadLine } from './jsonl-store.js';
import type {
  HistoryQuery,
  Journal,
  JournalPost,
  JournalRecord,
  MediaEvent,
  PostEvent,
  PostRecord,
  RecordContext,
  StatusRecord,
} from './journal-types.js';

export const CAPTION_CHARS = 200;

export interface JournalDeps {
  dir: string;
  profile: string;
  /** The API client of the command (base URL, key hash, GET /me for the workspace). */
  client(): Promise<ApiClient>;
  clock: Pick<Clock, 'now'>;
  signal?: AbortSignal;
  /** A warning line on stderr (never with data). */
  warn(line: string): void;
  /** Rotation threshold (tests). */
  segmentBytes?: number;
}

const TERMINAL = new Set(['published', 'failed', 'cancelled']);

/** draft, scheduled, publishing, completed, or failed when a destination failed or was cancelled. */
export function stateOf(status: string, destinations: { status?: string }[]): string {
  const all = destinations.length > 0 && destinations.every((d) => d.status !== undefined && TERMINAL.has(d.status));
  const bad = destinations.some((d) => d.status === 'failed' || d.status === 'cancelled');
  if ((status === 'completed' || all) && bad) return 'failed';
  if (all) return 'completed';
  return status;
}

/** The word for a post as a look saw it: published, failed, or its status (draft, scheduled, publishing). */
function seenOutcome(state: string): string {
  return state === 'completed' ? 'published' : state;
}

function seenDestinations(post: Post): StatusRecord['destinations'] {
  return (Array.isArray(post.destinations) ? post.destinations : []).map((d) => {
    const s: StatusRecord['destinations'][number] = { id: String(d.destination_id), status: String(d.status ?? 'unknown') };
    if (d.url) s.url = String(d.url);
    if (d.failure) s.failure = sanitize(String(d.failure.message ?? d.failure.code ?? '')).slice(0, 200);
    return s;
  });
}

/** The "idem" of a journal line, read from its text without parsing the rest (undefined if none). */
function idemOfLine(text: string): string | undefined {
  const m = /"idem":("(?:[^"\\]|\\.)*")/.exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as string;
  } catch {
    return undefined;
  }
}

export function createJournal(deps: JournalDeps): Journal {
  const store = new JournalStore(deps.dir, deps.segmentBytes);
  let broken = false;
  let damageWarned = false;
  let context: Promise<RecordContext> | undefined;
  let workspace: Promise<{ id?: string; name?: string }> | undefined;

  const iso = () => new Date(deps.clock.now()).toISOString();

  const clientContext = (): Promise<RecordContext> =>
    (context ??= (async () => {
      const client = await deps.client();
      return { profile: deps.profile, base_url: client.baseUrl, ...(client.keyId ? { key: client.keyId } : {}) };
    })());

  /** The key's workspace (one GET /me per command, only when a post is recorded or a key must be matched). */
  const workspaceOf = (): Promise<{ id?: string; name?: string }> =>
    (workspace ??= (async () => {
      try {
        const ws = await (await deps.client()).workspace({ signal: deps.signal });
        return { id: ws?.id, name: ws?.name };
      } catch {
        return {};
      }
    })());

  const write = (record: JournalRecord): void => {
    if (broken) return;
    try {
      store.append(record);
    } catch (err) {
      broken = true;
      const code = (err as NodeJS.ErrnoException).code;
      deps.warn(
        `Could not write to the journal in ${deps.dir}${code ? ` (${code})` : ''}: this run is not recorded there. ` +
          'The command itself is not affected (--no-journal or VIDPUB_NO_JOURNAL=1 turns the journal off).',
      );
    }
  };

  /**
   * Records lines yields, parsed; a damaged line warns once and is skipped.
   * `keep`, when given, picks lines by their text before any is parsed.
   */
  function* records(needle?: string, keep?: (text: string) => boolean, strict = false): Generator<JournalRecord> {
    let lines: Generator<ReadLine>;
    try {
      lines = store.linesNewestFirst(needle);
    } catch {
      return;
    }
    try {
      for (const l of lines) {
        if (keep && !keep(l.text)) continue;
        const { record, damaged } = decode(l.text);
        if (damaged && !damageWarned) {
          damageWarned = true;
          deps.warn(`Skipped a damaged line in the journal: ${l.file} line ${l.line} (the file is left as it is).`);
        }
        if (record) yield record;
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const what = `Could not read the journal in ${deps.dir}${code ? ` (${code})` : ''}`;
      // A command that only reads it (history, status without an id) fails: an empty answer would be a false one.
      if (strict) throw new VidpubError(`${what}: ${sanitize(err instanceof Error ? err.message : String(err))}`, { hint: `Check that the files there can be read by you (ls -l ${deps.dir}).`, cause: err });
      deps.warn(`${what}.`);
    }
  }

  /** Folds a post record with the status records seen after it (newest first). */
  function fold(p: PostRecord, statuses: StatusRecord[], retriedBy?: string[]): JournalPost {
    const last = statuses[0];
    const seen = new Map((last?.destinations ?? []).map((d) => [d.id, d]));
    const destinations = p.destinations.map((d) => {
      const s = seen.get(d.id);
      const out: JournalPost['destinations'][number] = { ...d };
      if (s) {
        out.status = s.status;
        if (s.url) out.url = s.url;
        if (s.failure) out.failure = s.failure;
      }
      return out;
    });
    const status = last?.status ?? p.status;
    const state = stateOf(status, destinations);
    // What is known now: the newest record's word. A look that ended no command (status, history --refresh)
    // says what it saw; how each command ended stays in `outcomes`.
    const outcome = last === undefined ? p.outcome : (last.outcome ?? seenOutcome(state));
    const outcomes = [{ at: p.at, outcome: p.outcome }, ...statuses.filter((s) => s.outcome).reverse().map((s) => ({ at: s.at, outcome: s.outcome! }))];
    const post: JournalPost = {
      post_id: p.post_id,
      at: p.at,
      profile: p.profile,
      base_url: p.base_url,
      media_id: p.media_id,
      caption: p.caption,
      publish_at: last?.publish_at !== undefined ? last.publish_at : p.publish_at,
      draft: p.draft,
      status,
      state,
      outcome,
      outcomes,
      seen_at: last?.at ?? p.at,
      destinations,
    };
    for (const k of ['key', 'workspace_id', 'workspace', 'file', 'link', 'size', 'idem', 'retry_of'] as const) {
      if (p[k] !== undefined) (post as unknown as Record<string, unknown>)[k] = p[k];
    }
    if (retriedBy && retriedBy.length > 0) post.retried_by = [...retriedBy].reverse();
    return post;
  }

  /** One post by id, folded (undefined when the journal has no post record of it). */
  const foldOne = (postId: string): JournalPost | undefined => {
    const statuses: StatusRecord[] = [];
    const retriedBy: string[] = [];
    for (const r of records(`"${postId}"`)) {
      if (r.kind === 'status' && r.post_id === postId) statuses.push(r);
      else if (r.kind === 'post' && r.retry_of === postId) retriedBy.push(r.post_id);
      else if (r.kind === 'post' && r.post_id === postId) return fold(r, statuses, retriedBy);
    }
    return undefined;
  };

  /**
   * The post records made at this command's service with this key or in its workspace whose
   * --idempotency-key `wanted` accepts, newest first. `idemOf` reads the key from a line's text,
   * so that the lines of other keys are not parsed.
   */
  async function* ownPostsByKey(needle: string, wanted: (idem: string) => boolean, idemOf?: (text: string) => string | undefined): AsyncGenerator<PostRecord> {
    let ctx: RecordContext;
    try {
      ctx = await clientContext();
    } catch {
      return;
    }
    const keep = idemOf ? (text: string) => { const idem = idemOf(text); return idem !== undefined && wanted(idem); } : undefined;
    for (const r of records(needle, keep)) {
      if (r.kind !== 'post' || r.idem === undefined || !wanted(r.idem) || r.base_url !== ctx.base_url) continue;
      let same = r.key !== undefined && r.key === ctx.key;
      if (!same && r.workspace_id) same = (await workspaceOf()).id === r.workspace_id;
      if (same) yield r;
    }
  }

  const matchesDestination = (p: JournalPost, want: string): boolean => {
    const w = want.trim().replace(/^@/, '').toLowerCase();
    return p.destinations.some((d) => {
      if (d.id.toLowerCase() === w) return true;
      const name = (d.name ?? '').toLowerCase();
      // "@vidpub.demo (tiktok)": the handle or the platform.
      const m = /^@?(\S+)(?: \(([^)]+)\))?$/.exec(name);
      return name === w || m?.[1] === w || m?.[2] === w;
    });
  };

  return {
    dir: deps.dir,

    async media(e: MediaEvent) {
      try {
        const ctx = await clientContext();
        const size = e.size ?? (typeof e.media.size_bytes === 'number' ? e.media.size_bytes : undefined);
        write({
          v: 1,
          kind: 'media',
          at: iso(),
          ...ctx,
          media_id: e.media.id,
          source: e.link || e.media.source === 'import' ? 'import' : 'upload',
          ...(e.file ? { file: e.file } : {}),
          ...(e.link ? { link: e.link } : {}),
          ...(size !== undefined ? { size } : {}),
          status: String(e.media.status),
          ...(e.idem ? { idem: e.idem } : {}),
          outcome: e.outcome,
        });
      } catch {
        // no client, no record: the command reports its own error
      }
    },

    async post(e: PostEvent) {
      try {
        const ctx = await clientContext();
        const ws = await workspaceOf();
        const p = e.post;
        const dests = Array.isArray(p.destinations) ? p.destinations : [];
        const record: PostRecord = {
          v: 1,
          kind: 'post',
          at: iso(),
          ...ctx,
          ...(ws.id ? { workspace_id: ws.id } : {}),
          ...(ws.name ? { workspace: ws.name } : {}),
          post_id: p.id,
          media_id: String(p.media_id ?? ''),
          ...(e.file ? { file: e.file } : {}),
          ...(e.link ? { link: e.link } : {}),
          ...(e.size !== undefined ? { size: e.size } : {}),
          caption: String(p.caption ?? '').slice(0, CAPTION_CHARS),
          destinations: dests.map((d) => ({
            id: String(d.destination_id),
            ...(e.names?.[d.destination_id] ? { name: e.names[d.destination_id] } : {}),
            options: d.options ?? {},
            ...(d.status ? { status: String(d.status) } : {}),
          })),
          publish_at: p.publish_at ?? null,
          draft: p.status === 'draft',
          ...(e.idem ? { idem: e.idem } : {}),
          outcome: e.outcome,
          status: String(p.status),
          ...(e.retryOf ? { retry_of: e.retryOf } : {}),
        };
        write(record);
      } catch {
        // as above
      }
    },

    async status(post: Post, outcome?: string) {
      write({
        v: 1,
        kind: 'status',
        at: iso(),
        profile: deps.profile,
        post_id: post.id,
        status: String(post.status),
        publish_at: post.publish_at ?? null,
        destinations: seenDestinations(post),
        ...(outcome ? { outcome } : {}),
      });
    },

    async findByKey(key: string) {
      for await (const r of ownPostsByKey(`"idem":${JSON.stringify(key)}`, (idem) => idem === key)) return foldOne(r.post_id);
      return undefined;
    },

    async postIdsByKeys(keys: Iterable<string>) {
      const want = new Set(keys);
      const found = new Map<string, string>();
      if (want.size === 0) return found;
      // One pass over the journal for all of them; a line is parsed only when its key is one of them.
      for await (const r of ownPostsByKey('"idem":', (idem) => want.has(idem) && !found.has(idem), idemOfLine)) {
        found.set(r.idem!, r.post_id);
        if (found.size === want.size) break;
      }
      return found;
    },

    async lastPost() {
      for (const r of records('"kind":"post"', undefined, true)) {
        if (r.kind === 'post' && r.profile === deps.profile) return foldOne(r.post_id);
      }
      return undefined;
    },

    async find(postId: string) {
      return foldOne(postId);
    },

    async retriesOf(postId: string) {
      const ids: string[] = [];
      for (const r of records(`"retry_of":${JSON.stringify(postId)}`)) {
        if (r.kind === 'post' && r.retry_of === postId && !ids.includes(r.post_id)) ids.push(r.post_id);
      }
      return ids.map(foldOne).filter((p): p is JournalPost => p !== undefined);
    },

    async history(q: HistoryQuery) {
      const out: JournalPost[] = [];
      const statuses = new Map<string, StatusRecord[]>();
      const retriedBy = new Map<string, string[]>();
      const seen = new Set<string>();
      for (const r of records(undefined, undefined, true)) {
        if (r.kind === 'status') {
          const list = statuses.get(r.post_id);
          if (list) list.push(r);
          else statuses.set(r.post_id, [r]);
          continue;
        }
        if (r.kind !== 'post') continue;
        if (r.retry_of) {
          const list = retriedBy.get(r.retry_of);
          if (list) list.push(r.post_id);
          else retriedBy.set(r.retry_of, [r.post_id]);
        }
        if (q.profile !== undefined && r.profile !== q.profile) continue;
        if (q.sinceMs !== undefined && !(Date.parse(r.at) >= q.sinceMs)) continue;
        if (q.workspace !== undefined && r.workspace !== q.workspace && r.workspace_id !== q.workspace) continue;
        // A post recorded twice (a rerun reporting it): the newest record stands.
        if (seen.has(r.post_id)) continue;
        seen.add(r.post_id);
        const p = fold(r, statuses.get(r.post_id) ?? [], retriedBy.get(r.post_id));
        statuses.delete(r.post_id);
        if (q.state !== undefined && p.state !== q.state) continue;
        if (q.destination !== undefined && !matchesDestination(p, q.destination)) continue;
        out.push(p);
        if (out.length >= q.limit) break;
      }
      return out;
    },

    async runs(what: unknown, workspace?: string) {
      const ctx = await clientContext();
      const hash = (v: unknown) => nodeCrypto().createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 32);
      // The service replays a key per workspace: in a known workspace, any of its keys (one rotated since) runs the same
      // command. A run whose workspace was not known is noted by its key, and found by it too.
      const byKey = hash([ctx.profile, ctx.base_url, ctx.key ?? null, what]);
      const ids = workspace ? [hash(['workspace', ctx.base_url, workspace, what]), byKey] : [byKey];
      const { RunStore } = await import('./runs.js');
      const store = new RunStore(deps.dir, () => deps.clock.now());
      return {
        cutOff: () => store.cutOff(ids),
        open: (run) => store.open(ids[0]!, run),
        end: (key, known) => {
          for (const id of ids) store.end(id, key, known);
        },
      };
    },
  };
}

/**
 * In-memory state of the emulated service, built from a fixture. Everything
 * here is plain data; the rules live in media.ts, posts.ts, limits.ts.
 */
import { randomBytes } from 'node:crypto';
import type {
  DailyScope,
  Issue,
  MediaPhase,
  MediaStatus,
  Notice,
  OptionValue,
  PlanName,
  PostDestinationStatus,
  PostStatus,
} from '../contract/wire-types.js';
import type { Fixture, FixtureAccount, FixtureDestination, FixtureKey, FixturePost } from './fixture.js';

export interface PlanLimits {
  api: boolean;
  readPerMinute: number;
  writePerMinute: number;
  postsPerDay: number;
  dailyScope: DailyScope;
  /** Connected accounts per platform per workspace; null = unlimited. */
  accountsPerPlatform: number | null;
}

/** Contract §8 "Plan allowances". */
export const PLAN_LIMITS: Record<PlanName, PlanLimits> = {
  free: { api: false, readPerMinute: 0, writePerMinute: 0, postsPerDay: 0, dailyScope: 'account', accountsPerPlatform: 2 },
  standard: { api: true, readPerMinute: 60, writePerMinute: 20, postsPerDay: 30, dailyScope: 'account', accountsPerPlatform: 2 },
  studio: { api: true, readPerMinute: 120, writePerMinute: 30, postsPerDay: 100, dailyScope: 'workspace', accountsPerPlatform: null },
};

/** The allowances of an account: its plan's, with the fixture's own figures in their place. */
export function accountLimits(account: FixtureAccount): PlanLimits {
  const plan = PLAN_LIMITS[account.plan];
  const own = account.limits;
  if (!own || !plan.api) return plan;
  return {
    ...plan,
    readPerMinute: own.requests_per_minute?.read ?? plan.readPerMinute,
    writePerMinute: own.requests_per_minute?.write ?? plan.writePerMinute,
    postsPerDay: own.api_posts_per_day?.limit ?? plan.postsPerDay,
    dailyScope: own.api_posts_per_day?.scope ?? plan.dailyScope,
  };
}

export interface KeyState extends FixtureKey {
  id: string;
  workspaceId: string;
}

export type DestinationState = FixtureDestination;

export interface UploadLinkState {
  expiresAtSec: number;
  sig: string;
  /** open: not yet used; receiving: a PUT is streaming; used: all bytes arrived. */
  state: 'open' | 'receiving' | 'used';
}

export interface MediaState {
  id: string;
  workspaceId: string;
  status: MediaStatus;
  filename: string;
  content_type: string;
  size_bytes: number | null;
  source: 'upload' | 'import';
  phase: MediaPhase | null;
  percent: number;
  /** Upload: bytes counted so far by the PUT in progress (or the last complete one). */
  receivedBytes: number;
  bytesComplete: boolean;
  error: Notice | null;
  duration_sec: number | null;
  created_at: string;
  upload: UploadLinkState | null;
  /** The link of an import. */
  importUrl: string | null;
}

export interface PostDestState {
  destination_id: string;
  options: Record<string, OptionValue>;
  status: PostDestinationStatus;
  url: string | null;
  warning: Notice | null;
  failure: Notice | null;
}

export interface PostState {
  id: string;
  workspaceId: string;
  status: PostStatus;
  caption: string;
  media_id: string;
  publish_at: string | null;
  /** publish_at in ms, for the scheduler. */
  dueAtMs: number | null;
  issues: Issue[];
  destinations: PostDestState[];
  created_at: string;
  /** Whether the daily allowance counted it: the API (or MCP) started or scheduled it (the web app's publishing does not count). */
  counted: boolean;
}

export interface WorkspaceState {
  id: string;
  name: string;
  account: FixtureAccount;
  destinations: Map<string, DestinationState>;
  media: Map<string, MediaState>;
  posts: Map<string, PostState>;
}

/**
 * How many finished records of each kind (videos ready or failed, posts
 * completed) a workspace keeps: beyond it the oldest are dropped, so that an
 * emulator left running in someone's CI does not grow without bound. Records
 * of the fixture, unfinished ones and videos an unfinished post uses are never
 * dropped. Documented in docs/emulator.md and docs/api-notes.md.
 */
export const RETAINED_FINISHED_RECORDS = 1000;

/**
 * A Map of records that drops its oldest finished ones once it holds more than
 * `keep` of them. Pruning is one pass over the records; it runs once the map
 * has grown by a tenth of `keep` since the last time, or by a quarter of the
 * records that could not be dropped then (unfinished ones, pinned ones),
 * whichever is more: so it costs O(1) per insertion on average even when most
 * records stay unfinished (uploads whose file never comes), and the finished
 * records held stay within `keep` plus that margin.
 */
export class RetainedRecords<V> extends Map<string, V> {
  private readonly pinned = new Set<string>();
  private pruneAt: number;
  /** How many records were dropped so far. */
  dropped = 0;

  /** `finished()` is called once per pruning and returns the test for one record. */
  constructor(
    private readonly finished: () => (v: V) => boolean,
    private readonly keep: number = RETAINED_FINISHED_RECORDS,
  ) {
    super();
    this.pruneAt = keep + this.step(0);
  }

  /** Insertions until the next pruning, given how many records the last one had to keep regardless. */
  private step(held: number): number {
    return Math.max(10, Math.ceil(this.keep / 10), Math.ceil(held / 4));
  }

  /** A record never dropped (the fixture's). */
  pin(id: string): void {
    this.pinned.add(id);
  }

  override set(id: string, v: V): this {
    const added = !this.has(id);
    super.set(id, v);
    if (added && this.size >= this.pruneAt) this.prune();
    return this;
  }

  /** Drops the oldest finished records beyond `keep`; returns how many. */
  prune(): number {
    const isFinished = this.finished();
    const droppable: string[] = [];
    for (const [id, v] of this) if (!this.pinned.has(id) && isFinished(v)) droppable.push(id);
    const n = Math.max(0, droppable.length - this.keep);
    for (let i = 0; i < n; i++) this.delete(droppable[i]!);
    this.dropped += n;
    this.pruneAt = this.size + this.step(this.size - (droppable.length - n));
    return n;
  }
}

/** A workspace's videos: ready or failed ones beyond the limit go, unless an unfinished post uses them. */
function retainedMedia(ws: () => WorkspaceState, keep?: number): RetainedRecords<MediaState> {
  return new RetainedRecords<MediaState>(() => {
    const inUse = new Set<string>();
    for (const p of ws().posts.values()) if (p.status !== 'completed') inUse.add(p.media_id);
    return (m) => (m.status === 'ready' || m.status === 'failed') && !inUse.has(m.id);
  }, keep);
}

/** A workspace's posts: completed ones beyond the limit go. */
function retainedPosts(keep?: number): RetainedRecords<PostState> {
  return new RetainedRecords<PostState>(() => (p) => p.status === 'completed', keep);
}

export class State {
  readonly accounts = new Map<string, FixtureAccount>();
  readonly workspaces = new Map<string, WorkspaceState>();
  /** Full key value -> key. */
  readonly keys = new Map<string, KeyState>();

  /** `retain`: finished records kept per workspace and kind (default RETAINED_FINISHED_RECORDS). */
  constructor(fixture: Fixture, retain?: number) {
    for (const a of fixture.accounts) this.accounts.set(a.id, { ...a });
    fixture.workspaces.forEach((w) => {
      const account = this.accounts.get(w.account)!;
      const media = retainedMedia(() => ws, retain);
      const ws: WorkspaceState & { posts: RetainedRecords<PostState> } = {
        id: w.id,
        name: w.name,
        account,
        destinations: new Map(w.destinations.map((d) => [d.id, structuredClone(d)])),
        media,
        posts: retainedPosts(retain),
      };
      for (const m of w.media) {
        media.pin(m.id);
        ws.media.set(m.id, {
          id: m.id,
          workspaceId: w.id,
          status: m.status,
          filename: m.filename,
          content_type: m.content_type,
          size_bytes: m.size_bytes,
          source: 'upload',
          phase: null,
          percent: 100,
          receivedBytes: m.size_bytes,
          bytesComplete: true,
          error: m.status === 'failed' ? { code: 'processing_failed', message: m.error_message ?? 'The video could not be processed.' } : null,
          duration_sec: m.duration_sec,
          created_at: m.created_at,
          upload: null,
          importUrl: null,
        });
      }
      for (const p of w.posts ?? []) {
        ws.posts.pin(p.id);
        ws.posts.set(p.id, postOf(p, w.id));
      }
      this.workspaces.set(w.id, ws);
      w.keys.forEach((k, i) => {
        this.keys.set(k.key, { ...k, id: `key_${w.id}_${i + 1}`, workspaceId: w.id });
      });
    });
  }

  workspace(id: string): WorkspaceState {
    const ws = this.workspaces.get(id);
    if (!ws) throw new Error(`unknown workspace ${id}`);
    return ws;
  }

  /** Finds a media record anywhere (the upload URL carries no workspace). */
  findMedia(id: string): MediaState | undefined {
    for (const ws of this.workspaces.values()) {
      const m = ws.media.get(id);
      if (m) return m;
    }
    return undefined;
  }

  findPost(id: string): PostState | undefined {
    for (const ws of this.workspaces.values()) {
      const p = ws.posts.get(id);
      if (p) return p;
    }
    return undefined;
  }

  planOf(workspaceId: string): PlanName {
    return this.workspace(workspaceId).account.plan;
  }
}

/** A fixture's post as the state holds it; its issues are computed when it is published. */
function postOf(p: FixturePost, workspaceId: string): PostState {
  const due = p.status === 'scheduled' && p.publish_at !== null ? Date.parse(p.publish_at) : null;
  return {
    ...structuredClone(p),
    workspaceId,
    dueAtMs: due,
    counted: p.status !== 'draft',
    issues: [],
    destinations: p.destinations.map((d) => ({ ...d, options: { ...d.options }, url: null, warning: null, failure: null })),
  };
}

/** Random bytes for identifiers, drawn from the system's generator 4 KiB at a time (one call per 512 ids, not one each). */
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idPoolAt = ID_POOL_BYTES;

/** Random identifier with a type prefix, e.g. med_3f9a1c0b7d2e4a61. */
export function newId(prefix: string): string {
  if (idPoolAt + 8 > idPool.length) {
    idPool = randomBytes(ID_POOL_BYTES);
    idPoolAt = 0;
  }
  idPoolAt += 8;
  return `${prefix}_${idPool.toString('hex', idPoolAt - 8, idPoolAt)}`;
}

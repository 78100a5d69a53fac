/**
 * What changed in an emulator since the last look, found without a hook in
 * the code that changes it: the records an event names (the id of a /v1
 * call, a path's segments, a record added to or removed from a workspace's
 * maps), the records that change by themselves (a video processing or
 * downloading, a post publishing: looked at after each background job), the
 * scheduled posts whose time came (a heap by due time), and the small
 * globals (clock offset, settings, counters, faults), compared with what was
 * written last. Each record found is serialized and compared with its last
 * written text: only what really changed is written.
 *
 * Ops (persist.ts applies them on load):
 *   ["r", kind, workspace, record]  a record put (kind "d" destination, "m" video, "p" post)
 *   ["x", kind, workspace, id]      a record removed
 *   ["k", offset_ms] ["s", settings] ["c", counters] ["f", faults]
 *   ["i", id, entry] ["I", id]      an idempotency entry put or removed
 *   ["v", media id]                 a video's bytes written to videos/
 */
import type { Core } from '../core.js';
import type { WorkspaceState } from '../state.js';

export type Kind = 'd' | 'm' | 'p';

/** The workspace map of each kind of record. */
export const MAPS: Record<Kind, 'destinations' | 'media' | 'posts'> = { d: 'destinations', m: 'media', p: 'posts' };

/** A record's key in the tracker: kind, workspace and id. */
const keyOf = (kind: Kind, ws: string, id: string): string => `${kind}\t${ws}\t${id}`;

/** A min-heap of [due ms, post key]. */
class DueHeap {
  private readonly items: [number, string][] = [];
  push(due: number, key: string): void {
    const a = this.items;
    a.push([due, key]);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (a[p]![0] <= a[i]![0]) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  /** Takes the entries due by `now`. */
  takeDue(now: number, into: Set<string>): void {
    const a = this.items;
    while (a.length > 0 && a[0]![0] <= now) {
      into.add(a[0]![1]);
      const last = a.pop()!;
      if (a.length === 0) break;
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]![0] < a[m]![0]) m = l;
        if (r < a.length && a[r]![0] < a[m]![0]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
  }
  clear(): void {
    this.items.length = 0;
  }
}

export class Changes {
  /** Records named since the last look (key -> true: look; false: removed). */
  private readonly named = new Map<string, boolean>();
  /** Ids named without their kind or workspace (a path's segments). */
  private readonly loose = new Set<string>();
  /** Records that change by themselves (background jobs). */
  private readonly active = new Set<string>();
  private readonly due = new DueHeap();
  /** The text last written of each record looked at. */
  private readonly written = new Map<string, string>();
  private readonly globals = new Map<string, string>();
  /** Idempotency entries named: "workspace\nkey". */
  private readonly keys = new Set<string>();
  /** A background job ran: the active records are looked at. */
  jobRan = false;

  constructor(private readonly core: Core) {}

  /** Watches a state's workspaces: records added and removed are named; scheduled posts go on the heap. */
  watch(): void {
    for (const ws of this.core.state.workspaces.values()) {
      for (const kind of ['d', 'm', 'p'] as const) this.wrap(ws, kind);
      for (const p of ws.posts.values()) this.follow('p', keyOf('p', ws.id, p.id), p);
      for (const m of ws.media.values()) this.follow('m', keyOf('m', ws.id, m.id), m);
    }
  }

  /** Forgets what was written (a reset: everything is written anew). */
  forget(): void {
    this.named.clear();
    this.loose.clear();
    this.active.clear();
    this.due.clear();
    this.written.clear();
    this.globals.clear();
    this.keys.clear();
  }

  private wrap(ws: WorkspaceState, kind: Kind): void {
    const map = ws[MAPS[kind]] as Map<string, unknown>;
    const set = map.set;
    const del = map.delete;
    const named = this.named;
    map.set = function (this: Map<string, unknown>, id: string, v: unknown) {
      named.set(keyOf(kind, ws.id, id), true);
      return set.call(this, id, v);
    };
    map.delete = function (this: Map<string, unknown>, id: string) {
      const had = del.call(this, id);
      if (had) named.set(keyOf(kind, ws.id, id), false);
      return had;
    };
  }

  /** An id an event named (a post's or video's, a destination's), wherever it is. */
  name(id: string): void {
    this.loose.add(id);
  }

  /** An Idempotency-Key sent with `authorization`: its entry is looked at. */
  nameKey(authorization: string | undefined, key: string): void {
    const m = authorization === undefined ? null : /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    const ws = m ? this.core.state.keys.get(m[1]!)?.workspaceId : undefined;
    if (ws !== undefined) this.keys.add(`${ws}\n${key}`);
  }

  private record(key: string): { kind: Kind; ws: string; id: string; rec: unknown } | undefined {
    const [kind, ws, id] = key.split('\t') as [Kind, string, string];
    const rec = this.core.state.workspaces.get(ws)?.[MAPS[kind]].get(id);
    return rec === undefined ? undefined : { kind, ws, id, rec };
  }

  /** Keeps a record that changes by itself in view, and a scheduled post on the heap. */
  private follow(kind: Kind, key: string, rec: unknown): void {
    const r = rec as { status: string; source?: string; dueAtMs?: number | null };
    const busy = kind === 'p' ? r.status === 'publishing' : kind === 'm' && (r.status === 'processing' || (r.status === 'uploading' && r.source === 'import'));
    if (busy) this.active.add(key);
    else this.active.delete(key);
    if (kind === 'p' && r.status === 'scheduled' && typeof r.dueAtMs === 'number') this.due.push(r.dueAtMs, key);
  }

  private global(op: string, value: unknown, ops: string[]): void {
    const text = JSON.stringify(value);
    if (this.globals.get(op) === text) return;
    this.globals.set(op, text);
    ops.push(`["${op}",${text}]`);
  }

  /** What changed since the last call, each op as JSON text. */
  take(): string[] {
    const ops: string[] = [];
    const look = new Set<string>();
    for (const [key, present] of this.named) {
      if (present) look.add(key);
      else {
        this.written.delete(key);
        this.active.delete(key);
        ops.push(JSON.stringify(['x', ...key.split('\t')]));
      }
    }
    this.named.clear();
    if (this.loose.size > 0) {
      for (const id of this.loose) {
        for (const ws of this.core.state.workspaces.values()) {
          if (ws.posts.has(id)) look.add(keyOf('p', ws.id, id));
          if (ws.media.has(id)) look.add(keyOf('m', ws.id, id));
          if (ws.destinations.has(id)) look.add(keyOf('d', ws.id, id));
        }
      }
      this.loose.clear();
    }
    if (this.jobRan) {
      for (const key of this.active) look.add(key);
      this.jobRan = false;
    }
    this.due.takeDue(this.core.clock.now(), look);
    for (const key of look) {
      const r = this.record(key);
      if (!r) continue;
      const text = JSON.stringify(r.rec);
      if (r.kind !== 'd') this.follow(r.kind, key, r.rec);
      if (this.written.get(key) === text) continue;
      this.written.set(key, text);
      ops.push(`["r","${r.kind}",${JSON.stringify(r.ws)},${text}]`);
    }
    const { core } = this;
    this.global('k', Math.round(core.clock.offsetSec * 1000), ops);
    this.global('s', core.settings, ops);
    this.global('c', core.limits.exportCounts(), ops);
    if (core.faults.size > 0 || this.globals.get('f') !== EMPTY_FAULTS) this.global('f', core.faults.list(), ops);
    for (const id of this.keys) {
      const [ws, key] = [id.slice(0, id.indexOf('\n')), id.slice(id.indexOf('\n') + 1)];
      const e = core.idempotency.peek(ws, key);
      if (e?.response === null) continue; // still in flight (a delay fault): looked at again at the next flush
      this.keys.delete(id);
      ops.push(JSON.stringify(e === undefined ? ['I', id] : ['i', id, e]));
    }
    return ops;
  }
}

const EMPTY_FAULTS = JSON.stringify({ requests: [], media_fail: [], destination_fail: [] });

/**
 * An emulator that keeps its world in a state directory (state-dir.ts): the
 * world restored from the snapshot and the log, the background work that was
 * under way started again, then every change appended to the log before the
 * answer that follows it is written (a hook on the server's responses), after
 * each background job, and every quarter second; the log is folded into a new
 * snapshot at start, after a reset, and when it has grown past the snapshot.
 *
 * Writes are plain write(2)s, not flushed to the disk: a process killed at any
 * point (SIGKILL included) leaves them with the system, which writes them out;
 * only a power loss can take the last ones. The snapshot is written whole
 * (src/util/atomic-write.ts, flushed).
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pid } from 'node:process'; // names this process's temporary files
import { writeFileAtomic } from '../../util/atomic-write.js';
import type { Core } from '../core.js';
import type { IdempotencyEntries } from '../idempotency.js';
import type { EmulatorService, CallContext } from '../service.js';
import type { DestinationState, MediaState, PostState } from '../state.js';
import { Changes, MAPS, type Kind } from './changes.js';
import { resumeWork } from './resume.js';
import { LOG_FILE, SNAPSHOT_FILE, VIDEOS_DIR, type LogOp, type OpenedDir } from './state-dir.js';
import { applyWorld, worldOf, WorldError, type WorldDoc } from './world.js';

/** The log is folded into a new snapshot once it is larger than this and than the snapshot. */
const COMPACT_MIN_BYTES = 16 * 1024 * 1024;
const FLUSH_EVERY_MS = 250;
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Puts a snapshot, then the log's entries, into a core made from the snapshot's fixture; returns the videos kept, oldest first. */
export function restore(core: Core, doc: WorldDoc, entries: LogOp[][]): string[] {
  applyWorld(core, doc);
  if (typeof doc.secret === 'string' && /^[0-9a-f]{64}$/.test(doc.secret)) Buffer.from(doc.secret, 'hex').copy(core.secret);
  const videos = [...(doc.videos ?? [])];
  for (const entry of entries) for (const op of entry) applyOp(core, op, videos);
  return videos;
}

function applyOp(core: Core, op: LogOp, videos: string[]): void {
  const [kind, a, b, c] = op;
  switch (kind) {
    case 'r':
    case 'x': {
      const ws = core.state.workspaces.get(String(b));
      const map = ws?.[MAPS[a as Kind]] as Map<string, DestinationState | MediaState | PostState> | undefined;
      if (!map) throw new WorldError(`a change names workspace "${String(b)}", which is not in the fixture`);
      if (kind === 'x') map.delete(String(c));
      else map.set((c as { id: string }).id, c as PostState);
      return;
    }
    case 'k': {
      const ahead = (a as number) - Math.round(core.clock.offsetSec * 1000);
      if (ahead > 0) core.clock.advance(ahead / 1000);
      return;
    }
    case 's':
      Object.assign(core.settings, a);
      return;
    case 'c':
      core.limits.importCounts(a as WorldDoc['counters']);
      return;
    case 'f':
      core.faults.restore(a as WorldDoc['faults']);
      return;
    case 'i':
      core.idempotency.importEntries([[a, b]] as IdempotencyEntries);
      return;
    case 'I':
      core.idempotency.drop(String(a));
      return;
    case 'v':
      videos.push(String(a));
      return;
    default:
      throw new WorldError(`a change of an unknown kind "${String(kind)}"`);
  }
}

export class Persisted {
  private readonly changes: Changes;
  private fd: number;
  private seq: number;
  private logBytes = 0;
  private snapshotBytes = 0;
  private videos: string[];
  private readonly uploads = new Set<string>();
  private queued = false;
  private broken = false;
  private closed = false;

  constructor(
    private readonly core: Core,
    private readonly opened: OpenedDir,
    videos: string[],
  ) {
    this.seq = opened.seq;
    this.videos = videos;
    this.loadVideos();
    this.changes = new Changes(core);
    mkdirSync(join(opened.dir, VIDEOS_DIR), { recursive: true, mode: 0o700 });
    this.fd = openSync(join(opened.dir, LOG_FILE), 'a', 0o600);
    this.compact();
    this.changes.watch();
    this.changes.take(); // what the snapshot holds is written
    core.onReset(() => {
      this.changes.forget();
      this.changes.watch();
      this.videos = [];
      this.compact();
      this.changes.take();
    });
  }

  /** Follows the service's calls and the background jobs, and starts the work a stop cut short. */
  follow(service: EmulatorService): void {
    const { core, changes } = this;
    const direct = service.direct as unknown as Record<string, (ctx: CallContext, ...rest: unknown[]) => unknown>;
    for (const [name, op] of Object.entries(direct)) {
      direct[name] = (ctx: CallContext, ...rest: unknown[]) => {
        // What the call names is looked at once it has settled (an operation held by a delay fault changes it later).
        const named = () => {
          if (typeof rest[0] === 'string') changes.name(rest[0]);
          if (typeof ctx.idempotencyKey === 'string') changes.nameKey(ctx.authorization, ctx.idempotencyKey);
        };
        named();
        const result = op(ctx, ...rest);
        if (!(result instanceof Promise)) return result;
        return result.finally(named);
      };
    }
    const after = core.timers.after.bind(core.timers);
    core.timers.after = (ms, fn) =>
      after(ms, () => {
        fn();
        changes.jobRan = true;
        this.soon();
      });
    core.timers.every(FLUSH_EVERY_MS, () => this.flush());
    resumeWork(core);
    this.flush();
  }

  /** Writes what changed before each answer of `server` (and of the upload links' listener, which shares its handler). */
  hook(server: Server): void {
    const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    if (listeners.length !== 1) throw new Error('the emulator server has no single request handler to follow');
    const routing = listeners[0]!;
    server.removeAllListeners('request');
    const flushAll = () => this.flush();
    server.on('request', (req, res) => {
      const path = req.url ?? '';
      // The records a path names (a video's upload link, a post of the web app, a destination of the
      // controls) are looked at when the answer goes out: an upload changes its video until then.
      let flush = flushAll;
      if (!path.startsWith('/v1/')) {
        const q = path.indexOf('?');
        const segments = (q < 0 ? path : path.slice(0, q)).split('/').filter((s) => s !== '');
        const upload = segments[0] === '_uploads' && SAFE_ID.test(segments[1] ?? '') ? segments[1] : undefined;
        flush = () => {
          for (const s of segments) this.changes.name(s);
          if (upload !== undefined) this.uploads.add(upload);
          this.flush();
        };
      }
      const { writeHead, write, end } = res;
      res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
        flush();
        return writeHead.apply(this, args);
      } as typeof writeHead;
      res.write = function (this: typeof res, ...args: Parameters<typeof write>) {
        flush();
        return write.apply(this, args);
      } as typeof write;
      res.end = function (this: typeof res, ...args: Parameters<typeof end>) {
        flush();
        return end.apply(this, args);
      } as typeof end;
      routing.call(server, req, res);
    });
  }

  private soon(): void {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.flush();
    });
  }

  /** Appends what changed since the last flush (one line), folding the log into a snapshot when it has grown. */
  flush(): void {
    if (this.closed || this.broken) return;
    const ops = this.changes.take();
    for (const id of this.uploads) {
      const bytes = this.core.videos.get(id);
      if (bytes && !this.videos.includes(id)) {
        this.guard(() => writeWhole(join(this.opened.dir, VIDEOS_DIR, id), bytes));
        this.videos.push(id);
        ops.push(JSON.stringify(['v', id]));
      }
    }
    this.uploads.clear();
    if (ops.length === 0 || this.broken) return;
    const line = Buffer.from(`{"s":${++this.seq},"o":[${ops.join(',')}]}\n`, 'utf8');
    this.guard(() => {
      for (let at = 0; at < line.length; ) at += writeSync(this.fd, line, at);
    });
    this.logBytes += line.length;
    if (this.logBytes > Math.max(COMPACT_MIN_BYTES, this.snapshotBytes)) this.guard(() => this.compact());
  }

  /** A write that fails (a full disk): said once on stderr; the state is kept no longer, what was written stays whole. */
  private guard(write: () => void): void {
    if (this.broken) return;
    try {
      write();
    } catch (err) {
      this.broken = true;
      console.error(`[vidpub emulator] the state in ${this.opened.dir} is no longer kept: ${(err as Error).message}. What was written before stays; restart the emulator once the cause is fixed.`);
    }
  }

  /** A new snapshot of the whole world, then an empty log. */
  private compact(): void {
    const doc = worldOf(this.core);
    doc.log_seq = this.seq;
    doc.secret = this.core.secret.toString('hex');
    doc.videos = this.videos.filter((id) => this.core.videos.get(id) !== undefined);
    const text = JSON.stringify(doc);
    writeFileAtomic(join(this.opened.dir, SNAPSHOT_FILE), text);
    this.snapshotBytes = text.length;
    ftruncateSync(this.fd, 0);
    this.logBytes = 0;
    this.videos = doc.videos;
    const kept = new Set(this.videos);
    for (const name of readdirSync(join(this.opened.dir, VIDEOS_DIR))) {
      if (!kept.has(name)) unlinkSync(join(this.opened.dir, VIDEOS_DIR, name));
    }
  }

  /** The kept videos' bytes back into the web app's player, oldest first. */
  private loadVideos(): void {
    const seen = new Set<string>();
    for (const id of [...this.videos].reverse()) seen.add(id);
    this.videos = [...seen].reverse();
    for (const id of this.videos) {
      if (!SAFE_ID.test(id)) continue;
      try {
        this.core.videos.keep(id, readFileSync(join(this.opened.dir, VIDEOS_DIR, id)));
      } catch {
        // not there (dropped before the snapshot said so): the video plays no more
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.fd);
    this.opened.lock.release();
  }
}

/** A file written whole or not at all, without a flush to the disk (a video's bytes: another upload makes them again). */
function writeWhole(path: string, bytes: Buffer): void {
  const tmp = `${path}.${pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

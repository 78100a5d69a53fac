/**
 * Runs of `vidpub post` that may have posted without knowing it: what lets a
 * rerun after kill -9, SIGTERM, a lost power supply or an unknown outcome
 * (exit 9) continue the run it repeats instead of posting a second time.
 *
 * Before its first write, a post run without --idempotency-key leaves a file
 * runs/<what>.<key>.json in the state directory: `what` is a hash of what it
 * posts (the video, caption, destinations, options and time, at this service
 * in this workspace, or with this key when the workspace is not known), `key`
 * its base Idempotency-Key. The note lists inside (`also`) the other hashes
 * of the same command (the video by its device and inode, or as an earlier
 * vidpub named it: posts/post/cut-off.ts), so that a rerun finds it by any of them.
 * When the run finishes (its post known, or a
 * definite answer: refused, nothing sent), the file is removed once the
 * command has printed its outcome (settleRuns). It stays when
 * the run was cut off: killed, stopped by a signal (SIGTERM, SIGINT, SIGHUP
 * keep it exactly as SIGKILL does), or ended not knowing whether its write
 * was done (it is then marked ended).
 *
 * A later run of the same command within 24 hours (as long as the service
 * remembers a key, judged by the service's clock where the two disagree: see
 * src/posts/post/live-run.ts) takes a cut-off run's key: each of its writes is
 * then a replay of what the cut-off run did, or done now if it never was. A
 * run whose process still holds its socket (run-hold.ts: only a live process
 * can listen on it) is running, not cut off: a rerun waits for it.
 *
 * Two runs of one command started at the same moment: each claims the
 * command before anything else (claim()): it listens on its socket first,
 * then looks for another live one; one that sees another gives way. Of two,
 * at least the later to look sees the earlier, so at most one goes on.
 *
 * Files 0600 in a 0700 directory, each written whole (temporary file, fsync,
 * then rename; the probe and a finished run's marker without the fsync) by the
 * one run it belongs to, so no lock is needed. Reading
 * never throws: a store that cannot be read remembers nothing. Whether a note
 * can be written is asked before the run's first write (writable()), so a run
 * that could not be continued says so before it uploads.
 */
import { readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pid } from 'node:process'; // the run's owner: this OS process, not Context state
import { nodeCrypto } from '../util/lazy-builtins.js';
import { hold, holdPrefix, liveHolds, type Hold } from './run-hold.js';
import { writeWhole } from './write-whole.js';
import type { AgeJudge, LiveRun, OpenRun, RecordContext, RunEnd, RunMemory } from './journal-types.js';

/** How long a cut-off run can be continued: the service's memory of an Idempotency-Key. */
export const RUN_MEMORY_MS = 24 * 3600_000;
/** How long a note is kept when the service's clock cannot be read to judge it (the safe side: continued until then). */
export const RUN_KEPT_MS = 7 * RUN_MEMORY_MS;

interface RunFile extends OpenRun {
  v: 1;
  /** The other names of what it posts (hashes, as a note's name is made): a rerun that knows it by one of them finds it. */
  also?: string[];
  /** Who wrote it, for a person reading the file: the decision is the hold's alone. */
  pid: number;
  host: string;
}

const KEY = /^[A-Za-z0-9_-]{1,100}$/;
const STEP = /^[a-z0-9:]{1,20}$/;

/** The sockets this process holds, by note file path (one RunStore per memory; a moved note changes stores). */
const holds = new Map<string, Hold>();
/** Notes of runs that finished, removed once the command has said so (settleRuns). */
const finished = new Map<string, () => void>();

/**
 * Removes the notes of the runs that finished, once the command has printed
 * what they did (the CLI calls it last, through Journal.settle). Until then
 * a note stays, held: a run killed between its end and its output is
 * continued by the rerun, which reports its post instead of making another.
 */
export function settleRuns(): void {
  for (const remove of finished.values()) remove();
  finished.clear();
}

export class RunStore {
  readonly #dir: string;

  constructor(
    stateDir: string,
    private readonly now: () => number,
  ) {
    this.#dir = join(stateDir, 'runs');
  }

  /** Where the notes are (for messages). */
  get dir(): string {
    return this.#dir;
  }

  /**
   * The newest run of any of `whats` that was cut off within RUN_MEMORY_MS
   * and that no live process holds. A note older than that by this
   * machine's clock is judged by `judge` (the service's clock): kept while
   * the service may remember its key, or when it cannot tell (the safe side),
   * up to RUN_KEPT_MS. Notes of other commands go after RUN_KEPT_MS.
   */
  async cutOff(what: string | readonly string[], judge?: AgeJudge): Promise<OpenRun | undefined> {
    const whats = typeof what === 'string' ? [what] : what;
    const found: { what: string; run: OpenRun }[] = [];
    for (const name of this.#names()) {
      const run = this.#read(name);
      if (!run) continue;
      const localAge = this.now() - run.started;
      const written = name.slice(0, name.indexOf('.'));
      const mine = whats.includes(written) || run.also?.some((a) => whats.includes(a)) === true;
      if (!mine) {
        if (localAge > RUN_KEPT_MS) this.#remove(name);
        continue;
      }
      if (localAge > RUN_MEMORY_MS) {
        const age = judge ? await judge(run) : undefined;
        if ((age ?? localAge) > (age === undefined && judge ? RUN_KEPT_MS : RUN_MEMORY_MS)) {
          this.#remove(name);
          continue;
        }
      }
      found.push({ what: written, run });
    }
    // The command's own sockets (a dead one goes at once), and each note's, held under the name it was written with.
    const prefixes = [...new Set([...whats, ...found.map((f) => f.what)])].map((w) => `.${w}.`);
    const live = new Set((await liveHolds(this.#dir, prefixes)).map((h) => `${h.what}.${h.key ?? ''}`));
    let best: OpenRun | undefined;
    for (const { what: written, run } of found) {
      if (live.has(`${written}.${run.key}`) || (best && run.started <= best.started)) continue;
      best = run;
    }
    return best;
  }

  /**
   * Claims the command (any of `whats`; this run's note is `what`) for this
   * process's run under `key` before anything is sent: listens on its socket,
   * then looks for another live run of it (with `sameKey`, only those under
   * this key). None: the claim holds until end(). Else it is given up, and
   * the live runs are returned (with what their notes say).
   */
  async claim(whats: readonly string[], what: string, key: string, sameKey: boolean): Promise<LiveRun[]> {
    const path = join(this.#dir, `${what}.${key}.json`);
    holds.get(path)?.release();
    holds.delete(path);
    const mine = await hold(this.#dir, holdPrefix(what, key));
    const others = await this.running(whats, sameKey ? key : undefined, mine?.name);
    if (others.length > 0) {
      mine?.release();
      return others;
    }
    if (mine) holds.set(path, mine);
    return [];
  }

  /** The live runs of any of `whats` (under `key` only, when given), but this process's socket `except`. */
  async running(whats: readonly string[], key?: string, except?: string): Promise<LiveRun[]> {
    const prefixes = whats.map((w) => (key === undefined ? `.${w}.` : holdPrefix(w, key)));
    const live = await liveHolds(this.#dir, prefixes, except);
    return live.map((h) => {
      const note = h.key === undefined ? undefined : this.#read(`${h.what}.${h.key}.json`);
      return { ...(h.key !== undefined ? { key: h.key } : {}), ...(note ? { note } : {}) };
    });
  }

  /**
   * Notes that this process's run of `what` is about to write under
   * `run.key`, and holds the note while it runs (the claim's socket, or a new
   * one). False when the note could not be written (the run could not be
   * continued by a plain rerun).
   */
  async open(what: string, run: OpenRun, also: readonly string[] = []): Promise<boolean> {
    if (!KEY.test(run.key)) return false;
    const name = `${what}.${run.key}.json`;
    const path = join(this.#dir, name);
    // The socket first, then the note: a run that can see the note can see it is live.
    if (!holds.has(path)) {
      const h = await hold(this.#dir, holdPrefix(what, run.key));
      if (h) holds.set(path, h);
    }
    const file: RunFile = { v: 1, ...run, pid, host: hostname(), ...(also.length > 0 ? { also: [...also] } : {}) };
    try {
      writeWhole(this.#dir, name, JSON.stringify(file) + '\n');
    } catch {
      return false;
    }
    finished.delete(path);
    return true;
  }

  /** Stops holding the claim or note of `what` under `key` (a run that ends without a note, or gives way). */
  release(what: string, key: string): void {
    const path = join(this.#dir, `${what}.${key}.json`);
    holds.get(path)?.release();
    holds.delete(path);
  }

  /**
   * Whether a note can be written here now: a small file written and
   * renamed as a note is, then removed (not flushed to the disk: it is
   * removed at once, and the note's own write, flushed, comes before the
   * run's first write). The error code (EROFS, ENOSPC, EACCES, ENOTDIR...)
   * when it cannot.
   */
  writable(): string | undefined {
    const name = `.probe.${pid}.json`;
    try {
      writeWhole(this.#dir, name, '{"v":0}\n', { durable: false });
    } catch (err) {
      return (err as NodeJS.ErrnoException).code ?? 'EIO';
    }
    this.#remove(name);
    return undefined;
  }

  /**
   * The run under `key` ended, and stops holding its note. 'known': its post
   * is known, or nothing was sent that could have made one: the file goes.
   * 'unknown': it stays, marked ended, for a rerun to continue. 'cut-off'
   * (a signal): it stays as it is, as after kill -9.
   */
  end(what: string, key: string, how: RunEnd, postId?: string): void {
    const name = `${what}.${key}.json`;
    const path = join(this.#dir, name);
    const release = () => {
      holds.get(path)?.release();
      holds.delete(path);
    };
    if (how === 'known') {
      finished.set(path, () => {
        this.#finish(what, key, postId);
        release();
      });
      return;
    }
    if (how === 'unknown') {
      const run = this.#read(name);
      try {
        if (run) writeWhole(this.#dir, name, JSON.stringify({ v: 1, ...run, ended: true, pid, host: hostname() }) + '\n');
      } catch {
        // the note stays as written: a rerun reads it as cut off, which it was
      }
    }
    finished.delete(path);
    release();
  }

  /**
   * The note of a finished run becomes `<what>.<key>.done`, with when it
   * finished: an identical run started before that (stopped before its claim,
   * slowed by a busy machine) continues it instead of posting a second time
   * (finishedSince). It goes after RUN_MEMORY_MS. Not flushed to the disk (the
   * command has printed its outcome and is about to exit): lost with the
   * power, the note it replaces may come back, which a rerun continues (the
   * service replays its post), or neither is there, as when it is unwritten.
   */
  #finish(what: string, key: string, postId?: string): void {
    const name = `${what}.${key}.json`;
    const run = this.#read(name);
    if (run) {
      try {
        const done = { v: 1, ...run, finished: this.now(), ...(postId && KEY.test(postId) ? { postId } : {}), pid, host: hostname() };
        writeWhole(this.#dir, `${what}.${key}.done`, JSON.stringify(done) + '\n', { durable: false });
      } catch {
        // unwritten: a run started before this one finished and slowed until now posts anew, as before
      }
    }
    this.#remove(name);
  }

  /** The newest run of any of `whats` that finished at `since` or later (a run started at `since` ran beside it). */
  finishedSince(whats: readonly string[], since: number): OpenRun | undefined {
    let best: OpenRun | undefined;
    let all: string[];
    try {
      all = readdirSync(this.#dir);
    } catch {
      return undefined;
    }
    for (const n of all) {
      if (!n.endsWith('.done') || n.startsWith('.')) continue;
      const run = this.#read(n);
      if (run?.finished === undefined) continue;
      if (Math.abs(this.now() - run.finished) > RUN_MEMORY_MS) {
        this.#remove(n);
        continue;
      }
      if (!whats.includes(n.slice(0, n.indexOf('.'))) || run.finished < since) continue;
      if (!best || run.finished > best.finished!) best = run;
    }
    return best;
  }

  /** The finished run of any of `whats` under `key` that names its post (settled: what a run that waited for it reports). */
  settled(whats: readonly string[], key: string): OpenRun | undefined {
    if (!KEY.test(key)) return undefined;
    for (const w of whats) {
      const run = this.#read(`${w}.${key}.done`);
      if (run?.postId !== undefined && run.finished !== undefined && Math.abs(this.now() - run.finished) <= RUN_MEMORY_MS) return run;
    }
    return undefined;
  }

  #names(): string[] {
    let all: string[];
    try {
      all = readdirSync(this.#dir);
    } catch {
      return [];
    }
    // A run killed between writing its note and renaming it leaves the temporary file, one killed between binding its
    // socket and renaming it the socket's first name: each goes after a day. (A dead run's socket goes when a rerun
    // finds it dead: run-hold.ts.)
    for (const n of all) {
      if (!n.endsWith('.tmp') && !n.startsWith('.bind.')) continue;
      try {
        if (this.now() - statSync(join(this.#dir, n)).mtimeMs > RUN_MEMORY_MS) this.#remove(n);
      } catch {
        // gone meanwhile
      }
    }
    return all.filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  }

  #read(name: string): (OpenRun & { also?: string[] }) | undefined {
    try {
      const o = JSON.parse(readFileSync(join(this.#dir, name), 'utf8')) as Partial<RunFile>;
      if (o?.v !== 1 || typeof o.key !== 'string' || !KEY.test(o.key) || typeof o.started !== 'number') return undefined;
      return {
        key: o.key,
        started: o.started,
        ...(typeof o.publishAt === 'string' ? { publishAt: o.publishAt } : {}),
        ...(o.ended === true ? { ended: true } : {}),
        ...(typeof o.step === 'string' && STEP.test(o.step) ? { step: o.step } : {}),
        ...(typeof o.serviceStarted === 'number' && Number.isFinite(o.serviceStarted) ? { serviceStarted: o.serviceStarted } : {}),
        ...(typeof o.finished === 'number' && Number.isFinite(o.finished) ? { finished: o.finished } : {}),
        ...(typeof o.postId === 'string' && KEY.test(o.postId) ? { postId: o.postId } : {}),
        ...(Array.isArray(o.also) ? { also: o.also.filter((a): a is string => typeof a === 'string') } : {}),
      };
    } catch {
      return undefined; // gone meanwhile, half-written by a foreign tool, not ours
    }
  }

  #remove(name: string): void {
    try {
      unlinkSync(join(this.#dir, name));
    } catch {
      // gone already
    }
  }
}

export interface RunMemoryOptions {
  /** The state directory. */
  dir: string;
  now: () => number;
  /** Who runs it: the profile, the service, the key's hash. */
  ctx: RecordContext;
  /** What the runs post (hashed). */
  what: unknown;
  /** The key's workspace id, when known. */
  workspace?: string;
  /** Other descriptions of the same (Journal.runs): a note is found under any of them. */
  alike?: readonly unknown[];
}

/** The memory of the runs that post `what` (Journal.runs). */
export function runMemory(o: RunMemoryOptions): RunMemory {
  const { ctx, what } = o;
  const hash = (v: unknown) => nodeCrypto().createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 32);
  // The service replays a key per workspace: in a known workspace, any of its keys (one rotated since) runs the same
  // command. A run whose workspace was not known is noted by its key, and found by it too.
  const idsOf = (w: unknown) => {
    const byKey = hash([ctx.profile, ctx.base_url, ctx.key ?? null, w]);
    return o.workspace ? [hash(['workspace', ctx.base_url, o.workspace, w]), byKey] : [byKey];
  };
  const ids = idsOf(what);
  // The note is named by the first; it lists the others of its kind (by workspace, or by key) inside.
  const also = (o.alike ?? []).map((w) => idsOf(w)[0]!);
  const all = [...ids, ...(o.alike ?? []).flatMap(idsOf)];
  const store = new RunStore(o.dir, o.now);
  return {
    dir: store.dir,
    cutOff: (judge) => store.cutOff(all, judge),
    claim: (key, sameKey) => store.claim(all, ids[0]!, key, sameKey),
    finishedSince: (since) => store.finishedSince(all, since),
    settled: (key) => store.settled(all, key),
    running: (key) => store.running(all, key),
    writable: () => store.writable(),
    open: (run) => store.open(ids[0]!, run, also),
    release: (key) => store.release(ids[0]!, key),
    end: (key, how, postId) => {
      for (const id of all) store.end(id, key, how, postId);
    },
  };
}

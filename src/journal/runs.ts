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
 * vidpub named it: posts/cut-off.ts), so that a rerun finds it by any of them. When the run finishes (its post known, or a
 * definite answer: refused, nothing sent), the file is removed once the
 * command has printed its outcome (settleRuns). It stays when
 * the run was cut off: killed, stopped by a signal (SIGTERM, SIGINT, SIGHUP
 * keep it exactly as SIGKILL does), or ended not knowing whether its write
 * was done (it is then marked ended).
 *
 * A later run of the same command within 24 hours (as long as the service
 * remembers a key) takes a cut-off run's key: each of its writes is then a
 * replay of what the cut-off run did, or done now if it never was. A run
 * whose process still holds its note (run-hold.ts: a socket only a live
 * process can listen on) is running, not cut off: it is left alone.
 *
 * Files 0600 in a 0700 directory, each written whole (temporary file, fsync,
 * then rename) by the one run it belongs to, so no lock is needed. Reading
 * never throws: a store that cannot be read remembers nothing. Whether a note
 * can be written is asked before the run's first write (writable()), so a run
 * that could not be continued says so before it uploads.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pid } from 'node:process'; // the run's owner: this OS process, not Context state
import { nodeCrypto } from '../util/lazy-builtins.js';
import { hold, holdAddresses, isHeld, type Hold } from './run-hold.js';
import type { OpenRun, RecordContext, RunEnd, RunMemory } from './journal-types.js';

/** How long a cut-off run can be continued: the service's memory of an Idempotency-Key. */
export const RUN_MEMORY_MS = 24 * 3600_000;

interface RunFile extends OpenRun {
  v: 1;
  /** Who wrote it, for a person reading the file: the decision is the hold's alone. */
  pid: number;
  host: string;
  /** The other names of what it posts (hashes, as a note's name is made): a rerun that knows it by one of them finds it. */
  also?: string[];
}

const KEY = /^[A-Za-z0-9_-]{1,100}$/;
const STEP = /^[a-z0-9:]{1,20}$/;

/** The notes this process holds open, by file path (one RunStore per memory; a moved note changes stores). */
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

/** Writes `text` to `path` whole: a temporary file, fsync, rename. Throws what the file system says. */
function writeWhole(dir: string, name: string, text: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    // A recursive mkdir says ENOENT for a parent on a read-only file system: the directory itself says why.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') mkdirSync(dir, { mode: 0o700 });
    throw err;
  }
  const tmp = join(dir, `.${name}.${pid}.tmp`);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, join(dir, name));
  // The rename itself, through a power loss too.
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } catch {
    // a file system that cannot sync a directory (some network ones): the file itself is synced
  } finally {
    closeSync(dirFd);
  }
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

  /** The newest run of any of `whats` that was cut off within RUN_MEMORY_MS; older files (of any run) are removed on the way. */
  async cutOff(what: string | readonly string[]): Promise<OpenRun | undefined> {
    const whats = typeof what === 'string' ? [what] : what;
    let best: OpenRun | undefined;
    for (const name of this.#names()) {
      const run = this.#read(name);
      if (!run) continue;
      if (this.now() - run.started > RUN_MEMORY_MS) {
        this.#remove(name);
        continue;
      }
      if (!whats.includes(name.slice(0, name.indexOf('.'))) && !run.also?.some((a) => whats.includes(a))) continue;
      if (best && run.started <= best.started) continue;
      if (await isHeld(holdAddresses(this.#dir, name))) continue;
      best = run;
    }
    return best;
  }

  /**
   * Notes that this process's run of `what` is about to write under
   * `run.key`, and holds the note while it runs. False when the note could
   * not be written (the run could not be continued by a plain rerun).
   */
  open(what: string, run: OpenRun, also: readonly string[] = []): boolean {
    if (!KEY.test(run.key)) return false;
    const name = `${what}.${run.key}.json`;
    const file: RunFile = { v: 1, ...run, pid, host: hostname(), ...(also.length > 0 ? { also: [...also] } : {}) };
    try {
      writeWhole(this.#dir, name, JSON.stringify(file) + '\n');
    } catch {
      return false;
    }
    const path = join(this.#dir, name);
    finished.delete(path);
    holds.get(path)?.release();
    holds.set(path, hold(holdAddresses(this.#dir, name)));
    return true;
  }

  /**
   * Whether a note can be written here now: a small file written, synced and
   * renamed as a note is, then removed. The error code (EROFS, ENOSPC,
   * EACCES, ENOTDIR...) when it cannot.
   */
  writable(): string | undefined {
    const name = `.probe.${pid}.json`;
    try {
      writeWhole(this.#dir, name, '{"v":0}\n');
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
  end(what: string, key: string, how: RunEnd): void {
    const name = `${what}.${key}.json`;
    const path = join(this.#dir, name);
    const release = () => {
      holds.get(path)?.release();
      holds.delete(path);
    };
    if (how === 'known') {
      finished.set(path, () => {
        this.#remove(name);
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

  #names(): string[] {
    let all: string[];
    try {
      all = readdirSync(this.#dir);
    } catch {
      return [];
    }
    // A run killed between writing its note and renaming it leaves the temporary file, and a killed run its
    // socket file: each goes after a day.
    for (const n of all) {
      if (!n.endsWith('.tmp') && !n.endsWith('.sock')) continue;
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
  /** Other descriptions of the same (Journal.runs): a note is found under any of them. */
  alike?: readonly unknown[];
  /** The key's workspace id, when known. */
  workspace?: string;
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
    cutOff: () => store.cutOff(all),
    writable: () => store.writable(),
    open: (run) => store.open(ids[0]!, run, also),
    end: (key, how) => {
      for (const id of all) store.end(id, key, how);
    },
  };
}

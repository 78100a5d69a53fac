/**
 * Runs of `vidpub post` that may have posted without knowing it: what lets a
 * rerun after kill -9, a lost power supply or an unknown outcome (exit 9)
 * continue the run it repeats instead of posting a second time.
 *
 * Before its first write, a post run without --idempotency-key leaves a file
 * runs/<what>.<key>.json in the state directory: `what` is a hash of what it
 * posts (the video, caption, destinations, options and time, at this service
 * in this workspace, or with this key when the workspace is not known), `key`
 * its base Idempotency-Key. When the post is known
 * (created, or found already created) or the run ends on a definite answer
 * (refused, nothing sent), the file is removed. It stays when the run was cut
 * off: killed, or ended not knowing whether its write was done (it is then
 * marked ended).
 *
 * A later run of the same command within 24 hours (as long as the service
 * remembers a key) takes a cut-off run's key: each of its writes is then a
 * replay of what the cut-off run did, or done now if it never was. A run whose
 * process is alive on this host since its last start (after a restart its
 * process id may be another's), and that has not ended, is running, not cut
 * off: it is left alone.
 *
 * Files 0600 in a 0700 directory, each written whole (temporary file, then
 * rename) by the one run it belongs to, so no lock is needed. Nothing here
 * throws: a store that cannot be read or written remembers nothing.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import { join } from 'node:path';
import { pid } from 'node:process'; // the run's owner: this OS process, not Context state
import { nodeCrypto } from '../util/lazy-crypto.js';
import { processAlive } from '../util/file-lock.js';
import type { OpenRun, RecordContext, RunMemory } from './journal-types.js';

/** How long a cut-off run can be continued: the service's memory of an Idempotency-Key. */
export const RUN_MEMORY_MS = 24 * 3600_000;

interface RunFile extends OpenRun {
  v: 1;
  pid: number;
  host: string;
  /** When the machine booted (epoch ms): after a restart, `pid` may be another process's. */
  booted?: number;
}

/** When this machine booted, by the system's real clock (it moves a little with the clock: compared within a minute). */
const bootedAt = (): number => Date.now() - uptime() * 1000;
const SAME_BOOT_MS = 60_000;

const KEY = /^[A-Za-z0-9_-]{1,100}$/;
const STEP = /^[a-z0-9:]{1,20}$/;

export class RunStore {
  readonly #dir: string;

  constructor(
    stateDir: string,
    private readonly now: () => number,
  ) {
    this.#dir = join(stateDir, 'runs');
  }

  /** The newest run of any of `whats` that was cut off within RUN_MEMORY_MS; older files (of any run) are removed on the way. */
  cutOff(what: string | readonly string[]): OpenRun | undefined {
    const whats = typeof what === 'string' ? [what] : what;
    let best: OpenRun | undefined;
    for (const name of this.#names()) {
      const dot = name.indexOf('.');
      const run = this.#read(name);
      if (!run) continue;
      const age = this.now() - run.started;
      if (age > RUN_MEMORY_MS) {
        this.#remove(name);
        continue;
      }
      if (!whats.includes(name.slice(0, dot))) continue;
      const sameBoot = run.booted === undefined || Math.abs(run.booted - bootedAt()) < SAME_BOOT_MS;
      const running = !run.ended && run.host === hostname() && sameBoot && (run.pid === pid || processAlive(run.pid));
      if (running) continue;
      if (!best || run.started > best.started) best = { key: run.key, started: run.started, ...(run.publishAt ? { publishAt: run.publishAt } : {}), ...(run.ended ? { ended: true } : {}), ...(run.step ? { step: run.step } : {}) };
    }
    return best;
  }

  /** Notes that this process's run of `what` is about to write under `run.key`. */
  open(what: string, run: OpenRun): void {
    if (!KEY.test(run.key)) return;
    const file: RunFile = { v: 1, key: run.key, started: run.started, ...(run.publishAt ? { publishAt: run.publishAt } : {}), ...(run.step ? { step: run.step } : {}), pid, host: hostname(), booted: bootedAt() };
    this.#write(`${what}.${run.key}.json`, file);
  }

  /**
   * The run under `key` ended. `known`: its post is known, or nothing was
   * sent that could have made one: the file goes. Otherwise it stays, marked
   * ended, for a rerun to continue.
   */
  end(what: string, key: string, known: boolean): void {
    const name = `${what}.${key}.json`;
    if (known) {
      this.#remove(name);
      return;
    }
    const run = this.#read(name);
    if (run) this.#write(name, { v: 1, ...run, ended: true });
  }

  #names(): string[] {
    let all: string[];
    try {
      all = readdirSync(this.#dir);
    } catch {
      return [];
    }
    // A run killed between writing its note and renaming it leaves the temporary file: it goes after a day.
    for (const n of all) {
      if (!n.endsWith('.tmp')) continue;
      try {
        if (this.now() - statSync(join(this.#dir, n)).mtimeMs > RUN_MEMORY_MS) this.#remove(n);
      } catch {
        // gone meanwhile
      }
    }
    return all.filter((n) => n.endsWith('.json'));
  }

  #read(name: string): (OpenRun & { pid: number; host: string; booted?: number }) | undefined {
    try {
      const o = JSON.parse(readFileSync(join(this.#dir, name), 'utf8')) as Partial<RunFile>;
      if (o?.v !== 1 || typeof o.key !== 'string' || !KEY.test(o.key) || typeof o.started !== 'number' || typeof o.pid !== 'number' || typeof o.host !== 'string') return undefined;
      return { key: o.key, started: o.started, pid: o.pid, host: o.host, ...(typeof o.booted === 'number' ? { booted: o.booted } : {}), ...(typeof o.publishAt === 'string' ? { publishAt: o.publishAt } : {}), ...(o.ended === true ? { ended: true } : {}), ...(typeof o.step === 'string' && STEP.test(o.step) ? { step: o.step } : {}) };
    } catch {
      return undefined; // gone meanwhile, half-written by a foreign tool, not ours
    }
  }

  #write(name: string, file: RunFile): void {
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      const tmp = join(this.#dir, `.${name}.${pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(file) + '\n', { mode: 0o600 });
      renameSync(tmp, join(this.#dir, name));
    } catch {
      // a read-only or full disk: this run is not remembered (the journal warns about the disk)
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
}

/** The memory of the runs that post `what` (Journal.runs). */
export function runMemory(o: RunMemoryOptions): RunMemory {
  const { ctx, what } = o;
  const hash = (v: unknown) => nodeCrypto().createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 32);
  // The service replays a key per workspace: in a known workspace, any of its keys (one rotated since) runs the same
  // command. A run whose workspace was not known is noted by its key, and found by it too.
  const byKey = hash([ctx.profile, ctx.base_url, ctx.key ?? null, what]);
  const ids = o.workspace ? [hash(['workspace', ctx.base_url, o.workspace, what]), byKey] : [byKey];
  const store = new RunStore(o.dir, o.now);
  return {
    cutOff: () => store.cutOff(ids),
    open: (run) => store.open(ids[0]!, run),
    end: (key, known) => {
      for (const id of ids) store.end(id, key, known);
    },
  };
}

/**
 * What `vidpub watch` has reported, kept in the journal's directory so that a
 * change is reported once across runs: two `watch --once` started together or
 * one after the other never report the same event. The file (watch/PROFILE.json)
 * is read, added to and written whole (atomically) under its lock
 * (src/util/file-lock.ts): the run that takes an event first reports it, the
 * other finds it taken. Events a hook (--exec, --forward-to) has not yet taken
 * are kept in it too, and offered again by the next run. While a run hands
 * events to its hooks they are recorded as handed to that run (its process id):
 * a run killed meanwhile leaves them there, and the next run, finding that
 * process gone (or the record a day old), offers them again: never lost.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pid } from 'node:process';
import { processAlive, withFileLock } from '../util/file-lock.js';
import { nodeCrypto } from '../util/lazy-builtins.js';
import { writeWhole } from './write-whole.js';

/** An event id reported, and when (epoch ms); forgotten after KEEP_MS (the posts it spoke of are settled by then). */
export const KEEP_MS = 90 * 24 * 3600_000;

interface ReportedFile {
  v: 1;
  reported: Record<string, number>;
  /** Events a hook has yet to take, by hook ("exec", "forward"), oldest first. */
  pending: Record<string, unknown[]>;
  /** Events being handed to a hook by a run (its process and a token of its own), since `at`. */
  handing?: Record<string, Handing[]>;
}

interface Handing {
  run: string;
  pid: number;
  at: number;
  events: unknown[];
}

/** A run's handing of events older than this is taken for a run that died (its process id reused meanwhile). */
const HANDING_MS = 24 * 3600_000;

export interface ReportedStore {
  /** Where the file is (messages). */
  readonly path: string;
  /** Of `events`, those no run reported yet, now marked reported (once, under the lock); with the hooks' pending events, which are taken out. */
  claim<E extends { id: string }>(events: E[], hooks: readonly string[], now: number): Promise<{ fresh: E[]; pending: Record<string, E[]> }>;
  /** Events `hook` could not deliver: offered again by the next run. */
  keepPending(hook: string, events: unknown[]): Promise<void>;
}

function read(path: string): ReportedFile {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as Partial<ReportedFile>;
    if (doc && typeof doc === 'object' && doc.v === 1) return { v: 1, reported: doc.reported ?? {}, pending: doc.pending ?? {}, handing: doc.handing ?? {} };
  } catch {
    // missing or torn by hand: start again (the journal's statuses keep the posts followed)
  }
  return { v: 1, reported: {}, pending: {}, handing: {} };
}

const PURPOSE = {
  file: "vidpub watch's record of what it reported",
  holders: 'another vidpub watch',
  notDone: 'nothing was reported',
  directory: 'the journal directory',
};

export function reportedStore(journalDir: string, profile: string, signal?: AbortSignal): ReportedStore {
  const dir = join(journalDir, 'watch');
  const name = `${encodeURIComponent(profile)}.json`;
  const path = join(dir, name);
  // This run, in the record of what is being handed to the hooks.
  const run = nodeCrypto().randomBytes(6).toString('hex');
  const locked = <T>(fn: (doc: ReportedFile) => T): Promise<T> => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return withFileLock(path, { purpose: PURPOSE, signal }, () => {
      const doc = read(path);
      const out = fn(doc);
      writeWhole(dir, name, `${JSON.stringify(doc)}\n`);
      return out;
    });
  };
  return {
    path,
    claim: (events, hooks, now) =>
      locked((doc) => {
        for (const [id, at] of Object.entries(doc.reported)) if (now - at > KEEP_MS) delete doc.reported[id];
        const fresh = events.filter((e) => doc.reported[e.id] === undefined);
        for (const e of fresh) doc.reported[e.id] = now;
        const pending: Record<string, (typeof events)[number][]> = {};
        const handing = (doc.handing ??= {});
        for (const hook of hooks) {
          // What a run that died was handing, first (oldest), then what waits.
          const dead = (handing[hook] ?? []).filter((h) => h.run !== run && (!processAlive(h.pid) || now - h.at > HANDING_MS));
          handing[hook] = (handing[hook] ?? []).filter((h) => !dead.includes(h));
          pending[hook] = [...dead.flatMap((h) => h.events), ...(doc.pending[hook] ?? [])] as (typeof events)[number][];
          delete doc.pending[hook];
          const handed = [...pending[hook], ...fresh];
          if (handed.length > 0) handing[hook].push({ run, pid, at: now, events: handed });
          if (handing[hook].length === 0) delete handing[hook];
        }
        return { fresh, pending };
      }),
    keepPending: (hook, events) =>
      locked((doc) => {
        if (doc.handing?.[hook]) doc.handing[hook] = doc.handing[hook].filter((h) => h.run !== run);
        if (events.length > 0) doc.pending[hook] = [...(doc.pending[hook] ?? []), ...events];
      }),
  };
}

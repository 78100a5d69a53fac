/**
 * What `vidpub watch` has reported, kept in the journal's directory so that a
 * change is reported once across runs: two `watch --once` started together or
 * one after the other never report the same event. The file (watch/PROFILE.json)
 * is read, added to and written whole (atomically) under its lock
 * (src/util/file-lock.ts): the run that takes an event first reports it, the
 * other finds it taken. Events a hook (--exec, --forward-to) has not yet taken
 * are kept in it too, and offered again by the next run.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from '../util/file-lock.js';
import { writeWhole } from './write-whole.js';

/** An event id reported, and when (epoch ms); forgotten after KEEP_MS (the posts it spoke of are settled by then). */
export const KEEP_MS = 90 * 24 * 3600_000;

interface ReportedFile {
  v: 1;
  reported: Record<string, number>;
  /** Events a hook has yet to take, by hook ("exec", "forward"), oldest first. */
  pending: Record<string, unknown[]>;
}

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
    if (doc && typeof doc === 'object' && doc.v === 1) return { v: 1, reported: doc.reported ?? {}, pending: doc.pending ?? {} };
  } catch {
    // missing or torn by hand: start again (the journal's statuses keep the posts followed)
  }
  return { v: 1, reported: {}, pending: {} };
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
        for (const hook of hooks) {
          pending[hook] = (doc.pending[hook] ?? []) as (typeof events)[number][];
          delete doc.pending[hook];
        }
        return { fresh, pending };
      }),
    keepPending: (hook, events) =>
      locked((doc) => {
        if (events.length > 0) doc.pending[hook] = [...(doc.pending[hook] ?? []), ...events];
      }),
  };
}

/**
 * The write queue of one key on this machine (issue 52): every run of `post`
 * that shares a key and a state directory meets here before its first write.
 * The file is `queue/<hash>.json` in the state directory, the hash that of
 * the service and the key's own hash (never the key); 0600 in a 0700
 * directory, written whole, read and changed under its lock
 * (src/util/file-lock.ts), so any number of processes may share it.
 *
 * What it holds is the queue's state, nothing more: the runs in it (waiting,
 * or admitted with the writes they still need) and what is known of the
 * key's write counter this minute. The rules that admit a run are the post
 * pipeline's (src/posts/post/key-queue.ts), as a function of this state.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pid } from 'node:process'; // an entry's owner: this OS process, not Context state
import { processAlive, withFileLock } from '../util/file-lock.js';
import { nodeCrypto } from '../util/lazy-builtins.js';
import { writeWhole } from './write-whole.js';

/** One run in the queue. */
export interface QueueEntry {
  id: string;
  pid: number;
  host: string;
  /** When it joined (this machine's clock). */
  since: number;
  /** The writes it still needs to finish (3 for an upload: the upload session, its complete, the post). */
  need: number;
  /** When it was let through to write; absent while it waits. */
  admitted?: number;
  /** Work already started (a run continuing an earlier one): it goes before new work. */
  started?: boolean;
}

/** The key's write counter this minute, as known here. */
export interface WriteWindow {
  limit: number;
  /** When the counter resets (this machine's clock, ms). */
  resetAt: number;
  /** Writes of this minute spent or promised to the runs let through. */
  spent: number;
}

export interface QueueState {
  entries: QueueEntry[];
  window?: WriteWindow;
  /** A run asking the service for the counter (GET /me) while nothing is known: the others wait for its answer. */
  probe?: { at: number };
  /** How long the last run took from being let through to its end (ms): the estimate of when a waiting run would finish. */
  runMs?: number;
}

/** An entry of a process gone, or older than this, is dropped (no run of post waits that long). */
const ENTRY_MAX_MS = 3 * 3600_000;

/** The queue's file for a key (`keyHash`: the client's hash of it) at a service. */
export function queueFile(stateDir: string, baseUrl: string, keyHash: string): string {
  const name = nodeCrypto().createHash('sha256').update(`${baseUrl}\n${keyHash}`).digest('hex').slice(0, 32);
  return join(stateDir, 'queue', `${name}.json`);
}

function read(path: string): QueueState {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Partial<QueueState> & { v?: unknown };
    if (o?.v !== 1 || !Array.isArray(o.entries)) return { entries: [] };
    const entries = o.entries.filter((e): e is QueueEntry => typeof e?.id === 'string' && typeof e.pid === 'number' && typeof e.since === 'number' && typeof e.need === 'number');
    const w = o.window;
    const window = w && typeof w.limit === 'number' && typeof w.resetAt === 'number' && typeof w.spent === 'number' ? w : undefined;
    return {
      entries,
      ...(window ? { window } : {}),
      ...(typeof o.probe?.at === 'number' ? { probe: o.probe } : {}),
      ...(typeof o.runMs === 'number' ? { runMs: o.runMs } : {}),
    };
  } catch {
    return { entries: [] }; // none yet, or unreadable: an empty queue
  }
}

/** Drops the entries of processes that are gone (on this host) or too old. */
function prune(state: QueueState, now: number): void {
  const here = hostname();
  state.entries = state.entries.filter((e) => now - e.since < ENTRY_MAX_MS && (e.host !== here || e.pid === pid || processAlive(e.pid)));
}

/** This process's entry fields (who owns it), for a new entry. */
export function owner(): Pick<QueueEntry, 'pid' | 'host'> {
  return { pid, host: hostname() };
}

/**
 * Reads the queue under its lock, lets `change` change it, writes it back
 * whole; returns what `change` returned. Throws what the lock or the disk
 * says (the caller then runs without the queue). `waitMs`: the longest wait
 * for the lock (the file lock's default when absent).
 */
export async function changeQueue<T>(path: string, now: number, signal: AbortSignal, change: (state: QueueState) => T, waitMs?: number): Promise<T> {
  const purpose = { file: "the key's write queue", holders: 'another vidpub post with this key', notDone: 'the run was not queued', directory: 'the state directory' };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return withFileLock(path, { purpose, signal, ...(waitMs !== undefined ? { waitMs } : {}) }, () => {
    const state = read(path);
    prune(state, now);
    const out = change(state);
    // Lost with the power, it is an empty queue: nothing but the order of the runs of that moment.
    writeWhole(dirname(path), basename(path), JSON.stringify({ v: 1, ...state }) + '\n', { durable: false });
    return out;
  });
}

/**
 * The state directory of `vidpub emulator --state DIR`, on disk:
 *
 *   DIR/state.json    the snapshot: a world document (world.ts), written whole or not at all
 *   DIR/log.jsonl     what changed since, one line per change, appended before the answer
 *   DIR/videos/ID     the bytes of the videos kept for the web app's player
 *   DIR/lock          the running emulator's (dir-lock.ts)
 *
 * Each log line is {"s": N, "o": [op, ...]}: N grows by one per line, and the
 * snapshot says the last N it holds (`log_seq`), so lines left behind by a
 * kill between a new snapshot and the log's truncation are skipped. A line
 * cut short (no newline at its end) is the last write of a killed process:
 * its request was never answered, and it is dropped. Anything else that does
 * not read (a snapshot cut short, a line in the middle that is not JSON, a
 * newer format version) is refused with the path and what to do, and nothing
 * is written: the directory is left as it was.
 */
import { accessSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DirLocked, lockDir, type DirLock } from './dir-lock.js';
import { checkEnvelope, WorldError, WORLD_VERSION, type WorldDoc } from './world.js';

export const SNAPSHOT_FILE = 'state.json';
export const LOG_FILE = 'log.jsonl';
export const VIDEOS_DIR = 'videos';

/** One change: [kind, ...]. See persist.ts for the kinds. */
export type LogOp = [string, ...unknown[]];

/** A state directory that cannot be used: the sentence, and what to do. Exit 2 in the CLI. */
export class StateDirError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'StateDirError';
  }
}

export interface OpenedDir {
  dir: string;
  lock: DirLock;
  /** The snapshot, or null for a directory that holds no state yet. */
  snapshot: WorldDoc | null;
  /** The log's entries after the snapshot, in order. */
  entries: LogOp[][];
  /** The last entry's number (the snapshot's when the log adds none). */
  seq: number;
  /** A last line cut short was dropped. */
  tornTail: boolean;
}

function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}

/** The directory made or checked: a directory, writable. */
function ensureDir(dir: string): void {
  const cannot = (why: string) =>
    new StateDirError(`--state ${dir} cannot be used: ${why}; nothing was written.`, `Give --state a directory you can write to (made if missing), e.g. --state ./emulator-state.`);
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    if (errno(err) !== 'ENOENT') throw cannot(`it cannot be read (${errno(err)})`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw cannot(`it cannot be made (${errno(e)})`);
    }
    return;
  }
  if (!st.isDirectory()) {
    throw new StateDirError(`--state ${dir} is a file, not a directory; it was left as it is.`, 'Give --state a directory (made if missing), e.g. --state ./emulator-state.');
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw cannot('it is not writable (permission denied)');
  }
}

/** A damaged state: refused, left as it is. */
export function refuseDamaged(path: string, dir: string, why: string): StateDirError {
  return new StateDirError(
    `the emulator state ${path} is damaged (${why}); it was left as it is.`,
    `Move ${dir} aside (or give another --state DIR) to start afresh; "vidpub emulator --import FILE" starts from an export.`,
  );
}

function readSnapshot(dir: string): WorldDoc | null {
  const path = join(dir, SNAPSHOT_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw new StateDirError(`the emulator state ${path} cannot be read (${errno(err)}); it was left as it is.`, `Check the permissions of ${dir}.`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw refuseDamaged(path, dir, text.length === 0 ? 'it is empty' : 'it is not whole JSON: cut short or changed');
  }
  try {
    return checkEnvelope(raw);
  } catch (err) {
    if (!(err instanceof WorldError)) throw err;
    if (err.newer) {
      throw new StateDirError(
        `the emulator state ${path} ${err.message}; it was left as it is.`,
        `Run it with that newer vidpub, or give this one another --state DIR (this one writes format version ${WORLD_VERSION}).`,
      );
    }
    throw refuseDamaged(path, dir, err.message);
  }
}

function readLog(dir: string, after: number): { entries: LogOp[][]; seq: number; tornTail: boolean } {
  const path = join(dir, LOG_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (errno(err) === 'ENOENT') return { entries: [], seq: after, tornTail: false };
    throw new StateDirError(`the emulator state's log ${path} cannot be read (${errno(err)}); it was left as it is.`, `Check the permissions of ${dir}.`);
  }
  const lines = text.split('\n');
  const last = lines.pop()!; // '' when the log ends with a newline; else a line cut short by a kill
  const entries: LogOp[][] = [];
  let seq = after;
  lines.forEach((line, i) => {
    let e: { s?: unknown; o?: unknown };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      throw refuseDamaged(path, dir, `line ${i + 1} is not JSON`);
    }
    if (typeof e.s !== 'number' || !Array.isArray(e.o)) throw refuseDamaged(path, dir, `line ${i + 1} is not a change`);
    if (e.s <= after) return; // held by the snapshot already
    if (e.s <= seq) throw refuseDamaged(path, dir, `line ${i + 1} is out of order`);
    seq = e.s;
    entries.push(e.o as LogOp[]);
  });
  return { entries, seq, tornTail: last !== '' };
}

/** Takes the directory (made if missing) and reads what it holds; throws StateDirError. */
export function openStateDir(dir: string): OpenedDir {
  ensureDir(dir);
  let lock: DirLock;
  try {
    lock = lockDir(dir);
  } catch (err) {
    if (err instanceof DirLocked) {
      throw new StateDirError(
        `the emulator state ${dir} is in use by another emulator (${err.message}); nothing was written.`,
        `Stop that emulator first, or give this one another --state DIR. If no emulator runs there, remove ${err.lockPath}.`,
      );
    }
    throw new StateDirError(`--state ${dir} cannot be used: its lock cannot be made (${errno(err)}); nothing was written.`, 'Give --state a directory you can write to.');
  }
  try {
    const snapshot = readSnapshot(dir);
    if (!snapshot) {
      try {
        statSync(join(dir, LOG_FILE));
        throw refuseDamaged(join(dir, LOG_FILE), dir, `there is a log but no ${SNAPSHOT_FILE}`);
      } catch (err) {
        if (err instanceof StateDirError) throw err;
      }
      return { dir, lock, snapshot: null, entries: [], seq: 0, tornTail: false };
    }
    return { dir, lock, snapshot, ...readLog(dir, snapshot.log_seq ?? 0) };
  } catch (err) {
    lock.release();
    throw err;
  }
}

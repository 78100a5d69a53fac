/**
 * A cross-process lock on one file, for short sections of file I/O. Two ways
 * to take it: withFileLock waits for the lock (for a read-modify-write that
 * must happen), tryFileLock runs its section only if nobody holds the lock
 * (for work that one process does for all, the others skipping it). The
 * section itself is synchronous and takes milliseconds; the wait between
 * tries is asynchronous, so that Ctrl-C and a command's --timeout (the
 * signal) end it at once. The lock knows nothing of what it protects: a
 * caller that waits says it (LockPurpose), and the errors use its words.
 *
 * The lock is a file `<path>.lock` created with O_CREAT|O_EXCL (`wx`), so
 * exactly one process creates it; it holds {"pid", "host", "at"} for the
 * diagnosis. A process that finds it waits, with jittered sleeps, for at most
 * `waitMs` (default 10 s), then gives up with an error naming the file and its
 * holder; an abort of `signal` ends the wait sooner, with the signal's reason.
 *
 * Stale locks (a vidpub killed while holding one) are taken over: a lock whose
 * process no longer exists on this host, or that is older than STALE_MS
 * whatever its owner, is removed by one process at a time, holding a guard
 * directory `<path>.lock.break` (mkdir: one process wins it), which judges
 * again, under the guard, the lock that is there now. (Moving the stale lock
 * aside and putting back a live one, as before, could lose a live lock when a
 * third process took the place meanwhile: two holders at once, and a profile
 * lost, seen once in a test of four processes meeting one stale lock.)
 *
 * Why not a library: proper-lockfile (the usual choice) judges a lock by its
 * age alone, keeping a held lock fresh by touching it on a timer; a lock left
 * by a killed vidpub would then hold up the next caller until it went stale,
 * where this file takes it over at once when its process is gone. It also
 * pulls in three dependencies; the ~170 lines of code here use node:fs alone.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { kill, pid } from 'node:process'; // the lock's owner: this OS process, not Context state
import { realClock, type Clock } from '../core/clock.js';
import { VidpubError, sanitize } from '../errors.js';

/** A lock older than this is stale even if its process seems alive (no section takes this long). */
export const STALE_MS = 30_000;
export const DEFAULT_LOCK_WAIT_MS = 10_000;

interface LockInfo {
  pid?: number;
  host?: string;
  at?: number;
}

function readInfo(lockPath: string): LockInfo {
  try {
    const v: unknown = JSON.parse(readFileSync(lockPath, 'utf8'));
    return v && typeof v === 'object' ? (v as LockInfo) : {};
  } catch {
    return {}; // being written, or not ours: judged by age only
  }
}

/** True when process `other` exists on this host (signal 0 tests without sending). */
export function processAlive(other: number): boolean {
  try {
    kill(other, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** True when the lock file (holding `info`, modified at `mtimeMs`) is stale: too old, or its process gone. */
function isStale(info: LockInfo, mtimeMs: number, now: number): boolean {
  if (now - mtimeMs > STALE_MS) return true;
  if (info.host === hostname() && typeof info.pid === 'number' && info.pid !== pid && !processAlive(info.pid)) return true;
  return false;
}

/** A break guard older than this was left by a process that died while breaking: it is cleared. */
const BREAK_GUARD_STALE_MS = 5_000;

/**
 * Removes the lock if it is (still) stale, one breaker at a time. Under the
 * guard nobody else removes a lock they do not hold (holders remove only their
 * own), so what is judged stale here is what is removed; a fresh lock taken
 * meanwhile is judged live and left alone.
 */
function breakStale(lockPath: string): void {
  const guard = `${lockPath}.break`;
  try {
    mkdirSync(guard, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
    try {
      if (Date.now() - statSync(guard).mtimeMs > BREAK_GUARD_STALE_MS) rmdirSync(guard);
    } catch {
      // released meanwhile
    }
    return; // another process is breaking it: try the lock again
  }
  try {
    const st = statSync(lockPath);
    if (isStale(readInfo(lockPath), st.mtimeMs, Date.now())) unlinkSync(lockPath);
  } catch {
    // gone already: released, or broken before we got the guard
  } finally {
    try {
      rmdirSync(guard);
    } catch {
      // nothing to release
    }
  }
}

function tryAcquire(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify({ pid: pid, host: hostname(), at: Date.now() }));
  } catch (err) {
    // Created but not written (a full disk): an empty lock nobody holds would stop every taker, this process too,
    // until it went stale. Not ours after all: removed, and the error is the caller's.
    closeSync(fd);
    unlock(lockPath);
    throw err;
  }
  closeSync(fd);
  return true;
}

/** What a waited-for lock protects, in the words its errors use. */
export interface LockPurpose {
  /** The file locked, as a sentence names it: "the config file" (its path follows). */
  file: string;
  /** Who else takes the lock: "another vidpub login or logout". */
  holders: string;
  /** What the caller did not do when it cannot have the lock: "nothing was stored". */
  notDone: string;
  /** The directory the lock file is created in, for a hint: "the config directory". */
  directory: string;
}

export interface LockOptions {
  /** What the lock is for: its errors say it. */
  purpose: LockPurpose;
  /** Longest wait for the lock, ms (default 10 s). */
  waitMs?: number;
  /** Ends the wait for another holder (Ctrl-C, the command's deadline): rejects with its reason. */
  signal?: AbortSignal;
  /** The clock the wait for another holder runs on (the Context's; default the real one). */
  clock?: Clock;
}

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** One try at the lock: 'held' (ours now), 'busy' (a live holder), 'retry' (released or broken as stale meanwhile). */
function attempt(lockPath: string): { state: 'held' } | { state: 'retry' } | { state: 'busy'; info: LockInfo } {
  if (tryAcquire(lockPath)) return { state: 'held' };
  let st: { mtimeMs: number };
  try {
    st = statSync(lockPath);
  } catch {
    return { state: 'retry' };
  }
  const info = readInfo(lockPath);
  if (isStale(info, st.mtimeMs, Date.now())) {
    breakStale(lockPath);
    return { state: 'retry' };
  }
  return { state: 'busy', info };
}

/** Gives the lock up; one already broken as stale by another process (only after STALE_MS) has nothing to give up. */
function unlock(lockPath: string): void {
  try {
    unlinkSync(lockPath);
  } catch {
    // broken as stale by another process: nothing to release
  }
}

function release<T>(lockPath: string, fn: () => T): T {
  try {
    return fn();
  } finally {
    unlock(lockPath);
  }
}

/**
 * Runs `fn` while holding the lock on `path` (the lock file is `<path>.lock`),
 * waiting for another holder up to `waitMs`. Its errors (the lock cannot be
 * created; another holder kept it too long) name `path` as `purpose` words it.
 */
export async function withFileLock<T>(path: string, opts: LockOptions, fn: () => T | Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  const waitMs = opts.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const clock = opts.clock ?? realClock;
  const start = clock.now();
  let delay = 2;
  for (;;) {
    let got: ReturnType<typeof attempt>;
    try {
      got = attempt(lockPath);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new VidpubError(`Cannot create the lock file ${sanitize(lockPath)} (${code ?? 'error'}); ${opts.purpose.file} was left as it was.`, {
        hint: `Check the permissions of ${opts.purpose.directory}.`,
      });
    }
    if (got.state === 'held') break;
    if (got.state === 'retry') continue;
    if (clock.now() - start >= waitMs) {
      const { info } = got;
      const who = typeof info.pid === 'number' ? ` by process ${info.pid}${info.host && info.host !== hostname() ? ` on ${sanitize(info.host)}` : ''}` : '';
      const { file, holders, notDone } = opts.purpose;
      throw new VidpubError(`${capitalized(file)} ${sanitize(path)} is locked${who} (${holders}); ${notDone}.`, {
        hint: `Run the command again when it has finished. If no other vidpub is running, remove ${sanitize(lockPath)}.`,
      });
    }
    try {
      await clock.sleep(delay + Math.random() * delay, opts.signal);
    } catch (err) {
      // Stopped by the signal: its reason (the deadline, Ctrl-C), whatever a clock rejects its sleep with.
      throw opts.signal?.aborted ? (opts.signal.reason as unknown) : err;
    }
    delay = Math.min(delay * 2, 50);
  }
  // `fn` may wait (the key stored in the OS store under the lock, key-store.ts): the lock is released when it has settled.
  try {
    return await fn();
  } finally {
    unlock(lockPath);
  }
}

/**
 * Runs `fn` under the lock on `path` if nobody else holds it (a stale lock is
 * taken over); returns undefined without running it when another process
 * does, or when the lock cannot be created at all. For work that one process
 * does for all (the journal's rotation).
 */
export function tryFileLock<T>(path: string, fn: () => T): T | undefined {
  const lockPath = `${path}.lock`;
  for (let tries = 0; tries < 3; tries++) {
    let got: ReturnType<typeof attempt>;
    try {
      got = attempt(lockPath);
    } catch {
      return undefined;
    }
    if (got.state === 'busy') return undefined;
    if (got.state === 'held') return release(lockPath, fn);
  }
  return undefined;
}

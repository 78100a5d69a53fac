/**
 * One emulator per state directory: `DIR/lock`, created with O_EXCL and
 * holding {pid, host, start, at}, held for as long as the emulator runs
 * (src/util/file-lock.ts is for short sections: a lock older than 30 s is
 * stale there). Another emulator finding it refuses the directory, naming
 * the holder's process, unless the holder is gone: its process no longer
 * exists on this host (or another process took its id since: the start time
 * Linux gives each process differs), or, from another host sharing the
 * directory, it has not touched the lock for LOCK_STALE_MS (the holder
 * touches it every LOCK_TOUCH_MS).
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pid } from 'node:process'; // the lock's owner: this OS process
import { processAlive } from '../../util/file-lock.js';

export const LOCK_FILE = 'lock';
const LOCK_TOUCH_MS = 10_000;
const LOCK_STALE_MS = 60_000;

interface LockInfo {
  pid?: number;
  host?: string;
  /** The process's start time (Linux: /proc/PID/stat field 22), telling it from a later process given the same id. */
  start?: string;
}

/** A process's start time, or undefined where /proc does not say. */
function startOf(p: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function readInfo(path: string): LockInfo {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return v && typeof v === 'object' ? (v as LockInfo) : {};
  } catch {
    return {};
  }
}

/** Whether the lock's holder still runs. */
function held(info: LockInfo, mtimeMs: number): boolean {
  if (info.host !== hostname() || typeof info.pid !== 'number') return Date.now() - mtimeMs < LOCK_STALE_MS;
  if (info.pid === pid) return true; // this process: a second emulator in it
  if (!processAlive(info.pid)) return false;
  const start = startOf(info.pid);
  return info.start === undefined || start === undefined || start === info.start;
}

/** The directory's holder: the lock is someone else's (the caller refuses the directory). */
export class DirLocked extends Error {
  constructor(
    readonly lockPath: string,
    readonly holder: LockInfo,
  ) {
    super(`held by process ${holder.pid ?? '?'}${holder.host && holder.host !== hostname() ? ` on ${holder.host}` : ''}`);
    this.name = 'DirLocked';
  }
}

export interface DirLock {
  release(): void;
}

/** Takes DIR's lock or throws DirLocked (or what the file system says). */
export function lockDir(dir: string): DirLock {
  const path = join(dir, LOCK_FILE);
  for (let tries = 0; ; tries++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 3) throw err;
      let mtimeMs: number;
      try {
        mtimeMs = statSync(path).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      const info = readInfo(path);
      if (held(info, mtimeMs)) throw new DirLocked(path, info);
      try {
        unlinkSync(path); // its holder is gone (killed): taken over
      } catch {
        // another starter took it over first
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid, host: hostname(), start: startOf(pid), at: new Date().toISOString() }));
    } finally {
      closeSync(fd);
    }
    const touch = setInterval(() => {
      try {
        const now = new Date();
        utimesSync(path, now, now);
      } catch {
        // removed by hand: nothing to keep fresh
      }
    }, LOCK_TOUCH_MS);
    touch.unref();
    return {
      release: () => {
        clearInterval(touch);
        if (readInfo(path).pid !== pid) return;
        try {
          unlinkSync(path);
        } catch {
          // gone already
        }
      },
    };
  }
}

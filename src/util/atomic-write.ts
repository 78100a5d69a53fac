/**
 * Writing a file whole or not at all, the one way vidpub does it: a temporary
 * file beside the target (created new, never followed through a link), its
 * bytes flushed to the disk, its mode set whatever the umask, then renamed
 * over the target and the directory flushed so the rename outlives a power
 * loss. A reader sees the old file or the new one, never half of one; the
 * temporary file is removed when a step fails, and the error is thrown as the
 * file system said it. A symbolic link at the path is kept: the file it
 * points to is the one replaced.
 */
import * as fs from 'node:fs';
import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pid } from 'node:process';
import { promisify } from 'node:util';
import { nodeCrypto } from './lazy-builtins.js';

export interface AtomicWriteOptions {
  /** The file's mode; 0600 unless said. */
  mode?: number;
  /** Make the directory (0700) first when it is missing. */
  mkdir?: boolean;
  /**
   * Flush the file and the rename to the disk (default true). A file whose
   * loss with the power costs nothing but time (a cache, a probe) says false:
   * still whole or not at all for a reader, without the two flushes' wait.
   */
  durable?: boolean;
}

/** The file a write replaces: the path itself, or the file its link points to. */
function writeTarget(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

/** Beside the target, named for it, this process and 8 random hex digits: never another writer's. */
function temporaryName(target: string): string {
  return join(dirname(target), `.${basename(target)}.${pid}.${nodeCrypto().randomBytes(4).toString('hex')}.tmp`);
}

function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    // A recursive mkdir says ENOENT for a parent on a read-only file system: the directory itself says why.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') mkdirSync(dir, { mode: 0o700 });
    throw err;
  }
}

/** The rename itself, through a power loss too; a file system that cannot sync a directory (some network ones) is let be. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // the file itself is synced
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes `text` to `path` whole or not at all (see the module's comment). Throws what the file system says. */
export function writeFileAtomic(path: string, text: string, opts: AtomicWriteOptions = {}): void {
  const mode = opts.mode ?? 0o600;
  if (opts.mkdir) makeDirectory(dirname(path));
  const target = writeTarget(path);
  const tmp = temporaryName(target);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', mode);
    writeSync(fd, text);
    if (opts.durable !== false) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    chmodSync(tmp, mode); // whatever the umask
    renameSync(tmp, target);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // not created, or already renamed
    }
    throw err;
  }
  if (opts.durable !== false) syncDirectory(dirname(target));
}

/**
 * node:fs's callback calls as promises: node:fs/promises would load Node's readline, directory and
 * watcher modules on the post path, which util/fs-calls.ts keeps it off (test/tools/module-load.test.ts).
 */
const afs = {
  mkdir: promisify(fs.mkdir),
  open: promisify(fs.open),
  writeFile: promisify(fs.writeFile),
  fsync: promisify(fs.fsync),
  fchmod: promisify(fs.fchmod),
  close: promisify(fs.close),
  rename: promisify(fs.rename),
  rm: promisify(fs.rm),
};

/** writeFileAtomic without blocking the event loop while the disk flushes. */
export async function writeFileAtomicAsync(path: string, text: string, opts: AtomicWriteOptions = {}): Promise<void> {
  const mode = opts.mode ?? 0o600;
  if (opts.mkdir) await afs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const target = writeTarget(path);
  const tmp = temporaryName(target);
  try {
    const fd = await afs.open(tmp, 'wx', mode);
    try {
      await afs.writeFile(fd, text);
      if (opts.durable !== false) await afs.fsync(fd);
      await afs.fchmod(fd, mode); // whatever the umask
    } finally {
      await afs.close(fd);
    }
    await afs.rename(tmp, target);
  } catch (err) {
    await afs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  if (opts.durable === false) return;
  const dir = await afs.open(dirname(target), 'r').catch(() => undefined);
  if (dir === undefined) return;
  await afs.fsync(dir).catch(() => undefined);
  await afs.close(dir);
}

/** A note of the journal's runs/ written whole: what a reader sees is the old file or the new one, never half of one. */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pid } from 'node:process'; // the temporary file's owner: this OS process

/** Writes `text` to `path` whole: a temporary file, fsync, rename. Throws what the file system says. */
export function writeWhole(dir: string, name: string, text: string): void {
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

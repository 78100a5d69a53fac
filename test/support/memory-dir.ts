/**
 * A temporary directory in memory, for a test that writes thousands of small files (an npm
 * install: 6,000 files): on the disk's file system their creation and removal cost seconds of
 * system CPU, on a tmpfs a fraction of that. The tmpfs is /dev/shm where it is one, has room,
 * and lets programs run from it (not mounted noexec, as a container's often is); else the
 * directory is made in os.tmpdir(), as any other test's.
 */
import { accessSync, constants, mkdtempSync, readFileSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SHM = '/dev/shm';
/** statfs's f_type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/** /dev/shm if it is a tmpfs with `room` bytes free that programs may be run from and this process may write to. */
function shm(room: number): string | undefined {
  try {
    const fs = statfsSync(SHM);
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < room) return undefined;
    // /proc/self/mountinfo: the 5th field is the mount point, the 6th its options; the last mount there is the one seen.
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .filter((fields) => fields[4] === SHM)
      .pop();
    if (!mount || mount[5]!.split(',').includes('noexec')) return undefined;
    accessSync(SHM, constants.W_OK | constants.X_OK);
    return SHM;
  } catch {
    return undefined;
  }
}

/** mkdtemp under /dev/shm (see above) when it has `room` bytes free, else under os.tmpdir(). */
export function memoryTempDir(prefix: string, room = 1024 ** 3): string {
  return mkdtempSync(join(shm(room) ?? tmpdir(), prefix));
}

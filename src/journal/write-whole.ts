/** A note of the journal's runs/ written whole: what a reader sees is the old file or the new one, never half of one. */
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';

/**
 * Writes `text` to `dir`/`name` whole (src/util/atomic-write.ts), making `dir` first. Throws what the file system
 * says. `durable: false` for a file whose loss with the power is safe (see its caller): no flush to the disk.
 */
export function writeWhole(dir: string, name: string, text: string, opts: { durable?: boolean } = {}): void {
  writeFileAtomic(join(dir, name), text, { mkdir: true, ...opts });
}

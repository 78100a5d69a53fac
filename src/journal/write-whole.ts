/** A note of the journal's runs/ written whole: what a reader sees is the old file or the new one, never half of one. */
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';

/** Writes `text` to `dir`/`name` whole (src/util/atomic-write.ts), making `dir` first. Throws what the file system says. */
export function writeWhole(dir: string, name: string, text: string): void {
  writeFileAtomic(join(dir, name), text, { mkdir: true });
}

/** A copy of a video under another name, or with its last byte changed (another content of the same size). */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';

export function copyVideo(from: string, to: string, change = false): string {
  copyFileSync(from, to);
  if (change) {
    const b = readFileSync(to);
    b[b.length - 1] ^= 1;
    writeFileSync(to, b);
  }
  return to;
}

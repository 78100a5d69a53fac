/** A copy of a video under another name, or with its last byte changed (another content of the same size): `change` a number, each number another content. */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';

export function copyVideo(from: string, to: string, change: boolean | number = false): string {
  copyFileSync(from, to);
  if (change !== false && change !== 0) {
    const b = readFileSync(to);
    b[b.length - 1] = (b[b.length - 1]! + (change === true ? 1 : change)) & 0xff;
    writeFileSync(to, b);
  }
  return to;
}

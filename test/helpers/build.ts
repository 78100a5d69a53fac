/** The built CLI (dist/), for tests that run the real binary as a child process. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'vidpub.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds dist/ (node scripts/build.mjs) when it is missing or older than src/ or the build script. */
export function ensureBuilt(): void {
  const main = join(ROOT, 'dist', 'main.js');
  const sources = Math.max(newestMtime(join(ROOT, 'src')), statSync(join(ROOT, 'scripts', 'build.mjs')).mtimeMs);
  if (existsSync(main) && statSync(main).mtimeMs >= sources) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
}

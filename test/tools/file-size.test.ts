/**
 * A file a newcomer reads at once: no source file of src/ is over 400 lines
 * (split by job when one grows past it, as docs/architecture.md says).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

const LIMIT = 400;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|mts|cts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Lines as an editor counts them: a last line without a newline counts, a final newline adds none. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('the size of a source file', () => {
  it('counts lines as an editor does', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('a\n\n')]).toEqual([0, 1, 1, 2, 2]);
  });

  it(`no file of src/ is over ${LIMIT} lines`, () => {
    const files = sources(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(100);
    const over = files.map((f) => [relative(ROOT, f), lineCount(readFileSync(f, 'utf8'))] as const).filter(([, n]) => n > LIMIT);
    expect(over, 'split these by job').toEqual([]);
  });
});

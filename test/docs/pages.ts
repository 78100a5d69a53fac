/** The pages of the manual, for the tests that check them all (manual.test.ts, links.test.ts). */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../support/build.js';

/** README.md, CHANGELOG.md and every Markdown page under docs/ (the generated reference included), as paths from the root. */
export function manualPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return walk(path);
        return name.endsWith('.md') ? [relative(ROOT, path)] : [];
      });
  return ['README.md', 'CHANGELOG.md', ...walk(join(ROOT, 'docs'))];
}

/** The pages of the manual, for the tests that check them all (manual.test.ts, links.test.ts, and the installed package's in tools/pack.test.ts). */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../support/build.js';

/** README.md, CHANGELOG.md and every Markdown page under docs/ (the generated reference included), as paths from the root. */
export function manualPages(root: string = ROOT): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return walk(path);
        return name.endsWith('.md') ? [relative(root, path)] : [];
      });
  return ['README.md', 'CHANGELOG.md', ...walk(join(root, 'docs'))];
}

/** GitHub's anchor of a heading's text. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (outside fenced blocks), a repeated one with -1, -2… */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const f = /^(```+|~~~+)/.exec(line);
    if (f) {
      if (!fence) fence = f[1];
      else if (line.startsWith(fence)) fence = undefined;
      continue;
    }
    const h = fence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!h) continue;
    const base = anchorOf(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** The relative links of a Markdown text, outside fenced blocks and code spans. */
export function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^(```+|~~~+)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l));
}

/** The relative links of `page` (a path from `root`) that reach no file or no heading of it. */
export function brokenLinks(root: string, page: string): string[] {
  const broken: string[] = [];
  for (const link of linksOf(readFileSync(join(root, page), 'utf8'))) {
    const [path, fragment] = link.split('#') as [string, string | undefined];
    const target = path ? join(dirname(join(root, page)), path) : join(root, page);
    if (!existsSync(target)) broken.push(`${link}: no file ${relative(root, target)}`);
    else if (fragment && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(fragment)) broken.push(`${link}: no heading #${fragment} in ${relative(root, target)}`);
  }
  return broken;
}

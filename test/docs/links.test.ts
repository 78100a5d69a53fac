/**
 * Every relative link of the manual (README.md, CHANGELOG.md, docs/) reaches
 * a file that exists and, with a #fragment, a heading of that file (GitHub's
 * anchors: lower case, punctuation but `-` and `_` dropped, spaces as `-`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { manualPages } from './pages.js';

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

describe('links of the manual', () => {
  it('finds headings and links as GitHub does', () => {
    expect([...anchorsOf('# A `b` c\n## Test controls (`/_emulator`)\n```\n# not\n```\n## A b c\n')]).toEqual(['a-b-c', 'test-controls-_emulator', 'a-b-c-1']);
    expect(linksOf('[a](x.md#y) `[b](z.md)` [c](https://e.x) [d](#e)\n```\n[f](g.md)\n```\n')).toEqual(['x.md#y', '#e']);
  });

  for (const page of manualPages()) {
    it(`${page}: every relative link reaches a file and a heading`, () => {
      const broken: string[] = [];
      for (const link of linksOf(readFileSync(join(ROOT, page), 'utf8'))) {
        const [path, fragment] = link.split('#') as [string, string | undefined];
        const target = path ? join(dirname(join(ROOT, page)), path) : join(ROOT, page);
        if (!existsSync(target)) broken.push(`${link}: no file ${relative(ROOT, target)}`);
        else if (fragment && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(fragment)) broken.push(`${link}: no heading #${fragment} in ${relative(ROOT, target)}`);
      }
      expect(broken).toEqual([]);
    });
  }
});

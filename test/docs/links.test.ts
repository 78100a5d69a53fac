/**
 * Every relative link of the manual (README.md, CHANGELOG.md, docs/) reaches
 * a file that exists and, with a #fragment, a heading of that file (GitHub's
 * anchors: lower case, punctuation but `-` and `_` dropped, spaces as `-`).
 */
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { anchorsOf, brokenLinks, linksOf, manualPages } from './pages.js';

describe('links of the manual', () => {
  it('finds headings and links as GitHub does', () => {
    expect([...anchorsOf('# A `b` c\n## Test controls (`/_emulator`)\n```\n# not\n```\n## A b c\n')]).toEqual(['a-b-c', 'test-controls-_emulator', 'a-b-c-1']);
    expect(linksOf('[a](x.md#y) `[b](z.md)` [c](https://e.x) [d](#e)\n```\n[f](g.md)\n```\n')).toEqual(['x.md#y', '#e']);
  });

  for (const page of manualPages()) {
    it(`${page}: every relative link reaches a file and a heading`, () => {
      expect(brokenLinks(ROOT, page)).toEqual([]);
    });
  }
});

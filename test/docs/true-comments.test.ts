/**
 * Measurements live in docs/performance.md, which keeps the decisions and
 * one run's figures in at most 250 lines; a code comment keeps the decision
 * and names that page, never an instruction count, a millisecond or a megabyte
 * it measured (such a figure goes stale the day the code or Node changes).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

/** The files of a folder, recursively, whose names end with one of `exts`. */
function filesUnder(dir: string, exts: readonly string[]): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && exts.some((x) => e.name.endsWith(x)))
    .map((e) => join(e.parentPath, e.name));
}

/** The comment text of a line of JavaScript or TypeScript: after `//`, or a block comment's line. */
function commentOf(line: string): string | undefined {
  const block = /^\s*(\/\*\*?|\*)(?!\/)(.*)$/.exec(line);
  if (block) return block[2];
  const i = line.indexOf('// ');
  return i >= 0 && !/['"`][^'"`]*$/.test(line.slice(0, i)) ? line.slice(i + 3) : undefined;
}

/** A measured figure: instructions counted, CPU time, milliseconds of a cost, a percentage of a run. */
const FIGURE = /(\d\s*M instructions|\d\s*M\b(?! ?i?B)|~\s*\d[\d.]*\s*(ms|s|M|MB|KB|kB)\b|\d\s*ms of CPU|\bcallgrind\b|\d+(\.\d+)?\s?% of (a|the|every)\b)/;

export function figuresInComments(text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const c = commentOf(line);
    return c !== undefined && FIGURE.test(c) ? [`${i + 1}: ${line.trim()}`] : [];
  });
}

describe('true comments', () => {
  it('the figure finder finds a measurement and passes a rule', () => {
    expect(figuresInComments(' * costs ~4 M instructions of every upload')).toHaveLength(1);
    expect(figuresInComments('  // ~25 ms of CPU to load')).toHaveLength(1);
    expect(figuresInComments(' * compiling it cost 14 % of a `vidpub me`')).toHaveLength(1);
    expect(figuresInComments('/** Backoff (default: 500 ms doubling to 8 s). */')).toEqual([]);
    expect(figuresInComments(' * a file of at most 1 GB, in 1 MiB chunks')).toEqual([]);
    expect(figuresInComments("const s = 'x // ~3 ms';")).toEqual([]);
  });

  it('no code comment in src/, bin/ or scripts/ carries a measured figure (they live in docs/performance.md)', () => {
    const files = [
      ...filesUnder(join(ROOT, 'src'), ['.ts']),
      ...filesUnder(join(ROOT, 'bin'), ['.js', '.cjs']),
      ...filesUnder(join(ROOT, 'scripts'), ['.mjs', '.cjs', '.js']),
    ];
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => figuresInComments(readFileSync(f, 'utf8')).map((l) => `${relative(ROOT, f)}:${l}`));
    expect(found).toEqual([]);
  });

  it('docs/performance.md keeps to 250 lines', () => {
    const lines = readFileSync(join(ROOT, 'docs', 'performance.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeGreaterThan(50);
    expect(lines).toBeLessThanOrEqual(250);
  });
});

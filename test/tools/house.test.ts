/**
 * The shape of src/ that lint does not check: no circle of imports anywhere (the one home of that
 * rule), counting the type-only imports and lazy import()s too (a circle of those still ties a
 * folder into one knot); the emulator on the contract, never on the client; api/ grouped by job,
 * its root kept small. The graph is read from the source text (test/support/import-graph.ts),
 * and the check itself is shown to fail on a planted circle.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../support/build.js';
import { circles, importGraph } from '../support/import-graph.js';

const graph = importGraph(ROOT);

describe('the house', () => {
  test('the graph is read: the CLI imports its commands lazily, a type import counts', () => {
    expect(graph.get('src/cli/commands/load.ts')).toContain('src/cli/commands/post.ts');
    expect(graph.get('src/cli/line/render.ts')).toContain('src/cli/line/command-line.ts');
  });

  test('no circle in src/, type-only and lazy imports counted', () => {
    expect(circles(graph)).toEqual([]);
  });

  test('the check finds a circle of type-only and lazy imports, and a file importing itself', () => {
    const planted = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(circles(planted)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  test('nothing in src/emulator/ imports src/api/', () => {
    const intoClient = [...graph].flatMap(([file, targets]) =>
      file.startsWith('src/emulator/') ? targets.filter((t) => t.startsWith('src/api/')).map((t) => `${file} -> ${t}`) : []);
    expect(intoClient).toEqual([]);
  });

  test('api/ is grouped by job: at most 10 files at its root', () => {
    const root = readdirSync(join(ROOT, 'src/api'), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
    expect(root.length, root.join(', ')).toBeLessThanOrEqual(10);
    expect(readdirSync(join(ROOT, 'src/api'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort())
      .toEqual(['net', 'resources', 'send', 'upload', 'wait']);
  });
});

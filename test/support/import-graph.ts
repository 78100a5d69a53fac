/**
 * The import graph of src/ as the source text says it, counting what the lint's cycle rule
 * leaves out: `import type`, `export ... from` and lazy `import()` (a circle of those still ties
 * a folder into one knot). Relative specifiers only; `./x.js` names `x.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every file of `root` (repo-relative paths) with the files it imports. */
export function importGraph(repo: string, root = 'src'): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(resolve(repo, root))) {
    // Comments left out (a doc comment may quote an import); a line comment only where it starts a line.
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const targets = new Set<string>();
    for (const m of text.matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), m[2]!).replace(/\.js$/, '.ts');
      targets.add(relative(repo, target));
    }
    graph.set(relative(repo, file), [...targets]);
  }
  return graph;
}

/** The strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

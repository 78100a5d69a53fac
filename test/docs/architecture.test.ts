/**
 * docs/architecture.md lists the layers as eslint.config.js orders them
 * (LAYERS, from which lint makes each folder's forbidden imports), and its
 * project layout names every folder and file of src/, every folder of test/
 * and every bundle the build writes to dist/.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../support/build.js';

/** LAYERS of eslint.config.js, each layer as its names joined by a space. */
function lintLayers(): string[] {
  const text = readFileSync(join(ROOT, 'eslint.config.js'), 'utf8');
  const list = /const LAYERS = \[([\s\S]*?)\n\];/.exec(text)?.[1];
  expect(list, 'LAYERS in eslint.config.js').toBeDefined();
  return [...list!.matchAll(/\[([^\]]*)\]/g)].map((m) => [...m[1]!.matchAll(/'([^']+)'/g)].map((n) => n[1]).join(' '));
}

/** The block under "## The layers" of docs/architecture.md, a layer a line. */
function pageLayers(): string[] {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = page.split('\n## The layers\n')[1]!.split('\n## ')[0]!;
  return /```\n([\s\S]*?)\n```/.exec(section)![1]!.split('\n');
}

describe('docs/architecture.md', () => {
  it('lists the layers of eslint.config.js, in its order', () => {
    const layers = lintLayers();
    expect(layers).toContain('cli');
    expect(pageLayers()).toEqual(layers);
  });

  describe('the project layout', () => {
    beforeAll(() => ensureBuilt());

    /** The block under "## Project layout and development": one entry per line that starts at column 0, with its continuation lines. */
    function layoutEntries(): string[] {
      const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
      const section = page.split('\n## Project layout and development\n')[1]!.split('\n## ')[0]!;
      const block = /```\n([\s\S]*?)\n```/.exec(section)![1]!;
      return block.split(/\n(?=\S)/);
    }
    const named = (entries: string[], path: string) => entries.some((e) => e.split(/\s+/).some((w) => w.replace(/[,;:()]+$/, '') === path));
    const entries = layoutEntries();

    it('names every folder and file directly in src/ (as src/NAME/ or src/NAME.ts)', () => {
      const src = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).map((e) => (e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`));
      expect(src).toContain('src/time/');
      expect(src.filter((path) => !named(entries, path))).toEqual([]);
    });

    it('names every folder of test/ in its test/ entry', () => {
      const entry = entries.find((e) => e.startsWith('test/'));
      expect(entry).toBeDefined();
      const words = new Set(entry!.split(/[\s,;:()]+/));
      const folders = readdirSync(join(ROOT, 'test'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
      expect(folders).toContain('support');
      expect(folders.filter((name) => !words.has(name) && !words.has(`${name}/`))).toEqual([]);
    });

    it('names every bundle the build writes to dist/ (as dist/NAME)', () => {
      const bundles = readdirSync(join(ROOT, 'dist')).filter((f) => /\.(c?js)$/.test(f)).map((f) => `dist/${f}`);
      expect(bundles).toContain('dist/upload.js');
      expect(bundles.filter((path) => !entries.some((e) => e.includes(path)))).toEqual([]);
    });
  });

  it('names the six bands as eslint.config.js names them', () => {
    const bands = (text: string) => /six bands: ([\s\S]*?\))\./.exec(text.replace(/\n\s*\*?\s*/g, ' '))?.[1];
    const lint = bands(readFileSync(join(ROOT, 'eslint.config.js'), 'utf8'));
    expect(lint).toContain('the flows (posts, media, mcp)');
    expect(bands(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'))).toBe(lint);
  });
});

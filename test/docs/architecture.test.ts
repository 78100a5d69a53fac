/**
 * docs/architecture.md lists the layers as eslint.config.js orders them
 * (LAYERS, from which lint makes each folder's forbidden imports).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

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
});

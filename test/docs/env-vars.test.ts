/**
 * Every environment variable the code reads is in the manual's table of
 * environment variables (docs/configuration.md), and the table names none
 * that nothing reads.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

/** Names read as env.NAME, env['NAME'] or process.env.NAME. */
function readNames(text: string): string[] {
  return [...text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)].map((m) => (m[1] ?? m[2])!);
}

function manualTable(): string[] {
  const page = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  const section = page.split('\n## Environment variables')[1]!.split('\n## ')[0]!;
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!);
}

describe('the environment variables of the manual', () => {
  it('the table lists every variable read in src/ and bin/, and nothing else', () => {
    const read = new Set([...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bin'))].flatMap((f) => readNames(readFileSync(f, 'utf8'))));
    // Sanity: the scan finds what we know is read.
    expect([...read]).toEqual(expect.arrayContaining(['VIDPUB_API_KEY', 'NO_COLOR', 'HOME', 'APPDATA']));
    const table = manualTable();
    expect([...read].filter((name) => !table.includes(name)).sort(), 'read by the code, missing from the table').toEqual([]);
    expect(table.filter((name) => !read.has(name)).sort(), 'in the table, read by nothing').toEqual([]);
  });

  it('finds names in each way the code reads them', () => {
    expect(readNames("env.NO_COLOR; process.env.TZ; env['XDG_CONFIG_HOME']; env.foo")).toEqual(['NO_COLOR', 'TZ', 'XDG_CONFIG_HOME']);
  });
});

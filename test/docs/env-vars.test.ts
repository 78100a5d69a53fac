/**
 * The environment variables: one list (src/cli/io/environment.ts) holds every
 * variable the code reads and nothing else, and `vidpub help environment`,
 * vidpub(1)'s ENVIRONMENT and docs/commands/environment.md show it.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentVariables, plainEnvText } from '../../src/cli/io/environment.js';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

/** Names read as env.NAME, env['NAME'] or process.env.NAME: upper case, or lower case with an underscore (`http_proxy`). */
function readNames(text: string): string[] {
  const name = '[A-Z][A-Z0-9_]*|[a-z][a-z0-9]*_[a-z0-9_]+';
  return [...text.matchAll(new RegExp(`\\benv(?:\\.(${name})\\b|\\[['"](${name})['"]\\])`, 'g'))].map((m) => (m[1] ?? m[2])!);
}

const listed = environmentVariables().map((v) => v.name);
/** Every spelling the list names: a variable's own and the others it reads (`https_proxy`). */
const spelled = environmentVariables().flatMap((v) => [v.name, ...(v.also ?? [])]);

describe('the environment variables', () => {
  it('the list names every variable read in src/ and bin/, once, and nothing else', () => {
    const read = new Set([...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bin'))].flatMap((f) => readNames(readFileSync(f, 'utf8'))));
    // Sanity: the scan finds what we know is read.
    expect([...read]).toEqual(expect.arrayContaining(['VIDPUB_API_KEY', 'NO_COLOR', 'HOME', 'APPDATA', 'TZ', 'XDG_CONFIG_HOME', 'CI']));
    expect([...read].filter((name) => !spelled.includes(name)).sort(), 'read by the code, missing from src/cli/io/environment.ts').toEqual([]);
    expect(spelled.filter((name) => !read.has(name)).sort(), 'in the list, read by nothing').toEqual([]);
    expect(new Set(spelled).size).toBe(spelled.length);
  });

  it('finds names in each way the code reads them', () => {
    expect(readNames("env.NO_COLOR; process.env.TZ; env['XDG_CONFIG_HOME']; env.foo; env.http_proxy")).toEqual(['NO_COLOR', 'TZ', 'XDG_CONFIG_HOME', 'http_proxy']);
  });

  it('the reference page and the man page hold every variable of the list', () => {
    const page = readFileSync(join(ROOT, 'docs/commands/environment.md'), 'utf8');
    const rows = [...page.matchAll(/^\| `([A-Za-z][A-Za-z0-9_]*)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual(listed);
    const man = readFileSync(join(ROOT, 'man/vidpub.1'), 'utf8');
    const section = man.split('\n.SH ENVIRONMENT\n')[1]!.split('\n.SH ')[0]!;
    expect([...section.matchAll(/^\\fB([A-Za-z0-9_\\-]+)\\fR$/gm)].map((m) => m[1]!.replace(/\\-/g, '-'))).toEqual(listed);
  });

  it('vidpub help environment prints each variable and its meaning, and exits 0', async () => {
    ensureBuilt();
    const env = { ...process.env, NO_COLOR: '1' };
    const r = await runAsync(process.execPath, [BIN, 'help', 'environment'], { env });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const names = r.stdout.split('\n').filter((l) => /^[A-Za-z][A-Za-z0-9_]+$/.test(l));
    expect(names).toEqual(listed);
    // Each meaning follows its name, indented, without the Markdown back quotes.
    const lines = r.stdout.split('\n');
    const tz = lines.indexOf('TZ');
    expect(lines[tz + 1]).toMatch(/^ {4}the zone of local --at times/);
    expect(r.stdout).not.toContain('`');
    expect(r.stdout).toContain(plainEnvText(environmentVariables().find((v) => v.name === 'VIDPUB_PROFILE')!).replace(/`/g, ''));
    // A piped stdout has no columns: wrapped at the default width.
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
  });
});

/**
 * The Dockerfile cannot be built here (no container engine) and no Dockerfile linter comes as a
 * Debian or npm package, so this reads it: its stages, that the last runs as a user that is not
 * root, and that what it copies is what the build makes (scripts/build-sea.mjs writes
 * dist/sea/vidpub-linux-<arch>; test/ci/sea.test.ts runs that executable).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

interface Instruction {
  op: string;
  args: string;
}

/** The instructions, by stage: comments dropped, continued lines joined. */
function stages(text: string): { from: string; name?: string; body: Instruction[] }[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const out: { from: string; name?: string; body: Instruction[] }[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!op || args === undefined) throw new Error(`Dockerfile: cannot read "${line}"`);
    if (op.toUpperCase() === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      out.push({ from: from!, name, body: [] });
    } else {
      if (!out.length) throw new Error(`Dockerfile: ${op} before any FROM`);
      out.at(-1)!.body.push({ op: op.toUpperCase(), args });
    }
  }
  return out;
}

const dockerfile = stages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const build = dockerfile[0]!;
const runtime = dockerfile.at(-1)!;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; engines: { node: string } };

describe('Dockerfile', () => {
  it('builds on Node 20 in one stage and ships from a slim base in another', () => {
    expect(dockerfile).toHaveLength(2);
    expect(build.from).toMatch(/^node:20\b/);
    expect(pkg.engines.node).toMatch(/^>=20\./);
    expect(runtime.from).toMatch(/-slim$/);
    expect(runtime.from).not.toMatch(/^node:/);
  });

  it('builds the single executable with the npm script that makes it', () => {
    const runs = build.body.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs).toContain('npm run build:sea');
    expect(pkg.scripts['build:sea']).toBe('node scripts/build-sea.mjs');
    expect(readFileSync(join(ROOT, 'scripts', 'build-sea.mjs'), 'utf8')).toContain("new URL('dist/sea', root)");
  });

  it('copies the executable the build writes, and runs it as a user that is not root', () => {
    const workdir = build.body.find((i) => i.op === 'WORKDIR')!.args;
    const copy = runtime.body.find((i) => i.op === 'COPY' && i.args.startsWith('--from='));
    expect(copy?.args).toBe(`--from=${build.name} ${workdir}/dist/sea/vidpub-linux-x64 /usr/local/bin/vidpub`);
    const ops = runtime.body.map((i) => i.op);
    const user = runtime.body.find((i) => i.op === 'USER')!.args;
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.body.find((i) => i.op === 'RUN')?.args).toMatch(new RegExp(`useradd .*\\b${user}$`));
    expect(ops.indexOf('USER')).toBeGreaterThan(ops.indexOf('COPY'));
    expect(ops.slice(ops.indexOf('USER')).filter((op) => op === 'RUN')).toEqual([]);
    expect(runtime.body.find((i) => i.op === 'ENTRYPOINT')?.args).toBe('["/usr/local/bin/vidpub"]');
  });

  it('keeps the checkout\'s build output and modules out of the context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
  });
});

/**
 * The layer rule of eslint.config.js, on planted files: a copy of the config
 * runs over a small src/ made here, so the real src/ need not be clean. An
 * upward import (static, type-only or import()) fails lint with its message
 * (circles are test/tools/house.test.ts's); a downward import and a peer import pass; a
 * folder that has no place in LAYERS stops lint. Inside posts/, the post
 * pipeline (posts/post/) may use the rest of posts/, which never imports it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../support/build.js';

/** Files of the planted src/, by path under it. */
const PLANTED: Record<string, string> = {
  'errors.ts': 'export class Oops extends Error {}\n',
  'cli/main.ts': 'export const main = (): number => 0;\n',
  'batch/run-batch.ts': 'export const runBatch = (): number => 1;\n',
  'journal/journal.ts': 'export interface Journal { note(): void }\n',
  'mcp/server.ts': 'export const serve = (): number => 2;\n',
  // legal: down to the bottom, and across to a peer of the same layer
  'util/down.ts': "import { Oops } from '../errors.js';\nexport const fail = (): Oops => new Oops();\n",
  'api/down.ts': "import { fail } from '../util/down.js';\nexport const call = (): Error => fail();\n",
  'posts/peer.ts': "import { serve } from '../mcp/server.js';\nexport const post = (): number => serve();\n",
  // the post pipeline (posts/post/) on what the other flows of posts/ share, never under it
  'posts/post/flow.ts': "import { post } from '../peer.js';\nexport const runPost = (): number => post();\n",
  'posts/up-pipeline.ts': "import { runPost } from './post/flow.js';\nexport const publish = (): number => runPost();\n",
  // upward
  'util/up-static.ts': "import { main } from '../cli/main.js';\nexport const up = (): number => main();\n",
  'media/up-dynamic.ts': "export const load = async (): Promise<number> => (await import('../batch/run-batch.js')).runBatch();\n",
  'api/up-type.ts': "import type { Journal } from '../journal/journal.js';\nexport const noted = (j: Journal): void => j.note();\n",
  // the emulator stands on the contract, never on the client (api/), though api/ is below it
  'contract/record.ts': "export interface Record { id: string }\n",
  'emulator/on-contract.ts': "import type { Record } from '../contract/record.js';\nexport const make = (): Record => ({ id: 'x' });\n",
  'emulator/on-client.ts': "import { call } from '../api/down.js';\nexport const seed = (): Error => call();\n",
};

/** A directory holding a copy of eslint.config.js, the repo's node_modules, and src/ with these files. */
function plant(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-layers-'));
  copyFileSync(join(ROOT, 'eslint.config.js'), join(dir, 'eslint.config.js'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, 'src', path)), { recursive: true });
    writeFileSync(join(dir, 'src', path), text);
  }
  return dir;
}

const dirs: string[] = [];
/** Lint problems per planted file (path under src/), as "rule: message". */
let problems: Map<string, string[]>;

beforeAll(async () => {
  const dir = plant(PLANTED);
  dirs.push(dir);
  const results = await new ESLint({ cwd: dir }).lintFiles(['src/**/*.ts']);
  problems = new Map(results.map((r) => [r.filePath.slice(join(dir, 'src').length + 1), r.messages.map((m) => `${m.ruleId}: ${m.message}`)]));
}, 60_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('layers and circles (eslint.config.js)', () => {
  test('an upward static import fails with the layer message', () => {
    expect(problems.get('util/up-static.ts')).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*src\/util\/ must not import src\/cli\/, a layer above it: dependencies point down \(the order is LAYERS in eslint\.config\.js\)/),
    ]);
  });

  test('an upward import() fails with the layer message', () => {
    expect(problems.get('media/up-dynamic.ts')).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*src\/media\/ must not import src\/batch\/, a layer above it/),
    ]);
  });

  test('an upward type-only import fails too (api/ under journal/)', () => {
    expect(problems.get('api/up-type.ts')).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*src\/api\/ must not import src\/journal\/, a layer above it/),
    ]);
  });

  test('downward imports and a peer in the same layer pass', () => {
    for (const file of ['util/down.ts', 'api/down.ts', 'posts/peer.ts', 'posts/post/flow.ts', 'errors.ts']) expect(problems.get(file), file).toEqual([]);
  });

  test('the emulator importing the client (api/) fails with its message; the contract passes', () => {
    expect(problems.get('emulator/on-client.ts')).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*src\/emulator\/ must not import src\/api\/: the emulator models the service and shares only src\/contract\//),
    ]);
    expect(problems.get('emulator/on-contract.ts')).toEqual([]);
  });

  test('a file of posts/ that imports the post pipeline (posts/post/) fails with its message', () => {
    expect(problems.get('posts/up-pipeline.ts')).toEqual([
      expect.stringMatching(/^import-x\/no-restricted-paths: .*src\/posts\/post\/ is the post pipeline: the other flows of src\/posts\/ and what they share sit under it/),
    ]);
  });

  test('a folder of src/ with no place in LAYERS stops lint, naming it', async () => {
    const dir = plant({ 'errors.ts': 'export {};\n', 'stray/thing.ts': 'export {};\n' });
    dirs.push(dir);
    await expect(new ESLint({ cwd: dir }).lintFiles(['src/**/*.ts'])).rejects.toThrow(/src\/stray has no place in LAYERS/);
  });
});

// Generates the command reference from the command registry: docs/commands/*.md
// and the man pages man/vidpub.1, man/vidpub-COMMAND.1 (the renderers are
// src/cli/reference/). `npm run docs:gen` runs it; test/docs/reference.test.ts
// fails while the committed files differ from what it writes.
//
//   node scripts/gen-reference.mjs [--out DIR]   (default: this checkout)
//
// Into this checkout it also sets package.json's "man" (the pages npm
// installs) to the man pages it wrote.
//
// The registry and the commands' modules are TypeScript: they are bundled with
// esbuild, as the build does, into a file beside the sources (so that their
// dependencies resolve from node_modules), imported, and deleted.
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const USAGE = 'usage: node scripts/gen-reference.mjs [--out DIR]';

function parseArgs(argv) {
  if (argv.length === 0) return { out: root };
  if (argv[0] === '--out' && argv.length === 2 && argv[1] !== '') return { out: resolve(argv[1]) };
  return { error: `unexpected arguments: ${argv.join(' ')}\n${USAGE}` };
}

/** src/cli/reference/index.ts, bundled and imported. */
async function loadRenderer(version) {
  const tmp = join(root, `dist.tmp-reference-${process.pid}`);
  // Loaded here, not at the top: a run that only refuses its arguments does not pay for it.
  const { build } = await import('esbuild');
  try {
    await build({
      absWorkingDir: root,
      entryPoints: ['src/cli/reference/index.ts'],
      outfile: join(tmp, 'reference.mjs'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      packages: 'external',
      logLevel: 'warning',
      define: { __VIDPUB_VERSION__: JSON.stringify(version) },
    });
    return await import(pathToFileURL(join(tmp, 'reference.mjs')).href);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function readOrNull(path) {
  return readFile(path, 'utf8').catch((err) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
}

/** Writes `files` under `out`; deletes what else is in the reference's directories. Returns the paths changed. */
async function writeAll(out, files, dirs) {
  const changed = [];
  for (const dir of dirs) {
    const entries = await readdir(join(out, dir)).catch(() => []);
    for (const name of entries) {
      const rel = `${dir}/${name}`;
      if (files.has(rel)) continue;
      await rm(join(out, rel), { recursive: true, force: true });
      changed.push(`${rel} (deleted)`);
    }
  }
  for (const [rel, text] of files) {
    const path = join(out, rel);
    if ((await readOrNull(path)) === text) continue;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    changed.push(rel);
  }
  return changed;
}

/** package.json's "man": every man page, so that npm installs them. */
async function setManField(pkg, files) {
  const man = [...files.keys()].filter((rel) => rel.startsWith('man/')).sort().map((rel) => `./${rel}`);
  if (JSON.stringify(pkg.man) === JSON.stringify(man)) return [];
  await writeFile(join(root, 'package.json'), JSON.stringify({ ...pkg, man }, null, 2) + '\n');
  return ['package.json (man)'];
}

const args = parseArgs(process.argv.slice(2));
if (args.error) {
  console.error(args.error);
  process.exitCode = 2;
} else {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const { renderReference, REFERENCE_DIRS } = await loadRenderer(pkg.version);
  const files = await renderReference(pkg.version);
  const changed = await writeAll(args.out, files, REFERENCE_DIRS);
  if (args.out === root) changed.push(...(await setManField(pkg, files)));
  console.log(`${files.size} files in ${REFERENCE_DIRS.join('/ and ')}/: ${changed.length ? `${changed.length} changed: ${changed.join(', ')}` : 'none changed'}`);
}

// Builds dist/ with esbuild (see docs/tools.md, "Start-up", for the numbers):
//
// - dist/main.js + chunks: src/index.ts as ESM with code splitting, so each
//   command and each heavy dependency is its own chunk, loaded only when used.
//   Dependencies are bundled into the chunks: Node's ESM loader pays per file
//   it resolves and loads, and a bundled dependency starts much faster than
//   the same package from node_modules. The few that do not bundle cleanly
//   or gain nothing (EXTERNAL) stay imports of node_modules.
// - dist/fast.cjs: the command registry and the root help renderer, as
//   CommonJS with no dependency, for bin/vidpub.js to answer --version and
//   --help without starting the ESM loader.
// - dist/assets/clip.mp4: the demo's sample video (test/fixtures/clip.mp4).
//
// The build goes to a temporary dir that then replaces dist/ in two renames,
// so a vidpub running from this checkout (tests run in parallel) never sees a
// half-written dist/.
//
// `node scripts/build.mjs --external-all` keeps every dependency external
// (the layout before bundling), for comparing start-up times.
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, rename, rm } from 'node:fs/promises';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));
const externalAll = process.argv.includes('--external-all');

/**
 * Left in node_modules: fastify (the emulator: plugins found at run time,
 * start-up not on a user's hot path) and the MCP SDK (loaded once by a
 * long-running server).
 */
const EXTERNAL = ['fastify', '@fastify/*', '@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'];

// Bundled CommonJS packages (commander, ...) call require() for Node's
// built-ins; an ESM chunk has no require, so each chunk gets one.
const requireShim = "import { createRequire as __vidpubCreateRequire } from 'node:module';\nconst require = __vidpubCreateRequire(import.meta.url);";

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  define: { __VIDPUB_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
  absWorkingDir: new URL('.', root).pathname,
};

const out = `dist.tmp-${process.pid}`;
await rm(new URL(out, root), { recursive: true, force: true });

try {
  await build({
    ...common,
    entryPoints: { main: 'src/index.ts' },
    outdir: out,
    splitting: true,
    format: 'esm',
    chunkNames: '[name]-[hash]',
    ...(externalAll ? { packages: 'external' } : { external: EXTERNAL, banner: { js: requireShim } }),
  });

  await build({
    ...common,
    stdin: {
      contents: "export { fastPath } from './src/cli/root-help.ts';\nexport const VERSION = __VIDPUB_VERSION__;\n",
      resolveDir: new URL('.', root).pathname,
      sourcefile: 'fast-entry.ts',
      loader: 'ts',
    },
    outfile: `${out}/fast.cjs`,
    format: 'cjs',
    plugins: [
      {
        // The registry's load() functions import the command modules; the fast
        // path never calls them, so they are not bundled into fast.cjs.
        name: 'registry-loaders-stay-out',
        setup(b) {
          b.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) =>
            /[\\/]src[\\/]cli[\\/]commands[\\/]index\.ts$/.test(args.importer) ? { path: args.path, external: true } : undefined,
          );
        },
      },
    ],
  });

  await mkdir(new URL(`${out}/assets`, root), { recursive: true });
  await copyFile(new URL('test/fixtures/clip.mp4', root), new URL(`${out}/assets/clip.mp4`, root));
} catch (err) {
  await rm(new URL(out, root), { recursive: true, force: true });
  throw err;
}

// Swap: move the old dist/ aside, put the new one in place. Another build
// finishing at the same moment can put its dist/ back in between: retry.
const old = `dist.old-${process.pid}`;
for (let attempt = 1; ; attempt++) {
  await rename(new URL('dist', root), new URL(old, root)).catch((err) => {
    if (err.code !== 'ENOENT') throw err;
  });
  try {
    await rename(new URL(out, root), new URL('dist', root));
    break;
  } catch (err) {
    if (attempt >= 5 || (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST')) throw err;
  } finally {
    await rm(new URL(old, root), { recursive: true, force: true });
  }
}

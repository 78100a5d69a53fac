// Builds dist/sea/vidpub-linux-x64 (`npm run build:sea`): vidpub as one
// executable, for machines without Node (CI runners, the container image),
// through Node's single executable applications (SEA, Node >= 20.12):
//
// 1. esbuild bundles bin/vidpub.js into dist/sea/vidpub.cjs, ONE CommonJS file
//    with everything inside: a SEA's require() loads only Node's built-ins, so
//    nothing may stay in node_modules. What bin/vidpub.js loads from dist/ (the
//    fast path, the CLI, the slim bundles) comes from a table of bundled modules
//    instead (two lines of it are rewritten, checked below); the emulator and
//    the heavy modules the normal build leaves out (HEAVY there) are bundled in.
//    bin/vidpub.js keeps its signal handling and its process.exit.
// 2. node --experimental-sea-config sea-config.json makes the blob: the bundle,
//    V8's code cache of it (useCodeCache: start-up then deserializes rather
//    than parses ~3 MB) and the demo's sample video as an asset (src/cli/demo/
//    sample.ts reads it with node:sea's getAsset).
// 3. A copy of this node binary gets the blob injected by postject.
//
// dist/ itself (npm run build) is left as it is: this goes to dist/sea/ only,
// and the normal build's start-up is untouched.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = new URL('../', import.meta.url);
const rootPath = new URL('.', root).pathname;
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));
const seaConfig = JSON.parse(await readFile(new URL('sea-config.json', root), 'utf8'));

/** The bundles bin/vidpub.js loads from dist/, by the path it names them with. */
const MODULES = `
const cli = () => require('./src/index.ts');
module.exports = {
  '../dist/fast.cjs': () => require('vidpub-sea:fast'),
  '../dist/main.js': cli,
  '../dist/me.js': cli,
  '../dist/upload.js': cli,
};
`;
/** dist/fast.cjs's entry, as scripts/build.mjs makes it. */
const FAST = "export { fastPath } from './src/cli/fast-path.ts';\nexport const VERSION = __VIDPUB_VERSION__;\n";
/** bin/compile-cache.js: V8's code cache of the bundle is the SEA's own (useCodeCache). */
const COMPILE_CACHE = "const modules = require('vidpub-sea:modules');\nexports.requireCached = (file) => ({ exports: modules[file](), save() {} });\n";

/** Exact text of bin/vidpub.js replaced in the executable; the build fails when it changes. */
const BIN_REWRITES = [
  ['return require(built(path));', "return require('vidpub-sea:modules')[path]();"],
  ['requireCached(built(bundle), process.env)', 'requireCached(bundle, process.env)'],
];

function rewrite(file, code, rewrites) {
  for (const [from, to] of rewrites) {
    if (!code.includes(from)) throw new Error(`${file}: no "${from}" to rewrite for the single executable; check scripts/build-sea.mjs`);
    code = code.replace(from, to);
  }
  return code;
}

/** Runs a step of the build; its output (postject warns about ELF notes it skips) only if it fails. */
function quiet(command, args) {
  try {
    execFileSync(command, args, { cwd: rootPath, stdio: 'pipe' });
  } catch (err) {
    throw new Error(`${basename(args[0])} failed:\n${err.stdout}${err.stderr}`);
  }
}

const sea = {
  name: 'vidpub-sea',
  setup(b) {
    const virtual = { 'vidpub-sea:modules': MODULES, 'vidpub-sea:fast': FAST, 'vidpub-sea:compile-cache': COMPILE_CACHE };
    b.onResolve({ filter: /^vidpub-sea:/ }, (args) => ({ path: args.path, namespace: 'vidpub-sea' }));
    b.onResolve({ filter: /^\.\/compile-cache\.js$/ }, () => ({ path: 'vidpub-sea:compile-cache', namespace: 'vidpub-sea' }));
    b.onLoad({ filter: /.*/, namespace: 'vidpub-sea' }, (args) => ({
      contents: virtual[args.path],
      loader: args.path === 'vidpub-sea:fast' ? 'ts' : 'js',
      resolveDir: rootPath,
    }));
    b.onLoad({ filter: /[\\/]bin[\\/]vidpub\.js$/ }, async (args) => ({
      contents: rewrite(args.path, await readFile(args.path, 'utf8'), BIN_REWRITES),
      loader: 'js',
    }));
    // createRequire(import.meta.url)(x) loads a module lazily and synchronously from node_modules
    // (zod for the fixture schema): here a plain require(x), which esbuild bundles (still lazily).
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const code = await readFile(args.path, 'utf8');
      return { contents: code.replaceAll('createRequire(import.meta.url)(', 'require('), loader: 'ts' };
    });
  },
};

/**
 * import() does not work in a SEA's main script compiled with a code cache (Node's SEA docs), and
 * only built-ins are left to import: each import( becomes a require on the next tick. Fails when
 * anything but a built-in is still outside the bundle.
 */
async function routeImports(file, metafile) {
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const outside = Object.values(metafile.outputs)
    .flatMap((o) => o.imports)
    .filter((i) => i.external && !builtins.has(i.path) && !i.path.startsWith('node:'));
  if (outside.length) throw new Error(`the single executable cannot load ${[...new Set(outside.map((i) => i.path))].join(', ')} from outside itself`);
  const code = await readFile(file, 'utf8');
  const nl = code.indexOf('\n');
  const routed = code.slice(nl + 1).replace(/\bimport\(/g, '__vidpubSeaImport(');
  await writeFile(file, code.slice(0, nl + 1) + routed);
}

// --out DIR: build there instead of dist/sea/ (the tests do, so that a concurrent `npm run build`,
// which replaces dist/ whole, cannot take the executable away from under them).
const outArg = process.argv.indexOf('--out');
const outDir = outArg > 0 ? resolve(process.argv[outArg + 1]) : new URL('dist/sea', root).pathname;
if (process.platform !== 'linux') throw new Error(`the single executable is built on Linux only (this is ${process.platform})`);
const exe = join(outDir, `vidpub-linux-${process.arch}`);
const bundle = join(outDir, basename(seaConfig.main));
const blob = join(outDir, basename(seaConfig.output));
const started = performance.now();
await mkdir(outDir, { recursive: true });
const result = await build({
  absWorkingDir: rootPath,
  entryPoints: ['bin/vidpub.js'],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [sea],
  define: { __VIDPUB_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__vidpubModuleUrl' },
  banner: {
    js: [
      "const __vidpubModuleUrl = require('node:url').pathToFileURL(__filename).href;",
      'const __vidpubSeaImport = (specifier) => Promise.resolve().then(() => require(specifier));',
    ].join(' '),
  },
});
await routeImports(bundle, result.metafile);
const bundled = performance.now();

// sea-config.json with this build's paths (its asset paths are relative to the checkout).
const config = join(outDir, 'sea-config.json');
await writeFile(config, JSON.stringify({ ...seaConfig, main: bundle, output: blob }));
quiet(process.execPath, ['--experimental-sea-config', config]);
const tmp = `${exe}.tmp-${process.pid}`;
await copyFile(process.execPath, tmp);
await chmod(tmp, 0o755);
const postject = new URL('node_modules/postject/dist/cli.js', root).pathname;
quiet(process.execPath, [postject, tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2']);
await rename(tmp, exe);
await Promise.all([blob, config].map((f) => rm(f, { force: true })));
const ms = (t) => `${Math.round(t)} ms`;
process.stderr.write(`${exe}: bundled in ${ms(bundled - started)}, blob and injection in ${ms(performance.now() - bundled)}\n`);

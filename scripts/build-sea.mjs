// Builds dist/sea/vidpub-linux-x64 (`npm run build:sea`): vidpub as one
// executable, for machines without Node (CI runners, the container image),
// through Node's single executable applications (SEA, Node >= 20.12).
//
// Start-up is the design's constraint: within 10% of `node bin/vidpub.js`
// (bench/sea-startup.bench.mjs). So the executable runs what the normal install
// runs, from the same files, the same lazy way:
//
// 1. `npm run build` (scripts/build.mjs) makes dist/; its bundles (main.js, the
//    slim me.js and upload.js, emulator.js) become assets of the executable as
//    they are (emulator.js's import() routed like main.js's).
// 2. Each heavy dependency the bundles load lazily from node_modules (found in
//    their text) is bundled by esbuild into an asset of its own: one per
//    package, or per group of packages that must share one copy (SHARED).
// 3. The main script is bin/vidpub.js with the fast path (dist/fast.cjs's
//    source) and scripts/sea/loader.cjs in place of bin/compile-cache.js: 20 KB.
//    (sea-config.json's useCodeCache is off: for a script this small it made no
//    difference, measured with bench/sea-startup.bench.mjs.)
//    `--version` and `--help` never touch an asset; any other command compiles
//    the assets it needs through a code cache kept on disk (see the loader).
// 4. node --experimental-sea-config makes the blob (the main script and the
//    assets: the bundles, the dependencies, the demo's sample video), and a copy
//    of this node binary gets it injected by postject.
//
// Step 1 replaces dist/ (atomically, as `npm run build` always does; --no-build skips it and uses dist/ as is); the
// executable goes to dist/sea/, or --out DIR.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = new URL('../', import.meta.url);
const rootPath = new URL('.', root).pathname;
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));
const seaConfig = JSON.parse(await readFile(new URL('sea-config.json', root), 'utf8'));

/** The bundles of dist/ that become assets under the same names (bin/vidpub.js picks one). */
const BUNDLES = ['main.js', 'me.js', 'upload.js', 'emulator.js'];
/** Packages that must be one copy in the process: the asset they share. */
const SHARED = { '@modelcontextprotocol/sdk': 'mcp', zod: 'mcp' };
/** dist/fast.cjs's entry, as scripts/build.mjs makes it: part of the main script here. */
const FAST = "export { fastPath } from './src/cli/line/fast-path.ts';\nexport const VERSION = __VIDPUB_VERSION__;\n";

/** Exact text of bin/vidpub.js replaced in the executable; the build fails when it changes. */
const BIN_REWRITES = [
  ['return require(built(path));', "return require('vidpub-sea:fast');"],
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

/** Node's built-ins, node:sea and node:test included (only with the prefix, so not in builtinModules). */
const builtins = new Set(builtinModules);
const isBuiltin = (id) => id.startsWith('node:') || builtins.has(id);

/**
 * Every import() of a bundle goes through __vidpubImport (the loader's), as scripts/build.mjs
 * routes main.js's: the executable's scripts run without a dynamic import callback. The first
 * line (a banner, which may define a fallback) is left as it is.
 */
function routeImports(code) {
  const nl = code.indexOf('\n');
  return code.slice(0, nl + 1) + code.slice(nl + 1).replace(/\bimport\(/g, '__vidpubImport(');
}

/**
 * dist/'s bundles, read at once after the build (a concurrent build may swap dist/ again).
 * --no-build: dist/ as it is, built by the caller (the tests build it once for the whole run).
 */
async function readBundles() {
  if (!process.argv.includes('--no-build')) quiet(process.execPath, ['scripts/build.mjs']);
  for (let attempt = 1; ; attempt++) {
    try {
      return Object.fromEntries(await Promise.all(BUNDLES.map(async (name) => [name, routeImports(await readFile(new URL(`dist/${name}`, root), 'utf8'))])));
    } catch (err) {
      if (err.code !== 'ENOENT' || attempt >= 5) throw err;
    }
  }
}

/**
 * The modules the bundles load from node_modules, by specifier: 'require' or 'import' or both.
 * The loader's node:module is createRequire() alone: the build checks nothing else is used.
 */
function dependencies(bundles) {
  const found = new Map();
  const patterns = [
    [/\brequire\("([^"]+)"\)/g, 'require'],
    [/\bcreateRequire\)\(__vidpubModuleUrl\)\("([^"]+)"\)/g, 'require'],
    [/\b__vidpubImport\("([^"]+)"\)/g, 'import'],
  ];
  for (const [name, code] of Object.entries(bundles)) {
    const other = /\bimport_node_module\d*\.(?!createRequire\b)\w+/.exec(code);
    if (other) throw new Error(`dist/${name} uses ${other[0]}: the single executable's node:module has createRequire only (scripts/sea/loader.cjs)`);
    for (const [re, kind] of patterns) {
      for (const [, id] of code.matchAll(re)) {
        if (isBuiltin(id) || id.startsWith('.')) continue;
        found.set(id, new Set([...(found.get(id) ?? []), kind]));
      }
    }
  }
  return found;
}

/** The asset a package goes in: dep-<package>.js, or the SHARED group's. */
function assetOf(id) {
  const name = id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0];
  return `dep-${(SHARED[name] ?? name).replace(/^@/, '').replace(/\//g, '-')}.js`;
}

/**
 * Bundles each dependency asset: { imports, requires }, a function per specifier, which the
 * loader calls on first need (esbuild gives import() Node's namespace, a CommonJS module's
 * exports as its default). Fails when anything but a built-in is left outside.
 */
async function buildDependencies(deps) {
  const assets = new Map();
  for (const [id, kinds] of deps) {
    const entry = assets.get(assetOf(id)) ?? { imports: [], requires: [] };
    if (kinds.has('import')) entry.imports.push(`${JSON.stringify(id)}: () => import(${JSON.stringify(id)})`);
    if (kinds.has('require')) entry.requires.push(`${JSON.stringify(id)}: () => require(${JSON.stringify(id)})`);
    assets.set(assetOf(id), entry);
  }
  const built = await Promise.all(
    [...assets].map(async ([name, { imports, requires }]) => {
      const result = await build({
        absWorkingDir: rootPath,
        stdin: {
          contents: `export const imports = { ${imports.join(', ')} };\nexport const requires = { ${requires.join(', ')} };\n`,
          resolveDir: rootPath,
          sourcefile: name.replace(/\.js$/, '.mjs'),
          loader: 'js',
        },
        bundle: true,
        write: false,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        minify: true,
        legalComments: 'none',
        logLevel: 'error',
        metafile: true,
        define: { 'import.meta.url': '__vidpubModuleUrl' },
        banner: { js: "const __vidpubModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
      });
      const outside = Object.values(result.metafile.outputs)
        .flatMap((o) => o.imports)
        .filter((i) => i.external && !isBuiltin(i.path));
      if (outside.length) throw new Error(`${name}: the single executable cannot load ${[...new Set(outside.map((i) => i.path))].join(', ')} from outside itself`);
      return [name, routeImports(result.outputFiles[0].text)];
    }),
  );
  return Object.fromEntries(built);
}

/** The main script's modules: the fast path, and the loader where bin/vidpub.js has the code cache. */
const sea = {
  name: 'vidpub-sea',
  setup(b) {
    b.onResolve({ filter: /^vidpub-sea:fast$/ }, (args) => ({ path: args.path, namespace: 'vidpub-sea' }));
    b.onLoad({ filter: /.*/, namespace: 'vidpub-sea' }, () => ({ contents: FAST, loader: 'ts', resolveDir: rootPath }));
    b.onResolve({ filter: /^\.\/compile-cache\.js$/ }, (args) =>
      /[\\/]bin[\\/]vidpub\.js$/.test(args.importer) ? { path: join(rootPath, 'scripts', 'sea', 'loader.cjs') } : undefined,
    );
    b.onLoad({ filter: /[\\/]bin[\\/]vidpub\.js$/ }, async (args) => ({
      contents: rewrite(args.path, await readFile(args.path, 'utf8'), BIN_REWRITES),
      loader: 'js',
    }));
  },
};

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
const bundles = await readBundles();
const assets = { ...bundles, ...(await buildDependencies(dependencies(bundles))) };
// The build id names the cache files: another build (or another node) never reads this one's.
const hash = createHash('sha256').update(process.version);
for (const name of Object.keys(assets).sort()) hash.update(`${name}\0${assets[name]}\0`);
const manifest = { id: hash.digest('hex').slice(0, 16), modules: Object.fromEntries([...dependencies(bundles).keys()].map((id) => [id, assetOf(id)])) };
await build({
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
  plugins: [sea],
  define: { __VIDPUB_VERSION__: JSON.stringify(pkg.version), __VIDPUB_SEA__: JSON.stringify(manifest) },
});
const assetDir = join(outDir, 'assets');
await mkdir(assetDir, { recursive: true });
await Promise.all(Object.entries(assets).map(([name, code]) => writeFile(join(assetDir, name), code)));
const bundled = performance.now();

// sea-config.json with this build's paths (its asset paths are relative to the checkout) and assets.
const config = join(outDir, 'sea-config.json');
const assetPaths = Object.fromEntries(Object.keys(assets).map((name) => [name, join(assetDir, name)]));
await writeFile(config, JSON.stringify({ ...seaConfig, main: bundle, output: blob, assets: { ...seaConfig.assets, ...assetPaths } }));
quiet(process.execPath, ['--experimental-sea-config', config]);
const tmp = `${exe}.tmp-${process.pid}`;
await copyFile(process.execPath, tmp);
await chmod(tmp, 0o755);
const postject = new URL('node_modules/postject/dist/cli.js', root).pathname;
quiet(process.execPath, [postject, tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2']);
await rename(tmp, exe);
await Promise.all([blob, config, assetDir].map((f) => rm(f, { recursive: true, force: true })));
const ms = (t) => `${Math.round(t)} ms`;
process.stderr.write(`${exe}: bundled in ${ms(bundled - started)}, blob and injection in ${ms(performance.now() - bundled)}\n`);

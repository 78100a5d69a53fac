// Builds dist/ with esbuild. Start-up time is a feature (bench/startup.bench.mjs;
// the measurements behind each choice are in docs/performance.md):
//
// - dist/fast.cjs: the command registry (data) and the root help renderer
//   (src/cli/line/fast-path.ts), no dependency. bin/vidpub.js answers --version and
//   --help from it alone. The registry holds no loader (those are in
//   src/cli/commands/load.ts, which only main.js imports), so nothing has to be
//   kept out by path; checkFastPath() fails the build if it ever grows imports.
// - dist/main.js: the CLI (src/index.ts) as ONE CommonJS bundle, commander and
//   styles of its own (no chalk). Node 20 loads one CommonJS file much faster than the same
//   code as ES modules split into chunks: the ESM loader resolves, links and
//   evaluates each chunk asynchronously, which cost more on the
//   `vidpub me --json` path than compiling the whole bundle (docs/performance.md). (dist/package.json
//   says "commonjs"; the package itself stays "module" for the sources.)
// - dist/emulator.js: the emulator (src/emulator), only loaded by `vidpub
//   emulator` and `vidpub demo`; kept out of main.js, which would otherwise
//   compile it on every run.
// - Heavy dependencies stay in node_modules and are imported lazily by the code
//   path that needs them (HEAVY): prompts, progress bars, the emulator's
//   fastify, the MCP SDK. (undici is not used at run time: the API calls and
//   the upload's PUT are on node:http.)
// - dist/assets/clip.mp4: the demo's sample video (test/fixtures/clip.mp4).
// - dist/SOURCES: the digest of the sources built from (scripts/action/bundle.mjs): the GitHub
//   Action runs a dist/ committed with a release only when it matches its checkout.
//
// The build goes to a temporary dir that then replaces dist/ in two renames,
// so a vidpub running from this checkout (tests run in parallel) never sees a
// half-written dist/.
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { STAMP, sourceDigest } from './action/bundle.mjs';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8'));

/** Loaded from node_modules, lazily, by the code that needs them. */
const HEAVY = [
  '@inquirer/prompts',
  'cli-progress',
  'ora',
  'fastify',
  '@fastify/*',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/sdk/*',
  'zod',
  'zod/*',
  'yaml',
  'csv-parse',
  'csv-parse/*',
  // X.509 certificates for `vidpub emulator --tls` (in the emulator's bundle, loaded with it).
  'node-forge',
  // jq compiled to WebAssembly, loaded only by --jq.
  'jq-wasm',
  // The OS credential store's native binding: never bundled, loaded only in
  // the child process src/config/keychain.ts starts for a stored key.
  '@napi-rs/keyring',
];

const out = `dist.tmp-${process.pid}`;
const MODULE_URL_NAME = '__vidpubModuleUrl';
const common = {
  absWorkingDir: new URL('.', root).pathname,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  external: HEAVY,
  define: { __VIDPUB_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': MODULE_URL_NAME },
  // What import.meta.url would be: the bundle's own file (src/cli/demo/sample.ts finds assets/ beside it).
  banner: { js: `const ${MODULE_URL_NAME} = require('node:url').pathToFileURL(__filename).href;` },
};

/** The emulator is its own bundle: main.js imports it as ./emulator.js when a command needs it. */
const emulatorApart = {
  name: 'emulator-apart',
  setup(b) {
    b.onResolve({ filter: /(^|\/)emulator\/index\.js$/ }, (args) =>
      /[\\/]src[\\/]emulator[\\/]/.test(args.importer) ? undefined : { path: './emulator.js', external: true },
    );
  },
};

/**
 * commander requires node:child_process at load, for executable subcommands,
 * which vidpub has none of: a cost on every command. The bundle gets
 * it on first use instead; the build fails if commander's line changes.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const code = await readFile(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!code.includes(eager)) throw new Error(`${args.path}: no "${eager}" to make lazy; check the commander upgrade`);
      const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: code.replace(eager, lazy), loader: 'js' };
    });
  },
};

/**
 * dist/me.js and dist/upload.js: the CLI with only the `me` (or `upload`)
 * command's module; bin/vidpub.js runs it when that command is the first word
 * (its table must name the same bundles). The same entry as main.js, with the
 * command loaders (src/cli/commands/load.ts) cut down to the one command: what
 * the other commands import is left out, so the bundle is about half the size,
 * and every command's module comes from one bundle (one copy of the error
 * classes, per process). The two commands whose fixed cost issue #15 counts;
 * another is one line here and one in bin/vidpub.js.
 */
const SLIM = { me: ['me'], upload: ['upload'] };

function onlyCommands(names) {
  return {
    name: 'only-commands',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]commands[\\/]load\.ts$/ }, async (args) => {
        const code = await readFile(args.path, 'utf8');
        const table = /const LOADERS: Record<CommandName, Loader> = \{\n([\s\S]*?)\n\};/;
        const m = table.exec(code);
        if (!m) throw new Error(`${args.path}: no LOADERS table to cut down; check scripts/build.mjs`);
        const lines = m[1].split('\n').filter((line) => names.includes(/^\s*([\w-]+):/.exec(line)?.[1]));
        if (lines.length !== names.length) throw new Error(`${args.path}: no loader for some of ${names.join(', ')}`);
        const cut = code.replace(table, `const LOADERS: Partial<Record<CommandName, Loader>> = {\n${lines.join('\n')}\n};`);
        return { contents: cut, loader: 'ts' };
      });
    },
  };
}

/**
 * bin/compile-cache.js runs dist/main.js from V8's code cache (vm.Script).
 * On Node 20 an import() in code restored from that cache fails ("A dynamic
 * import callback was not specified"), so every import() of main.js goes
 * through __vidpubImport: the cache loader defines it outside the script,
 * where import() works; a plain require() of main.js falls back to import().
 * The banner (the first line) defines it and is left as it is.
 */
const IMPORT_ROUTER = 'const __vidpubImport = globalThis.__vidpubImport || ((specifier) => import(specifier));';

/**
 * Also, for the start-up of every command that runs from these bundles:
 * - the banner's module URL (pathToFileURL at load) is
 *   left out of a bundle that never uses it (dist/me.js, dist/upload.js);
 * - the bundle is made pure ASCII: esbuild escapes strings and names, but
 *   keeps a comment's characters as written, and bin/compile-cache.js reads
 *   an ASCII file as latin1, a plain copy, cheaper than decoding UTF-8.
 *   A \u escape reads the same in a comment, a string or a regular expression.
 */
async function routeDynamicImports(outfile) {
  const url = new URL(outfile, root);
  const code = await readFile(url, 'utf8');
  const nl = code.indexOf('\n');
  let routed = 0;
  const rest = code
    .slice(nl + 1)
    .replace(/\bimport\(/g, () => (routed++, '__vidpubImport('))
    .replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  let banner = code.slice(0, nl + 1);
  if (!banner.includes(IMPORT_ROUTER)) throw new Error(`${outfile}: the banner does not define __vidpubImport`);
  if (!rest.includes(MODULE_URL_NAME)) banner = banner.replace(common.banner.js, '');
  await writeFile(url, banner + rest);
  return routed;
}

/**
 * The fast path must stay small: it is the registry and the help renderer, data
 * and string functions. Rather than steering the bundler away from files by
 * path, the build checks what came out: no require() of anything (a dependency,
 * a command module, a Node built-in) and no more than FAST_PATH_MAX_BYTES.
 */
// The registry grows with every flag (it is the help's data): the bound catches a dependency or a
// command module pulled in (hundreds of KB), and leaves the registry room for a wave of flags; what
// the fast path costs is measured by the start-up bench (--help against `node -e 0`), not in bytes.
const FAST_PATH_MAX_BYTES = 40 * 1024;

function checkFastPath(result, outfile) {
  const output = result.metafile.outputs[outfile];
  const problems = [];
  if (output.imports.length) problems.push(`it imports ${output.imports.map((i) => i.path).join(', ')}`);
  if (output.bytes > FAST_PATH_MAX_BYTES) problems.push(`it is ${output.bytes} bytes, more than ${FAST_PATH_MAX_BYTES}`);
  if (problems.length) {
    const inputs = Object.keys(output.inputs).join(', ');
    throw new Error(`dist/fast.cjs (the --version/--help fast path) must stay small and self-contained, but ${problems.join(' and ')}.
Its inputs: ${inputs}`);
  }
}

await rm(new URL(out, root), { recursive: true, force: true });
// Taken before building: a source changed during the build makes a stale stamp, never a fresh one.
const digest = sourceDigest(new URL('.', root).pathname);
try {
  await Promise.all([
    build({
      ...common,
      entryPoints: ['src/index.ts'],
      outfile: `${out}/main.js`,
      plugins: [emulatorApart, lazyChildProcess],
      banner: { js: `${common.banner.js} ${IMPORT_ROUTER}` },
    }).then(() => routeDynamicImports(`${out}/main.js`)),
    ...Object.entries(SLIM).map(([name, commands]) =>
      build({
        ...common,
        entryPoints: ['src/index.ts'],
        outfile: `${out}/${name}.js`,
        plugins: [emulatorApart, lazyChildProcess, onlyCommands(commands)],
        banner: { js: `${common.banner.js} ${IMPORT_ROUTER}` },
      }).then(() => routeDynamicImports(`${out}/${name}.js`)),
    ),
    build({ ...common, entryPoints: ['src/emulator/index.ts'], outfile: `${out}/emulator.js` }),
    build({
      ...common,
      stdin: {
        contents: "export { fastPath } from './src/cli/line/fast-path.ts';\nexport const VERSION = __VIDPUB_VERSION__;\n",
        resolveDir: new URL('.', root).pathname,
        sourcefile: 'fast-entry.ts',
        loader: 'ts',
      },
      banner: undefined,
      outfile: `${out}/fast.cjs`,
      metafile: true,
    }).then((result) => checkFastPath(result, `${out}/fast.cjs`)),
  ]);
  await writeFile(new URL(`${out}/package.json`, root), JSON.stringify({ type: 'commonjs' }, null, 2) + '\n');
  await writeFile(new URL(`${out}/${STAMP}`, root), digest + '\n');
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

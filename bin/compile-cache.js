// A V8 code cache for the CLI bundle (dist/main.js): compiling it is most of
// the fixed cost of every command that talks to the service. The first run
// compiles as usual and, once the command is done, saves V8's cached data
// (which by then includes the functions the run compiled lazily) in the
// cache directory; later runs hand it to V8 and skip most of the work.
// Node 20 has no module.enableCompileCache(), hence vm.Script's cachedData.
//
// Where: VIDPUB_CACHE_DIR, else $XDG_CACHE_HOME/vidpub, else ~/.cache/vidpub
// (a directory 0700, files 0600, written to a temporary file and renamed, so
// processes running at once never read half a file). The file name carries
// the Node version, the architecture and the bundle's size and time, so an
// upgrade of either never meets a stale cache; V8 also checks the data itself
// and rejects what does not fit (then the run compiles and saves it anew).
// VIDPUB_NO_COMPILE_CACHE=1 turns it off. Any trouble with the cache (a
// read-only or full disk) falls back to a plain require: never an error.
'use strict';
/* global require, module */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, like bin/vidpub.js */

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
// The CommonJS loader's Module class, as node:module exports it; taken from this module rather
// than require('node:module'), which on Node 20 also loads the ES module loader (module.register).
const Module = module.constructor;
const { pathToFileURL } = require('node:url');
const { isAscii } = require('node:buffer');

function cacheDir(env) {
  if (env.VIDPUB_CACHE_DIR) return env.VIDPUB_CACHE_DIR;
  // A relative XDG path is invalid (the XDG spec): ignored, as src/util/xdg.ts does.
  const xdg = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'vidpub');
  const home = env.HOME || env.USERPROFILE;
  return home ? path.join(home, '.cache', 'vidpub') : undefined;
}

/**
 * require(file) through the code cache. Returns the module's exports and
 * save(), to call once the command is done (it writes the cache when there
 * was none or V8 rejected it).
 */
function requireCached(file, env) {
  const dir = env.VIDPUB_NO_COMPILE_CACHE === '1' ? undefined : cacheDir(env);
  const useDynamicImport = vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (!dir || !useDynamicImport) return { exports: require(file), save() {} };

  let source;
  let cacheFile;
  let cachedData;
  try {
    const stat = fs.statSync(file);
    // The build makes the bundles pure ASCII: read so, a byte per character is a plain copy,
    // where decoding the bundle as UTF-8 costs more. Anything else is read as UTF-8.
    const bytes = fs.readFileSync(file);
    source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    const name = path.basename(file, '.js');
    cacheFile = path.join(dir, `v8-${name}-${process.version}-${process.arch}-${stat.size}-${Math.floor(stat.mtimeMs)}.bin`);
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  } catch {
    return { exports: require(file), save() {} };
  }

  // The bundle's import() calls come here (see scripts/build.mjs): V8 cannot run
  // an import() from code restored out of a cache on Node 20. Relative
  // specifiers are the bundle's own (./emulator.js); bare ones resolve from
  // this package's node_modules, as they would from dist/.
  globalThis.__vidpubImport = (specifier) =>
    import(specifier.startsWith('.') ? pathToFileURL(path.resolve(path.dirname(file), specifier)).href : specifier);
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData, importModuleDynamically: useDynamicImport });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  const localRequire = (id) => mod.require(id);
  localRequire.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  localRequire.cache = Module._cache;
  localRequire.main = process.mainModule;
  Module._cache[file] = mod;
  script.runInThisContext().call(mod.exports, mod.exports, localRequire, mod, file, path.dirname(file));
  mod.loaded = true;

  const needsSave = cachedData === undefined || script.cachedDataRejected === true;
  return {
    exports: mod.exports,
    save() {
      if (needsSave) writeCache(cacheFile, script, `v8-${path.basename(file, '.js')}-`);
    },
  };
}

/**
 * Writes a script's V8 cached data to cacheFile (atomically, 0600, its directory 0700) and
 * removes the caches of older builds: the other files of the directory named prefix*.bin.
 */
function writeCache(cacheFile, script, prefix) {
  const dir = path.dirname(cacheFile);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(tmp, cacheFile);
    for (const old of fs.readdirSync(dir)) {
      if (old.startsWith(prefix) && old !== path.basename(cacheFile) && old.endsWith('.bin')) fs.rmSync(path.join(dir, old), { force: true });
    }
  } catch {
    // A cache that cannot be written costs the next run its compile time, nothing more.
  }
}

module.exports = { requireCached, cacheDir, writeCache };

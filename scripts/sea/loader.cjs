// The single executable's loader (scripts/build-sea.mjs): in the executable, bin/vidpub.js
// requires this file where it requires bin/compile-cache.js, with the same requireCached().
//
// The executable's main script is small: bin/vidpub.js, the fast path and this file. Everything
// else is an asset of the executable (node:sea's getAsset), compiled on first need:
// - the CLI bundles, the very files of dist/ (main.js, me.js, upload.js, emulator.js);
// - the heavy dependencies the normal install loads from node_modules, one asset each (a
//   package, or packages that must share one copy, as the MCP SDK and zod).
// Each asset compiles through V8's code cache, kept in the cache directory as
// bin/compile-cache.js keeps the normal install's: the first run compiles and, once the command
// is done, saves the cached data of each asset it loaded (with the functions the run compiled);
// later runs hand it to V8. Files sea-<asset>-<build>.bin, 0600, written atomically; the build
// id is a hash of the assets, so another build never meets a stale cache, and V8 rejects data
// that does not fit (a corrupt file: the run compiles as if there were none and saves anew).
// VIDPUB_NO_COMPILE_CACHE=1 turns it off.
'use strict';
/* global require, module, __VIDPUB_SEA__ */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, like bin/vidpub.js */

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { getAsset } = require('node:sea');
const { cacheDir, writeCache } = require('../../bin/compile-cache.js');

/**
 * Written by the build: { id, modules: { specifier: asset } }, the asset that holds each heavy
 * module the bundles require or import.
 */
const SEA = __VIDPUB_SEA__;
/** The bundles' own relative imports, as dist/ names them. */
const EMULATOR = './emulator.js';
const WRAP = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

let dir;
/** Asset name → { exports, script, cacheFile, fresh }. */
const loaded = new Map();

/** node:module as the bundles use it: createRequire(...)(id) loads what require(id) does. */
const moduleShim = { createRequire: () => seaRequire };

function seaRequire(id) {
  if (id === EMULATOR) return loadAsset('emulator.js');
  const asset = SEA.modules[id];
  if (asset) {
    const load = loadAsset(asset).requires[id];
    if (!load) throw new Error(`the single executable has no require() of ${id}; check scripts/build-sea.mjs`);
    return load();
  }
  if (id === 'node:module') return moduleShim;
  return require(id); // a built-in: the only modules a single executable's require() loads
}

/** import(): the namespace Node would give, a CommonJS module's exports as its default. */
function seaImport(id) {
  return Promise.resolve().then(() => {
    const asset = SEA.modules[id];
    if (asset && loadAsset(asset).imports[id]) return loadAsset(asset).imports[id]();
    const exports = seaRequire(id);
    return { ...exports, default: exports };
  });
}

/** Compiles and runs an asset (once), through the code cache when there is one. */
function loadAsset(name) {
  const done = loaded.get(name);
  if (done) return done.module.exports;
  const source = getAsset(name, 'utf8');
  const cacheFile = dir && path.join(dir, `sea-${name}-${SEA.id}.bin`);
  let cachedData;
  try {
    if (cacheFile) cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // A path beside the executable: what __filename (and import.meta.url) say, and stack traces.
  const filename = path.join(path.dirname(process.execPath), name);
  const script = new vm.Script(WRAP[0] + source + WRAP[1], { filename, cachedData });
  const mod = { exports: {} };
  loaded.set(name, { module: mod, script, cacheFile, fresh: cachedData === undefined || script.cachedDataRejected === true });
  script.runInThisContext().call(mod.exports, mod.exports, seaRequire, mod, filename, path.dirname(filename));
  return mod.exports;
}

/**
 * bin/compile-cache.js's requireCached for the executable: file is the bundle's path as
 * bin/vidpub.js names it (../dist/me.js). save() writes the cache of every asset the run
 * compiled without one.
 */
function requireCached(file, env) {
  dir = env.VIDPUB_NO_COMPILE_CACHE === '1' ? undefined : cacheDir(env);
  globalThis.__vidpubImport = seaImport;
  const exports = loadAsset(path.basename(file));
  return {
    exports,
    save() {
      for (const [name, { script, cacheFile, fresh }] of loaded) {
        if (fresh && cacheFile) writeCache(cacheFile, script, `sea-${name}-`);
      }
    },
  };
}

module.exports = { requireCached };

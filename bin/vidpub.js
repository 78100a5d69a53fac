#!/usr/bin/env node
// The only place that calls process.exit: main() returns the exit code.
//
// CommonJS on purpose (bin/package.json), like the bundle it loads (see
// scripts/build.mjs): `vidpub --version` and `vidpub --help` are answered by
// dist/fast.cjs (src/cli/line/fast-path.ts: the command registry, which is data,
// and the help renderer; no dependency, and the build checks it stays so);
// everything else loads the CLI, dist/main.js. Node's ESM loader is never
// started unless a command imports an ES module dependency (prompts, progress
// bars, the emulator's server). See docs/performance.md.
'use strict';
/* global require, __dirname */

/**
 * The path of a file of dist/, or says how to get it (a checkout that was never built).
 * A path joined to this file's directory (which Node has already resolved through any
 * symlink), checked with one stat: require.resolve would search and resolve it again.
 */
function built(path) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
  const file = require('node:path').join(__dirname, path);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
  if (!require('node:fs').existsSync(file)) {
    process.stderr.write(`Error: vidpub is not built (${path.slice(3)} is missing).\nRun "npm run build" in the checkout, or reinstall vidpub.\n`);
    process.exit(1);
  }
  return file;
}

/** Loads a file of dist/. */
function load(path) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
  return require(built(path));
}

// A reader that has stopped reading (`vidpub history | head -1`): what is left of the output has
// nowhere to go, which is no failure of the command. Without this, Node throws EPIPE at the next
// write, with a stack trace, possibly in the middle of a post.
let stdoutGuarded = false;
function guardStdout() {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (err) => {
    if (err && (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED')) return;
    throw err;
  });
}

/**
 * Whether a file descriptor is a terminal. A pipe or a file is told by fstat alone: node:tty
 * loads node:net and its streams, which the fast path otherwise never needs.
 */
function isTerminal(fd) {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
    return require('node:fs').fstatSync(fd).isCharacterDevice() && require('node:tty').isatty(fd);
  } catch {
    return false;
  }
}

/**
 * The fast path's stdout: the text written to file descriptor 1 at once, without creating
 * process.stdout (for a pipe, a net.Socket with Node's stream machinery: most of what
 * `vidpub --version` cost over `node -e 0`). A reader gone away (EPIPE) is no failure, as above;
 * a non-blocking pipe that is full (EAGAIN: another process set the flag on it) gets the rest
 * through process.stdout, which waits for it.
 */
function writeOut(text) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
  const { writeSync } = require('node:fs');
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(1, bytes, done);
    } catch (err) {
      if (err && err.code === 'EPIPE') return true;
      if (!err || err.code !== 'EAGAIN') throw err;
      guardStdout();
      return process.stdout.write(bytes.subarray(done));
    }
  }
  return true;
}

const argv = process.argv.slice(2);
// dist/fast.cjs answers at most one word: nothing, an option (--version, --help) or `help`
// (src/cli/line/fast-path.ts); any other command line goes straight to the CLI without loading it.
// Neither process.stdout nor process.stderr is created for it (see writeOut); only a terminal
// has columns to wrap the help at.
const mayBeFast = argv.length === 0 || (argv.length === 1 && (argv[0].startsWith('-') || argv[0] === 'help'));
let fastCode;
if (mayBeFast) {
  const fast = load('../dist/fast.cjs');
  fastCode = fast.fastPath(argv, {
    version: fast.VERSION,
    io: {
      stdout: { write: writeOut },
      get columns() {
        return (isTerminal(2) && process.stderr.columns) || (isTerminal(1) && process.stdout.columns) || undefined;
      },
    },
  });
}

if (fastCode !== undefined) {
  process.exitCode = fastCode;
} else {
  guardStdout();
  // SIGINT (Ctrl-C), SIGTERM (cron, CI, timeout(1), docker stop) and SIGHUP (the
  // terminal went away) all stop the command the same way: the work in flight
  // is aborted, the message names the ids and the next command, and the exit
  // code says which signal it was (130, 143, 129). A second signal does not
  // wait for the clean-up.
  const controller = new AbortController();
  // The codes of src/exit-codes.ts's table (its rows with a signal). Written out here, not read
  // from there: this file is CommonJS outside the bundles and listens before any of them is
  // loaded, and a file of dist/ made for it would be one more file to load on every run.
  // test/docs/exit-codes.test.ts fails while these differ from the table.
  const EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
  let interrupts = 0;
  const onSignal = (signal) => {
    interrupts += 1;
    if (interrupts > 1) {
      if (process.stderr.isTTY) process.stderr.write('\u001b[?25h\n'); // the cursor back, whatever was drawing
      process.exit(EXIT_CODES[signal] || 130);
    }
    controller.abort(Object.assign(new Error(`received ${signal}`), { name: 'AbortError', signal }));
  };
  for (const signal of Object.keys(EXIT_CODES)) process.on(signal, onSignal);

  // Through the V8 code cache (bin/compile-cache.js).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
  const { requireCached } = require('./compile-cache.js');
  // `vidpub me ...` and `vidpub upload ...` (the command first: nothing to skip) run from a
  // bundle of their own, dist/<command>.js: the CLI without the other commands' modules, about
  // half the size of dist/main.js (the same names as SLIM in scripts/build.mjs).
  const bundle = ['me', 'upload'].includes(argv[0]) ? `../dist/${argv[0]}.js` : '../dist/main.js';
  const loaded = requireCached(built(bundle), process.env);
  const { main, createProcessContext } = loaded.exports;
  main(argv, createProcessContext({ signal: controller.signal })).then((code) => {
    // The code cache is written by a run that succeeded: one that failed (the usual first run,
    // before `vidpub login`) compiled only its way to the error, V8 would accept that cache, and
    // every later run would compile the command's own path anew (docs/performance.md, "The
    // compile cache").
    if (code === 0) loaded.save();
    // Once stdout and stderr are written (bin/when-written.js). The code is set first: should the
    // process end on its own meanwhile, it still ends with the command's code.
    process.exitCode = code;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS beside this file, as compile-cache.js
    require('./when-written.js').whenWritten([process.stdout, process.stderr], () => process.exit(code));
  });
}

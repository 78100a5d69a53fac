#!/usr/bin/env node
// The only place that calls process.exit: main() returns the exit code.
//
// CommonJS on purpose (bin/package.json), like the bundle it loads (see
// scripts/build.mjs): `vidpub --version` and `vidpub --help` are answered by
// dist/fast.cjs (the command registry and the help renderer, no dependency);
// everything else loads the CLI, dist/main.js. Node's ESM loader is never
// started unless a command imports an ES module dependency (prompts, progress
// bars, the emulator's server). See docs/performance.md.
'use strict';
/* global require */

/** Loads a file of dist/, or says how to get it (a checkout that was never built). */
function load(path) {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
    return require(path);
  } catch (err) {
    if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(path.slice(3))) {
      process.stderr.write(`Error: vidpub is not built (${path.slice(3)} is missing).\nRun "npm run build" in the checkout, or reinstall vidpub.\n`);
      process.exit(1);
    }
    throw err;
  }
}

const argv = process.argv.slice(2);
const fast = load('../dist/fast.cjs');
const fastCode = fast.fastPath(argv, {
  version: fast.VERSION,
  io: { stdout: process.stdout, columns: process.stderr.columns || process.stdout.columns || undefined },
});

if (fastCode !== undefined) {
  process.exitCode = fastCode;
} else {
  // SIGINT (Ctrl-C), SIGTERM (cron, CI, timeout(1), docker stop) and SIGHUP (the
  // terminal went away) all stop the command the same way: the work in flight
  // is aborted, the message names the ids and the next command, and the exit
  // code says which signal it was (130, 143, 129). A second signal does not
  // wait for the clean-up.
  const controller = new AbortController();
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

  const { main, createProcessContext } = load('../dist/main.js');
  main(argv, createProcessContext({ signal: controller.signal })).then((code) => process.exit(code));
}

#!/usr/bin/env node
// The only place that calls process.exit: main() returns the exit code.
//
// CommonJS on purpose (bin/package.json): `vidpub --version` and `vidpub --help`
// are answered by dist/fast.cjs (the command registry and the help renderer,
// no dependency) without starting Node's ESM loader, which alone costs about
// as much as the rest of that path (see docs/tools.md, "Start-up"). Everything
// else imports the ESM bundle, dist/main.js.
'use strict';
/* global require */

const argv = process.argv.slice(2);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose, see above
const fast = require('../dist/fast.cjs');
const fastCode = fast.fastPath(argv, {
  version: fast.VERSION,
  io: { stdout: process.stdout, columns: process.stderr.columns || process.stdout.columns || undefined },
});

if (fastCode !== undefined) {
  process.exitCode = fastCode;
} else {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal) => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130); // a second Ctrl-C does not wait for clean-up
    controller.abort(Object.assign(new Error(`received ${signal}`), { name: 'AbortError', signal }));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  import('../dist/main.js').then(
    async ({ main, createProcessContext }) => {
      const code = await main(argv, createProcessContext({ signal: controller.signal }));
      process.exit(code);
    },
    (err) => {
      process.stderr.write(`Error: cannot load vidpub (${err && err.message}); reinstall it, or run "npm run build" in a checkout.\n`);
      process.exit(1);
    },
  );
}

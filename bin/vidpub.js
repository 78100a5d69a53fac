#!/usr/bin/env node
// The only place that calls process.exit: main() returns the exit code.
import { main, createProcessContext } from '../dist/main.js';

const controller = new AbortController();
let interrupts = 0;
const onSignal = (signal) => {
  interrupts += 1;
  if (interrupts > 1) process.exit(130); // a second Ctrl-C does not wait for clean-up
  controller.abort(Object.assign(new Error(`received ${signal}`), { name: 'AbortError', signal }));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const code = await main(process.argv.slice(2), createProcessContext({ signal: controller.signal }));
process.exit(code);

// Entry point of the ESM bundle (dist/main.js): what bin/vidpub.js imports for
// every invocation that the CommonJS fast path (dist/fast.cjs: --version,
// --help) does not answer on its own.
export { main } from './cli/main.js';
export { createProcessContext } from './cli/process-context.js';

// Entry point of the CommonJS bundles (dist/main.js, and the slim dist/me.js and
// dist/upload.js): what bin/vidpub.js loads for every invocation that the fast
// path (dist/fast.cjs: --version, --help) does not answer on its own.
export { main } from './cli/main.js';
export { createProcessContext } from './cli/run/process-context.js';

// Entry point of the bundle: what bin/vidpub.js imports.
export { main } from './cli/main.js';
export { createProcessContext } from './cli/process-context.js';

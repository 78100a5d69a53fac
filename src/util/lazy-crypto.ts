/**
 * node:crypto on first use. It costs ~4 ms of CPU to load, which a command
 * that only reads (vidpub me) needs nothing of; an import at the top of a
 * module would load it with the CLI bundle. Used by the client (key hash,
 * Idempotency-Keys), the config store and the key cache.
 *
 * Through process.getBuiltinModule, not createRequire: importing node:module
 * loads Node's ES module loader and its source-map support with it (on Node 20),
 * which every command paid at load, crypto or not.
 */
import type * as Crypto from 'node:crypto';

let loaded: typeof Crypto | undefined;

export function nodeCrypto(): typeof Crypto {
  // eslint-disable-next-line no-restricted-globals -- Node's built-in module loader, not process state
  return (loaded ??= process.getBuiltinModule('node:crypto'));
}

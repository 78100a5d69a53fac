/**
 * node:crypto on first use. It costs ~4 ms of CPU to load, which a command
 * that only reads (vidpub me) needs nothing of; an import at the top of a
 * module would load it with the CLI bundle. Used by the client (key hash,
 * Idempotency-Keys), the config store and the key cache.
 */
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

let loaded: typeof Crypto | undefined;

export function nodeCrypto(): typeof Crypto {
  return (loaded ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto);
}

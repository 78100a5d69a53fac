/**
 * The base Idempotency-Key of one run: the --idempotency-key given, or one
 * made once per run (vp-<random>), from which every step's key is derived
 * (stepKey). A run that ends with an unknown outcome prints it, so a rerun
 * with the same key settles it without a duplicate, even when vidpub made it.
 */
import { nodeCrypto } from '../util/lazy-builtins.js';

export interface RunKey {
  key: string;
  /** True when the user gave it (--idempotency-key): a replay then means an earlier run did the work. */
  given: boolean;
  /** True when this run took the key of an earlier run of the same command that was cut off (src/posts/post/cut-off.ts). */
  continued?: boolean;
  /** The step a continued run's post goes under, when not "post" (the run it continues read its destinations again: "post:fresh", "post:fresh:2"...). */
  postStep?: string;
}

export function runKey(given: string | undefined): RunKey {
  if (given !== undefined) return { key: given, given: true };
  return { key: `vp-${nodeCrypto().randomBytes(12).toString('base64url')}`, given: false };
}

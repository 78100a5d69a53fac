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

/** The prefix of the keys vidpub makes for a run (those its rerun and continue lines carry). */
const MADE_PREFIX = 'vp-';

export function runKey(given: string | undefined): RunKey {
  if (given !== undefined) return { key: given, given: true };
  return { key: `${MADE_PREFIX}${nodeCrypto().randomBytes(12).toString('base64url')}`, given: false };
}

/**
 * Whether a key given on the command line is one vidpub made for a run: the line it printed to rerun or continue that run.
 * Only for journal lines written before the journal kept each post's run key (posts/duplicate-guard.ts).
 */
export function isRunsOwnKey(key: string | undefined): boolean {
  return key !== undefined && key.startsWith(MADE_PREFIX);
}

/**
 * How a key is shown to people, the one way: its prefix and its last 4
 * characters around an ellipsis (`vp_live_…a1b2`), never more. A prefix of a
 * known key and of text shaped like a key is found by src/core/key-format.ts,
 * of a stored one by the rule below; the shape shown is this one.
 */

/** `prefix…last4`. */
export function maskedKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}

/** The last 4 characters of a key: all of it a mask shows after the prefix. */
export function lastFour(key: string): string {
  return key.slice(-4);
}

/**
 * A stored key as `vp_live_…a1b2`: the prefix up to its last "_" (at most 12
 * characters) and the last 4; a key of 8 characters or fewer is only `…`.
 * The config file keeps this mask of a key in the OS store, so the rule stays.
 */
export function maskStoredKey(key: string | undefined): string | null {
  if (!key) return null;
  const k = key.trim();
  if (k.length <= 8) return '…';
  const prefix = /^([A-Za-z0-9]+_(?:[A-Za-z0-9]+_)?)/.exec(k)?.[1]?.slice(0, 12) ?? '';
  return maskedKey(prefix, lastFour(k));
}

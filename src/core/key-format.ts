/**
 * What a key of the service looks like, the one rule: a prefix ending in
 * `_live_` (contract §5 rule 2), then its secret part of at least 8 letters,
 * digits, `_` or `-` (the contract leaves the length open; the project's
 * answer is in docs/api-notes.md, "Records"). By it vidpub knows a key it was
 * not given, in text it shows (api/send/http-errors.ts masks it) and in a variable
 * it would hand to a program it starts (util/child-env.ts leaves it out), and
 * the emulator checks the keys of a fixture (emulator/fixture-schema.ts), so
 * every key the emulator takes is one the client hides.
 *
 * At least 8: a key is shown as its prefix and last 4 (util/key-mask.ts), so
 * half its secret or more stays hidden; text with fewer after the prefix
 * (`a post_live_demo word`) is not a key. `vidpub login` checks what it is
 * given more loosely (LIVE_KEY_LOOSELY, the same prefix): the service, not
 * vidpub, says whether a key is one.
 */

/** What every key's prefix ends in (`vp_live_`). */
export const KEY_PREFIX_MARKER = '_live_';

/** The fewest characters a key's secret part (after its prefix) has. */
export const MIN_KEY_SECRET_CHARS = 8;

/** The prefix: words joined by `_`, up to the first `_live_`. */
const PREFIX = `[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*?${KEY_PREFIX_MARKER}`;
const SECRET = `[A-Za-z0-9_-]{${MIN_KEY_SECRET_CHARS},}`;

/**
 * What a key's `_` and `-` may be written as in text that echoes it: characters that look like them
 * (U+FF3F FULLWIDTH LOW LINE, the small and dashed low lines, the hyphens and dashes), which a
 * normalising or "prettifying" service or page may put in their place. Text is searched for a key
 * with them taken for `_` and `-` (and util/redact.ts reads them so in its decoded view); a key
 * itself (WHOLE_KEY) has only the ASCII ones.
 */
export const UNDERSCORE_LOOKALIKES = '\uff3f\ufe4d\ufe4e\ufe4f\u2017\u02cd\ufe33\ufe34';
export const DASH_LOOKALIKES = '\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d';
const LOW = `[_${UNDERSCORE_LOOKALIKES}]`;
const FOUND_PREFIX = `[A-Za-z0-9]+(?:${LOW}[A-Za-z0-9]+)*?${KEY_PREFIX_MARKER.split('_').join(LOW)}`;
const FOUND_SECRET = `[A-Za-z0-9_\\-${UNDERSCORE_LOOKALIKES}${DASH_LOOKALIKES}]{${MIN_KEY_SECRET_CHARS},}`;

const ANYWHERE = new RegExp(`\\b${FOUND_PREFIX}${FOUND_SECRET}`);
const EVERY = new RegExp(`\\b(${FOUND_PREFIX})(${FOUND_SECRET})`, 'g');
/** A key, whole (no flags: a test of it keeps no state). */
export const WHOLE_KEY = new RegExp(`^${PREFIX}${SECRET}$`);
/** What `vidpub login` takes for a live key, more loosely: the prefix, then any printable ASCII (the service says whether it is one). */
export const LIVE_KEY_LOOSELY = new RegExp(`^${PREFIX}[\\x21-\\x7e]+$`);

/** True when a key stands anywhere in `text` (its `_` and `-` written as they are, or as look-alikes). */
export function holdsKey(text: string): boolean {
  return ANYWHERE.test(text);
}

/** `text` with each key in it (look-alike `_` and `-` too) replaced by what `by` makes of its prefix and secret part, as written. */
export function replaceKeys(text: string, by: (prefix: string, secret: string) => string): string {
  return text.replace(EVERY, (_m, prefix: string, secret: string) => by(prefix, secret));
}

/** A key's prefix: up to and including its first `_live_` (`vp_live_`); undefined when it has none. */
export function keyPrefix(key: string): string | undefined {
  const at = key.indexOf(KEY_PREFIX_MARKER);
  return at < 0 ? undefined : key.slice(0, at + KEY_PREFIX_MARKER.length);
}

/**
 * The secret part of a key alone, as a service may echo it: the key without `vp_live_<name>_<access>_`,
 * its shortest end that follows a `_` and still has MIN_KEY_SECRET_CHARS (`k7Qm2Xc4Lp9Hs3Td` of
 * `vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td`); undefined when that is all of what follows the prefix, or none.
 */
export function keyTail(key: string): string | undefined {
  const prefix = keyPrefix(key);
  if (prefix === undefined) return undefined;
  const rest = key.slice(prefix.length);
  for (let at = rest.lastIndexOf('_'); at > 0; at = rest.lastIndexOf('_', at - 1)) {
    if (rest.length - at - 1 >= MIN_KEY_SECRET_CHARS) return rest.slice(at + 1);
  }
  return undefined;
}

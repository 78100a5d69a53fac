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
 * given more loosely (cli/commands/login.ts): the service, not vidpub, says
 * whether a key is one.
 */

/** What every key's prefix ends in (`vp_live_`). */
export const KEY_PREFIX_MARKER = '_live_';

/** The fewest characters a key's secret part (after its prefix) has. */
export const MIN_KEY_SECRET_CHARS = 8;

/** The prefix: words joined by `_`, up to the first `_live_`. */
const PREFIX = `[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*?${KEY_PREFIX_MARKER}`;
const SECRET = `[A-Za-z0-9_-]{${MIN_KEY_SECRET_CHARS},}`;

const ANYWHERE = new RegExp(`\\b${PREFIX}${SECRET}`);
const EVERY = new RegExp(`\\b(${PREFIX})(${SECRET})`, 'g');
/** A key, whole (no flags: a test of it keeps no state). */
export const WHOLE_KEY = new RegExp(`^${PREFIX}${SECRET}$`);

/** True when a key stands anywhere in `text`. */
export function holdsKey(text: string): boolean {
  return ANYWHERE.test(text);
}

/** `text` with each key in it replaced by what `by` makes of its prefix and secret part. */
export function replaceKeys(text: string, by: (prefix: string, secret: string) => string): string {
  return text.replace(EVERY, (_m, prefix: string, secret: string) => by(prefix, secret));
}

/** A key's prefix: up to and including its first `_live_` (`vp_live_`); undefined when it has none. */
export function keyPrefix(key: string): string | undefined {
  const at = key.indexOf(KEY_PREFIX_MARKER);
  return at < 0 ? undefined : key.slice(0, at + KEY_PREFIX_MARKER.length);
}

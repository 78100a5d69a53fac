/** The values of flags several commands share: a post id (publish, status, retry, open) and --idempotency-key (post, upload, import). The wait flags: src/session/wait-flags.ts. */
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../contract/wire-types.js';
import { UsageError, sanitize } from '../errors.js';

/** Room left in the 255-character Idempotency-Key for the step suffixes (":complete:med_…"). */
const MAX_USER_KEY_LENGTH = IDEMPOTENCY_KEY_MAX_LENGTH - 80;

/** A post id as given on the command line. */
export function parsePostId(value: unknown): string {
  const id = String(value ?? '').trim();
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) {
    throw new UsageError(`invalid post id "${sanitize(String(value ?? ''))}": give the id "vidpub post" printed, such as post_123`);
  }
  return id;
}

/** --idempotency-key: printable, no spaces, short enough to carry the step suffixes. */
export function parseIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const key = String(value);
  if (key.length === 0 || key.length > MAX_USER_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new UsageError(`invalid --idempotency-key: use 1 to ${MAX_USER_KEY_LENGTH} printable characters without spaces`, {
      hint: 'For example --idempotency-key "nightly-$(date +%F)".',
    });
  }
  return key;
}

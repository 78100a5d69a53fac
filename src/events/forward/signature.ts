/**
 * The signature of a webhook vidpub sends (`watch --forward-to`), made the way Stripe signs its
 * webhooks, so that a receiver checks it the same way (stripe-node's Webhooks.ts):
 *
 *   Vidpub-Signature: t=<unix time, seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>", keyed by the secret>
 *
 * The secret is used as it is (its text, prefix included) as the HMAC key. A receiver computes the
 * HMAC of the raw body it got (not of a re-encoded JSON), compares it in constant time with each
 * `v1` of the header, and refuses a `t` older than its tolerance (Stripe's default: 300 s) to stop a
 * replay. The header is made again for each try: a retry carries its own time.
 */
import { nodeCrypto } from '../../util/lazy-builtins.js';

/** The header's name, as sent. */
export const SIGNATURE_HEADER = 'Vidpub-Signature';

/** The age past which a receiver should refuse a signature (Stripe's DEFAULT_TOLERANCE), in seconds. */
export const SIGNATURE_TOLERANCE_S = 300;

/** The hex HMAC-SHA256 of `<t>.<body>` keyed by `secret`. */
export function signatureOf(secret: string, t: number, body: string): string {
  return nodeCrypto().createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
}

/** The Vidpub-Signature header's value for `body` sent at `nowMs` (epoch ms). */
export function signatureHeader(secret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${signatureOf(secret, t, body)}`;
}

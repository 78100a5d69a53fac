/**
 * What an attempt of the signed-URL PUT comes to, decided apart from the
 * sending (put-file.ts acts on it): done, the link refused (the caller
 * completes, for the bytes may be there, or asks for a new link), the upload
 * refused, or another attempt from the start after a delay.
 */
import { backoffDelay, type BackoffPolicy } from '../send/backoff.js';
import { isRetryableNetworkError, networkCode } from '../send/http-errors.js';

/** Attempts in all, the first included, unless the caller says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 4;
const PUT_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 8000 };
/** The longest Retry-After of the storage we wait out between attempts. */
const MAX_DELAY_MS = 60_000;

/** A failure worth another attempt: why, and how long the storage asked us to wait. */
export interface Transient {
  reason: string;
  retryAfterMs?: number;
}

export type PutVerdict =
  | { action: 'done' }
  /** 403: expired or tampered; 409: already used (the bytes may be there); 410: gone. */
  | { action: 'link-refused' }
  | { action: 'refused' }
  | ({ action: 'retry' } & Transient);

/** What the storage's answer means; `message` is what its body said (or "HTTP <status>"). */
export function judgePutAnswer(a: { status: number; message: string; retryAfterSec?: number }): PutVerdict {
  if (a.status >= 200 && a.status < 300) return { action: 'done' };
  if (a.status === 403 || a.status === 409 || a.status === 410) return { action: 'link-refused' };
  if (a.status >= 500 || a.status === 408 || a.status === 429) {
    return { action: 'retry', reason: `the storage answered ${a.status}: ${a.message}`, retryAfterMs: a.retryAfterSec === undefined ? undefined : a.retryAfterSec * 1000 };
  }
  return { action: 'refused' };
}

/** A short reason for a network failure worth a retry, or undefined when it is not one. */
export function retryableNetworkReason(err: unknown): string | undefined {
  if (!isRetryableNetworkError(err)) return undefined;
  const code = networkCode(err);
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' ? 'the connection was dropped' : `network error (${code})`;
}

/** How long to wait before attempt `attempt + 1`: the storage's Retry-After, or a growing back-off; at most a minute. */
export function retryDelayMs(attempt: number, failure: Transient): number {
  return Math.min(MAX_DELAY_MS, failure.retryAfterMs ?? backoffDelay(attempt - 1, PUT_BACKOFF));
}

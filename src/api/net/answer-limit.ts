/**
 * How much of an answer the client reads. The contract's records are small (a post with its
 * destinations and issues, a list of destinations: kilobytes), so an answer larger than
 * MAX_RECORD_BYTES is not the service's: a proxy, a captive portal or a hostile server in front of
 * it. An error body says a sentence, so MAX_ERROR_BODY_BYTES is far less. Such an answer is cut
 * off while it arrives (the connection closed, its bytes dropped), at once when its Content-Length
 * announces it: memory stays flat, and the time the deadline must cover stays short (parsing,
 * redaction, printing of at most this much).
 */
import { formatSize } from '../../util/bytes.js';

/** The largest answer of a success read (a record). */
export const MAX_RECORD_BYTES = 8_000_000;
/** The largest error body read (any status other than 2xx: a refusal, a proxy's page). */
export const MAX_ERROR_BODY_BYTES = 256_000;

/** The most bytes read of an answer with `status`. */
export function answerLimit(status: number): number {
  return status >= 200 && status < 300 ? MAX_RECORD_BYTES : MAX_ERROR_BODY_BYTES;
}

/** An answer cut off because it was larger than its limit; the request may have reached the service (requestSent). */
export class AnswerTooLargeError extends Error {
  readonly code = 'VIDPUB_ANSWER_TOO_LARGE';
  constructor(
    readonly status: number,
    readonly limit: number,
    /** Its Content-Length, when it announced one; else more than `limit` bytes arrived. */
    readonly announced: number | undefined,
  ) {
    super(`the answer (HTTP ${status}) is ${announced !== undefined ? `${formatSize(announced)} by its Content-Length` : `more than ${formatSize(limit)}`}, over the ${formatSize(limit)} the client reads`);
    this.name = 'AnswerTooLargeError';
  }
}

/** The Content-Length of a response, when it is a whole number. */
export function announcedLength(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
}

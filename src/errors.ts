/**
 * The one error hierarchy of vidpub, and the one place that maps it to exit
 * codes (documented in the README):
 *
 *   0 ok · 1 unexpected or service error · 2 usage or invalid input ·
 *   3 authentication or permission · 4 rate limited and not waited out ·
 *   5 not found · 6 the work finished but failed · 7 stopped waiting (timeout) ·
 *   8 post blocked by issues of severity error ·
 *   9 the post's state does not allow it (publishing a completed post) · 130 interrupted
 */

export const ExitCode = {
  OK: 0,
  ERROR: 1,
  USAGE: 2,
  AUTH: 3,
  RATE_LIMITED: 4,
  NOT_FOUND: 5,
  FAILED: 6,
  TIMEOUT: 7,
  BLOCKED: 8,
  CONFLICT: 9,
  INTERRUPTED: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface VidpubErrorOptions {
  /** A line telling the user what to do next. */
  hint?: string;
  cause?: unknown;
  /** Data a command attaches for `--json` output (e.g. the post record). */
  data?: unknown;
  /** The HTTP response behind the error, when it came from the service. */
  http?: HttpErrorDetails;
}

export class VidpubError extends Error {
  readonly exitCode: ExitCodeValue = ExitCode.ERROR;
  readonly hint?: string;
  readonly data?: unknown;
  readonly http?: HttpErrorDetails;
  constructor(message: string, opts: VidpubErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.hint = opts.hint;
    this.data = opts.data;
    this.http = opts.http;
  }
}

/** Bad flags, bad arguments, a local check that failed, or a 400 from the service. */
export class UsageError extends VidpubError {
  override readonly exitCode = ExitCode.USAGE;
}

/** No key, a refused key (401), or a permission refusal (403), or a workspace mismatch. */
export class AuthError extends VidpubError {
  override readonly exitCode = ExitCode.AUTH;
}

/** A 429 that was not waited out. */
export class RateLimitError extends VidpubError {
  override readonly exitCode = ExitCode.RATE_LIMITED;
  readonly retryAfterSec?: number;
  readonly resetAt?: string;
  readonly code?: string;
  constructor(message: string, opts: VidpubErrorOptions & { retryAfterSec?: number; resetAt?: string; code?: string } = {}) {
    super(message, opts);
    this.retryAfterSec = opts.retryAfterSec;
    this.resetAt = opts.resetAt;
    this.code = opts.code;
  }
}

export class NotFoundError extends VidpubError {
  override readonly exitCode = ExitCode.NOT_FOUND;
}

/** The work finished but failed: media failed, a destination failed or was cancelled. */
export class WorkFailedError extends VidpubError {
  override readonly exitCode = ExitCode.FAILED;
}

/** We stopped waiting (`--timeout`); the work goes on at the service. */
export class TimeoutError extends VidpubError {
  override readonly exitCode = ExitCode.TIMEOUT;
}

/** The post has issues of severity error and cannot be published. */
export class BlockedError extends VidpubError {
  override readonly exitCode = ExitCode.BLOCKED;
}

/** The post is in a state that does not allow the request (a 409 such as publishing a completed post). */
export class ConflictError extends VidpubError {
  override readonly exitCode = ExitCode.CONFLICT;
}

/** Ctrl-C / SIGINT / SIGTERM. */
export class InterruptedError extends VidpubError {
  override readonly exitCode = ExitCode.INTERRUPTED;
}

/**
 * The work stopped because of Ctrl-C: an InterruptedError, or anything but
 * our own errors once the signal has aborted (a library's abort error).
 */
export function isInterruption(err: unknown, signal: AbortSignal): boolean {
  return err instanceof InterruptedError || (signal.aborted && !(err instanceof VidpubError));
}

/** The person said no (a declined confirmation, Ctrl-C at a question): exit 130, said plainly, not as an error. */
export class CancelledError extends InterruptedError {}

/** A service error (5xx after retries, unexpected response) or a network failure. */
export class ServiceError extends VidpubError {
  override readonly exitCode = ExitCode.ERROR;
}

/** What the service said, attached to any VidpubError that came from an HTTP response. */
export interface HttpErrorDetails {
  status: number;
  method: string;
  /** Path of the request (no query string). */
  path: string;
  type?: string;
  code?: string;
  param?: string;
  /** The parsed error body, when it was JSON. */
  body?: unknown;
  retryAfterSec?: number;
}

/** Remove control characters (ANSI escapes included) from text that came from a server or a file. */
export function sanitize(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
      .replace(/[\r\n\t]+/g, ' ')
      .trim()
  );
}

/**
 * The one error hierarchy of vidpub, and the one place that maps it to exit
 * codes (exitCodeOf). The codes, what each means and which commands end with
 * it are the table of ./exit-codes.ts; each class takes its code from there.
 */
import { ExitCode, signalExitCode, type ExitCodeValue } from './exit-codes.js';

export { ExitCode, type ExitCodeValue };

export interface VidpubErrorOptions {
  /** A line telling the user what to do next. */
  hint?: string;
  cause?: unknown;
  /** Data a command attaches for `--json` output (e.g. the post record). */
  data?: unknown;
  /** The HTTP response behind the error, when it came from the service. */
  http?: HttpErrorDetails;
  /**
   * The key of a run this command should continue (a refusal that knows it): the CLI prints the
   * same command with this --idempotency-key (and `continueFlags` in place of the values typed).
   */
  continueKey?: string;
  continueFlags?: Record<string, string>;
}

export class VidpubError extends Error {
  readonly exitCode: ExitCodeValue = ExitCode.ERROR;
  readonly hint?: string;
  readonly data?: unknown;
  readonly http?: HttpErrorDetails;
  /** The key of the run the command to run next continues (VidpubErrorOptions.continueKey). */
  readonly continueKey?: string;
  readonly continueFlags: Record<string, string>;
  constructor(message: string, opts: VidpubErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.hint = opts.hint;
    this.data = opts.data;
    this.http = opts.http;
    this.continueKey = opts.continueKey;
    this.continueFlags = { ...(opts.continueFlags ?? {}) };
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

/** Ctrl-C / SIGINT / SIGTERM / SIGHUP (the exit code per signal: exitCodeOf). */
export class InterruptedError extends VidpubError {
  override readonly exitCode = ExitCode.INTERRUPTED;
  /** Stopped once a write went out: the base Idempotency-Key the rerun continues under (the CLI prints the line). */
  readonly idempotencyKey?: string;
  /** Flags that rerun carries with the value this run sent (as OutcomeUnknownError.rerunFlags). */
  readonly rerunFlags: Record<string, string>;
  constructor(message: string, opts: VidpubErrorOptions & { idempotencyKey?: string; rerunFlags?: Record<string, string> } = {}) {
    super(message, opts);
    this.idempotencyKey = opts.idempotencyKey;
    this.rerunFlags = { ...(opts.rerunFlags ?? {}) };
  }
}

/**
 * A write was sent and no answer came (a timeout, a dropped connection, the
 * same request still being handled, Ctrl-C or the deadline during it): it may
 * or may not have taken effect. Never reported as a refusal: the message says
 * what may exist, `known` holds the ids there are, and the CLI prints the
 * rerun command with `idempotencyKey`, which settles it without a duplicate.
 */
export class OutcomeUnknownError extends VidpubError {
  override readonly exitCode = ExitCode.OUTCOME_UNKNOWN;
  /** The request whose answer never came ("POST /v1/posts"). */
  readonly request: string;
  /** The base Idempotency-Key of the run (the value of --idempotency-key for a rerun), when there is one. */
  readonly idempotencyKey?: string;
  /** Ids already known (media_id, post_id), printed on stdout. */
  readonly known: Record<string, string>;
  /**
   * What stopped it: 'deadline', 'interrupt', 'network', 'in-flight', 'gateway' (a 502/504 in the service's
   * place), 'not-the-service' (any other answer that was not the service's word: http.foreign says what).
   */
  readonly reason: 'deadline' | 'interrupt' | 'network' | 'in-flight' | 'gateway' | 'not-the-service';
  /** Flags the rerun must carry with the value this run sent (--at "in 2h" is another time on each run). */
  readonly rerunFlags: Record<string, string>;
  /**
   * The command as typed settles it, with rerunFlags and no --idempotency-key:
   * a command whose key comes from what it does (retry), which takes none.
   */
  readonly rerunAsTyped: boolean;
  constructor(
    message: string,
    opts: VidpubErrorOptions & {
      request: string;
      reason: OutcomeUnknownError['reason'];
      idempotencyKey?: string;
      known?: Record<string, string>;
      rerunFlags?: Record<string, string>;
      rerunAsTyped?: boolean;
    },
  ) {
    super(message, opts);
    this.request = opts.request;
    this.reason = opts.reason;
    this.idempotencyKey = opts.idempotencyKey;
    this.known = { ...(opts.known ?? {}) };
    this.rerunFlags = { ...(opts.rerunFlags ?? {}) };
    this.rerunAsTyped = opts.rerunAsTyped ?? false;
  }

  /** Why the outcome is unknown, in words. */
  get why(): string {
    switch (this.reason) {
      case 'deadline':
        return 'the --timeout was reached before the service answered';
      case 'interrupt':
        return 'it was interrupted before the service answered';
      case 'in-flight':
        return 'the service was still handling the request';
      case 'gateway':
        return `a gateway answered HTTP ${this.http?.status ?? '502/504'} in the service's place`;
      case 'not-the-service':
        return `the answer was not the service's own: ${this.http?.foreign ?? 'neither its record nor its error body'}`;
      default:
        return 'the connection failed before the service answered';
    }
  }

  /** The same outcome, told for one flow: its own words, the run's key, the ids it knows. */
  retold(
    message: string,
    opts: { idempotencyKey?: string; known?: Record<string, string>; rerunFlags?: Record<string, string>; rerunAsTyped?: boolean; hint?: string; data?: unknown },
  ): OutcomeUnknownError {
    return new OutcomeUnknownError(message, {
      request: this.request,
      reason: this.reason,
      idempotencyKey: opts.idempotencyKey ?? this.idempotencyKey,
      known: { ...this.known, ...(opts.known ?? {}) },
      rerunFlags: { ...this.rerunFlags, ...(opts.rerunFlags ?? {}) },
      rerunAsTyped: opts.rerunAsTyped ?? this.rerunAsTyped,
      hint: opts.hint ?? this.hint,
      data: opts.data ?? this.data,
      http: this.http,
      cause: this,
    });
  }
}

/**
 * The reason an AbortSignal carries when a command's --timeout is reached
 * (not a VidpubError: the flows turn it into TimeoutError or OutcomeUnknownError).
 */
export class DeadlineReached extends Error {
  constructor(readonly timeoutMs?: number) {
    super('the --timeout of the command was reached');
    this.name = 'DeadlineReached';
  }
}

/** True when `signal` was aborted by the command's deadline (not by Ctrl-C or a signal). */
export function isDeadline(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof DeadlineReached;
}

/**
 * The work stopped because of Ctrl-C (or SIGTERM, SIGHUP): an InterruptedError, or
 * anything but our own errors once the signal has aborted (a library's abort
 * error) — unless the abort was the command's deadline.
 */
export function isInterruption(err: unknown, signal: AbortSignal): boolean {
  return err instanceof InterruptedError || (signal.aborted && !isDeadline(signal) && !(err instanceof VidpubError));
}

/** Which process signal an abort reason names (bin/vidpub.js sets `signal` on it). */
export function signalOf(signal: AbortSignal | undefined): string | undefined {
  const reason = signal?.aborted ? (signal.reason as { signal?: unknown } | undefined) : undefined;
  return typeof reason?.signal === 'string' ? reason.signal : undefined;
}

/**
 * The one mapping from an error to an exit code: the error's own code, except
 * that an interruption says which signal stopped it (the table's code for the
 * signal: 143 for SIGTERM, 129 for SIGHUP). An unknown outcome stays 9 whatever
 * stopped it: that a write may have happened matters more to a script than why it stopped.
 */
export function exitCodeOf(err: unknown, processSignal?: AbortSignal): number {
  if (!(err instanceof VidpubError)) return ExitCode.ERROR;
  if (err instanceof InterruptedError) return signalExitCode(signalOf(processSignal)) ?? err.exitCode;
  return err.exitCode;
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
  /**
   * Set when the answer was not the service's word (src/api/send/service-word.ts):
   * what was seen ("HTTP 503 text/html"). It refuses nothing: after a write, the outcome is unknown.
   */
  foreign?: string;
}

/**
 * The one sanitizer of text vidpub did not write (file names, captions, handles, server
 * messages, URLs) on its way to a terminal or a log, where a control character would act: an
 * escape sequence could set the window title, clear the screen or move the cursor over earlier
 * lines. Each C0 and C1 control is shown, visibly escaped, instead: ESC as `\e`, any other as
 * `\xNN` (`t\e]0;PWNED\x07\e[2Jx.mp4`), so the person sees that the text holds one; line breaks
 * and tabs read as one space (a message stays on its line). Bidirectional controls are left to
 * the terminal boundary (neutraliseBidi, on every write to a terminal), so a pipe keeps them.
 * `--json` does not go through this: JSON escapes what it must and keeps the data exact.
 */
export function sanitize(text: string): string {
  return (
    text
      .replace(/[\r\n\t]+/g, ' ')
      // eslint-disable-next-line no-control-regex -- the controls are what is looked for
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => (ch === '\u001b' ? '\\e' : `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`))
      .trim()
  );
}

/** The bidirectional controls: embeddings and overrides (U+202A-202E), isolates (U+2066-2069), LRM and RLM (U+200E/F). */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/g;

/** What a JSON document escapes beyond JSON.stringify: the C1 controls (U+0080-009F, CSI among them) and the bidirectional ones. */
const JSON_ESCAPED = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f]/g;

/**
 * Text for a terminal with its bidirectional controls shown as `<U+202E>`: an override in a file
 * name or a caption (`\u202Egnp.exe`) would otherwise reorder what the person reads, the columns
 * of a table with it. vidpub writes none itself, so every one in its output came from elsewhere;
 * src/ui/terminal.ts applies this to each write to a terminal (a pipe keeps them). `json`: for a
 * JSON document, as the JSON escape `\u202e` instead, and the C1 controls too (`\u009b`: a
 * terminal would act on one), so that it reads back exactly the same and is the same bytes at a
 * terminal and in a pipe.
 */
export function neutraliseBidi(text: string, form: 'shown' | 'json' = 'shown'): string {
  if (form === 'json') return text.replace(JSON_ESCAPED, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.replace(BIDI, (ch) => `<U+${ch.charCodeAt(0).toString(16).toUpperCase()}>`);
}

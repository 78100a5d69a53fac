/**
 * The one place an HTTP response or a network failure becomes a VidpubError
 * (and so an exit code). Error bodies of any shape are accepted: the JSON of
 * gaps.md, other JSON, HTML, plain text or nothing at all all become one line
 * with the HTTP status and the service's message, control characters removed.
 */
import {
  AuthError,
  BlockedError,
  NotFoundError,
  RateLimitError,
  ServiceError,
  UsageError,
  VidpubError,
  sanitize,
  type HttpErrorDetails,
} from '../../errors.js';
import { redactUrl } from './debug.js';
import { redactKnown, type Secret } from '../../util/redact.js';
import { lastFour, maskedKey } from '../../util/key-mask.js';
import { isHopelessNetError, netProblem } from '../net/net-errors.js';
import { AnswerTooLargeError } from '../net/answer-limit.js';
import { parseAnswerJson } from './json-answer.js';
import { formatSize } from '../../util/bytes.js';
import { keyPrefix, keyTail, replaceKeys } from '../../core/key-format.js';

const MAX_MESSAGE = 300;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? 'Server Error' : status >= 400 ? 'Client Error' : 'Unexpected Status');
}

/** What we understood of an error body. */
export interface ParsedErrorBody {
  message: string;
  type?: string;
  code?: string;
  param?: string;
  resetAt?: string;
  /** The parsed JSON, when it was JSON. */
  json?: unknown;
}

/** Server text as one clean line: control characters stripped, whitespace collapsed. */
function oneLine(text: string): string {
  return sanitize(text).replace(/\s+/g, ' ').trim();
}

function truncate(text: string, max = MAX_MESSAGE): string {
  return text.length > max ? text.slice(0, max - 1).trimEnd() + '…' : text;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n) % 0x110000))
    .replace(/&amp;/gi, '&');
}

/** An HTML page as one line: its <title>, else its first heading, else its text. */
export function htmlToLine(html: string): string {
  const pick = (re: RegExp) => {
    const m = re.exec(html);
    return m ? sanitize(decodeEntities(m[1]!.replace(/<[^>]*>/g, ' '))).replace(/\s+/g, ' ').trim() : '';
  };
  const title = pick(/<title[^>]*>([\s\S]*?)<\/title>/i) || pick(/<h1[^>]*>([\s\S]*?)<\/h1>/i);
  if (title) return truncate(title);
  const text = html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ');
  return truncate(sanitize(decodeEntities(text)).replace(/\s+/g, ' ').trim());
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** Reads an error body of any shape. */
export function parseErrorBody(text: string, contentType: string | undefined): ParsedErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return { message: '' };
  const looksJson = /json/i.test(contentType ?? '') || /^[[{]/.test(trimmed);
  if (looksJson) {
    try {
      const json: unknown = parseAnswerJson(trimmed);
      if (json && typeof json === 'object' && !Array.isArray(json)) {
        const o = json as Record<string, unknown>;
        const e = o.error;
        if (e && typeof e === 'object' && !Array.isArray(e)) {
          const eo = e as Record<string, unknown>;
          return {
            message: truncate(oneLine(str(eo.message) ?? str(eo.detail) ?? str(eo.code) ?? str(eo.type) ?? '')),
            type: str(eo.type),
            code: str(eo.code),
            param: str(eo.param),
            resetAt: str(eo.reset_at),
            json,
          };
        }
        const message = str(o.message) ?? str(o.error) ?? str(o.detail) ?? str(o.title) ?? str(o.error_description);
        return {
          message: truncate(oneLine(message ?? JSON.stringify(json))),
          code: str(o.code),
          type: str(o.type),
          json,
        };
      }
      return { message: truncate(oneLine(JSON.stringify(json))), json };
    } catch {
      // not JSON after all: fall through to text
    }
  }
  if (/html/i.test(contentType ?? '') || /^<(!doctype|html|head|body|\?xml)/i.test(trimmed)) return { message: htmlToLine(trimmed) };
  return { message: truncate(oneLine(trimmed.split(/\r?\n/).find((l) => l.trim() !== '') ?? '')) };
}

export interface ResponseInfo {
  status: number;
  method: string;
  /** Full URL of the request (redacted before it is shown). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  bodyText: string;
  retryAfterSec?: number;
  /** Secrets sent with the request (the API key): never shown, even when the service echoes them. */
  secrets?: readonly string[];
  /** What was seen, when the answer was not the service's word (service-word.ts): "HTTP 503 text/html". */
  foreign?: string;
}

/**
 * The forms of a key that are never shown: the key, its secret part without the prefix (`vp_live_`
 * taken off), and that part without `<name>_<access>_` too (keyTail), each in any encoding
 * (redactKnown), shown as people recognise their key: `vp_live_…s3Td`.
 */
export function secretForms(key: string): Secret[] {
  const prefix = keyPrefix(key);
  if (prefix === undefined) return [{ text: key }];
  const last4 = lastFour(key);
  const tail = keyTail(key);
  return [
    { text: key, shown: maskedKey(prefix, last4) },
    { text: key.slice(prefix.length), shown: maskedKey('', last4) },
    ...(tail === undefined ? [] : [{ text: tail, shown: maskedKey('', last4) }]),
  ];
}

/**
 * Service text with keys taken out: the given secrets wherever they appear,
 * whole or without their prefix, escaped or not (util/redact.ts), any other
 * key (core/key-format.ts; kept as its prefix and last 4 characters,
 * `vp_live_…s3Td`, the way `vidpub me` shows a key), and a Bearer token.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  // The known secrets first, in any encoding; then key-shaped text, masked the way people
  // recognise their key (vp_live_…s3Td).
  const known = redactKnown(text, secrets.flatMap(secretForms));
  return replaceKeys(known, (prefix, secret) => maskedKey(prefix, lastFour(secret))).replace(/\b(Bearer\s+)[^\s"',;]{8,}/gi, '$1[redacted]');
}

/**
 * Why a key cannot be one, in its own sentence (the key itself is never
 * quoted): a space or line break inside it, a character that is not plain
 * ASCII (a curly quote or a non-breaking space pasted from a document), or a
 * control character. `source` says where it came from ("the key on stdin").
 * Undefined when the characters are fine.
 */
export function keyCharacterError(key: string, source: string): AuthError | undefined {
  const chars = [...key];
  const at = (i: number) => `character ${i + 1} of ${chars.length}`;
  for (const [pos, ch] of chars.entries()) {
    const cp = ch.codePointAt(0)!;
    if (/\s/u.test(ch)) {
      return new AuthError(`${source} has a space or line break inside it (${at(pos)}): a key is one unbroken word, so part of it is missing or something else was pasted with it.`, {
        hint: 'Copy the key again, whole, on one line (the web app shows it once, when it is created).',
      });
    }
    if (cp > 0x7e) {
      return new AuthError(`${source} has a character that is not plain ASCII (${at(pos)}), often a curly quote, a dash or a non-breaking space from a document or a chat: keys are ASCII letters, digits and "_".`, {
        hint: 'Copy the key again from the web app (or from a plain-text file), not from a formatted document.',
      });
    }
    if (cp < 0x21) {
      return new AuthError(`${source} has a control character (${at(pos)}): keys are ASCII letters, digits and "_".`, {
        hint: 'Copy the key again, whole, on one line.',
      });
    }
  }
  return undefined;
}

/** A response header's value (the first, when it came more than once). */
export function header(h: ResponseInfo['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** "HTTP 502 Bad Gateway" or "HTTP 400 invalid_field". */
function statusLabel(status: number, code?: string): string {
  return `HTTP ${status}${code ? ' ' + code : ' ' + statusText(status)}`;
}

/**
 * Maps a non-2xx response to the error hierarchy. `action` names what was
 * being done ("create a post") for permission messages.
 */
export function errorFromResponse(res: ResponseInfo, opts: { action?: string } = {}): VidpubError {
  // A service that echoes the key (in a message or anywhere in the body) never gets it shown: taken out
  // of the raw body, then out of what decoding it made (a JSON \u escape, an HTML entity).
  const redact = (t: string | undefined) => (t === undefined ? undefined : redactSecrets(t, res.secrets));
  const raw = parseErrorBody(redactSecrets(res.bodyText, res.secrets), header(res.headers, 'content-type'));
  const parsed = { ...raw, message: redact(raw.message)!, param: redact(raw.param), code: redact(raw.code), type: redact(raw.type) };
  const { status } = res;
  const http: HttpErrorDetails = {
    status,
    method: res.method,
    path: pathOf(res.url),
    type: parsed.type,
    code: parsed.code,
    param: parsed.param,
    body: parsed.json,
    retryAfterSec: res.retryAfterSec,
    ...(res.foreign !== undefined ? { foreign: res.foreign } : {}),
  };
  const label = statusLabel(status, parsed.code);
  const said = parsed.message || statusText(status);
  const where = `${res.method} ${redactUrl(res.url)}`;
  const code = parsed.code;

  if (status === 400 || status === 422) {
    const field = parsed.param ? ` (${sanitize(parsed.param)})` : '';
    return new UsageError(`The service refused the request${field}: ${said} (${label})`, {
      http,
      hint: code === 'idempotency_key_reused' ? 'An Idempotency-Key was reused for a different request; use a new key.' : undefined,
    });
  }
  if (status === 401) {
    const revoked = code === 'revoked_key';
    return new AuthError(`The API key was refused: ${said} (${label})`, {
      http,
      hint: revoked
        ? 'Create a new key in the web app (API settings), then run "vidpub login".'
        : 'Run "vidpub login" with a valid key, or set VIDPUB_API_KEY.',
    });
  }
  if (status === 403) return forbidden(http, `${said} (${label})`, opts.action);
  if (status === 404) {
    return new NotFoundError(`Not found: ${said} (${label})`, { http });
  }
  if (status === 409) {
    if (code === 'post_has_blocking_issues') {
      return new BlockedError(`The post has issues that block publishing: ${said} (${label})`, {
        http,
        hint: 'Run "vidpub status <post-id>" to see the issues, fix them, then publish again.',
      });
    }
    return new VidpubError(`The service refused the request: ${said} (${label})`, { http });
  }
  if (status === 429) {
    return new RateLimitError(`Rate limited${code ? ` (${code})` : ''}: ${said} (${label})`, {
      http,
      code,
      retryAfterSec: res.retryAfterSec,
      resetAt: parsed.resetAt,
      hint: res.retryAfterSec !== undefined ? `Try again in ${res.retryAfterSec}s, or raise --max-wait.` : 'Try again later, or raise --max-wait.',
    });
  }
  if (status >= 500) {
    return new ServiceError(`The service failed on ${where}: ${said} (${label})`, {
      http,
      hint: 'This is usually temporary: try again in a minute.',
    });
  }
  return new VidpubError(`Unexpected response to ${where}: ${said} (${label})`, { http });
}

/** A 403: a plan without API access, a read-only key, or another refusal. `said` is the service's words and the status. */
function forbidden(http: HttpErrorDetails, said: string, action: string | undefined): AuthError {
  if (http.code === 'plan_without_api_access') {
    // The service's own words say the same thing again: the status and code are enough.
    return new AuthError(`The workspace is on the Free plan, which has no API access (HTTP ${http.status} ${http.code}).`, {
      http,
      hint: 'API keys work on the Standard and Studio plans: upgrade the workspace, or use a key from another workspace.',
    });
  }
  if (http.code === 'read_only_key') {
    const need = action ? `a read_write key is needed to ${action}` : 'this request needs a read_write key';
    return new AuthError(`This API key is read-only; ${need}: ${said}`, {
      http,
      hint: 'Create a key with read and write access in the web app (API settings), then run "vidpub login".',
    });
  }
  return new AuthError(`Permission denied: ${said}`, { http });
}

/** Network-level codes that mean "the service could not be reached". */
const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response in time',
  UND_ERR_BODY_TIMEOUT: 'response body timed out',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CLOSED: 'connection closed',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

/** The error code of a network failure (undici wraps some in `cause`). */
export function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True for failures worth retrying (the request may not have reached the service, or it timed out). */
export function isRetryableNetworkError(err: unknown): boolean {
  if (err instanceof AnswerTooLargeError) return false;
  const code = networkCode(err);
  if (!code || isHopelessNetError(err)) return false;
  return !/CERT|TLS|SELF_SIGNED|ALTNAME|ENOTFOUND/.test(code);
}

/** A network failure as a ServiceError naming the URL tried. */
export function networkError(err: unknown, method: string, url: string, attempts: number): ServiceError {
  if (err instanceof AnswerTooLargeError) return answerTooLarge(err, method, url);
  const problem = netProblem(err, method, url);
  if (problem) return problem;
  const code = networkCode(err);
  const reason = (code && CONNECT_CODES[code]) ?? sanitize(err instanceof Error ? err.message : String(err));
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  return new ServiceError(`Could not reach the service at ${redactUrl(url)}${tries}: ${reason}${code ? ` (${code})` : ''}`, {
    cause: err,
    http: { status: 0, method, path: pathOf(url) },
    hint: 'Check your connection and the base URL (--base-url, VIDPUB_BASE_URL or the profile from "vidpub login").',
  });
}

/** An answer cut off for its size (net/answer-limit.ts): named with its size and the URL; not the service's word. */
function answerTooLarge(err: AnswerTooLargeError, method: string, url: string): ServiceError {
  const size = err.announced !== undefined ? `${formatSize(err.announced)} (its Content-Length)` : `more than ${formatSize(err.limit)} (it was still arriving)`;
  const what = err.status >= 200 && err.status < 300 ? 'an answer of the service' : 'an error body';
  return new ServiceError(`The answer to ${method} ${redactUrl(url)} (HTTP ${err.status}) was cut off: it is ${size}, far more than ${what} can be (at most ${formatSize(err.limit)} is read).`, {
    cause: err,
    http: { status: err.status, method, path: pathOf(url), foreign: `HTTP ${err.status} of ${size}` },
    hint: 'Something other than the service may be answering at this address (a proxy, a captive portal): check the base URL (--base-url, VIDPUB_BASE_URL or the profile), and run with --debug to see the request.',
  });
}

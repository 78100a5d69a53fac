/**
 * Whether an answer is the service's word: the one rule behind every "outcome
 * unknown" that is not a lost answer (docs/reliability.md, "Reliability").
 *
 * An answer is the service's word only when it is
 * - a 2xx whose body is JSON that the resource's expectation accepts (each
 *   write resource says what its record must carry: an `id`, an upload link),
 *   or
 * - an error status with the service's error body,
 *   {"error":{"type","code","message"}} (gaps.md, "Errors"), other than 502
 *   and 504, which only something in front of the service answers.
 *
 * Anything else (a load balancer's HTML page, a body that does not parse, a
 * success without an id, a WAF's 403, JSON of another shape) came from
 * something else, or from the service in a way that says nothing: after a
 * write that may have been sent, its outcome is unknown. A read is only
 * refused, with what was seen.
 */
import { sanitize } from '../../errors.js';
import { header, type ResponseInfo } from './http-errors.js';
import { JsonTooDeepError, MAX_JSON_DEPTH, parseAnswerJson } from './json-answer.js';

/** What a resource requires of its record; returns what is missing ("without an id"), or undefined when the record will do. */
export type Expectation = (body: unknown) => string | undefined;

/** What was seen, for a message: "HTTP 503 (text/html)", "HTTP 201 (application/json) without an id". */
export function answerSeen(status: number, headers: ResponseInfo['headers'], detail?: string): string {
  const type = header(headers, 'content-type')?.split(';')[0]?.trim();
  return `HTTP ${status} (${type ? sanitize(type).slice(0, 60) : 'no content type'})${detail ? ` ${detail}` : ''}`;
}

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** The service's error body: an object whose `error` has a type, a code and a message, all strings. */
export function isServiceErrorBody(json: unknown): boolean {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return false;
  const e = (json as { error?: unknown }).error;
  if (!e || typeof e !== 'object' || Array.isArray(e)) return false;
  const { type, code, message } = e as Record<string, unknown>;
  return isText(type) && isText(code) && typeof message === 'string';
}

/** Statuses the service never answers: only a gateway in front of it does (the contract's only 5xx is 500). */
const GATEWAY_STATUSES = new Set([502, 504]);

/** Whether an error status with this body text is the service's own refusal or failure. */
export function isServiceError(status: number, text: string): boolean {
  if (GATEWAY_STATUSES.has(status)) return false;
  try {
    return isServiceErrorBody(parseAnswerJson(text));
  } catch {
    return false;
  }
}

/** A success read as the service's record: the parsed body, or what made it not one. */
export type SuccessReading = { ok: true; body: unknown } | { ok: false; seen: string };

/** Reads a 2xx: JSON the expectation accepts (a 204 carries nothing and needs no body). */
export function readSuccess(status: number, headers: ResponseInfo['headers'], text: string, expect?: Expectation): SuccessReading {
  if (status === 204 && text.trim() === '' && !expect) return { ok: true, body: undefined };
  let body: unknown;
  try {
    body = parseAnswerJson(text);
  } catch (err) {
    const detail = err instanceof JsonTooDeepError ? `whose JSON nests deeper than ${MAX_JSON_DEPTH} levels` : text.trim() === '' ? 'with an empty body' : 'is not JSON';
    return { ok: false, seen: answerSeen(status, headers, detail) };
  }
  const missing = expect?.(body);
  return missing === undefined ? { ok: true, body } : { ok: false, seen: answerSeen(status, headers, missing) };
}

const field = (body: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined), body);

/** An expectation: the record carries a non-empty string at each path ("id", "media.id"). */
export function carries(...paths: string[]): Expectation {
  return (body) => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return 'whose JSON is not a record';
    const missing = paths.find((p) => !isText(field(body, p)));
    return missing === undefined ? undefined : `without ${missing === 'id' ? 'an id' : `"${missing}"`}`;
  };
}

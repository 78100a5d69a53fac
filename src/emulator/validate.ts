/** Small request-body readers that throw 400s in the gaps.md shape. */
import { serviceChars } from '../contract/service-rules.js';
import { badRequest, invalidField, missingField } from './service-errors.js';

export type Json = Record<string, unknown>;

/** A request body as an object: no body (undefined) is `{}`; JSON that is not an object (`null` too) is a 400. */
export function asObject(body: unknown): Json {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalid_json', 'The request body must be a JSON object.');
  }
  return body as Json;
}

/** o[key], a non-blank string of at most maxLength characters (serviceChars); `param` names it in errors (default: key). */
export function requiredString(o: Json, key: string, what: string, maxLength = 10_000, param = key): string {
  const v = o[key];
  if (v === undefined || v === null) throw missingField(param, what);
  if (typeof v !== 'string') throw invalidField(param, `${param} must be a string (${what}).`);
  if (v.trim() === '') throw invalidField(param, `${param} must not be empty (${what}).`);
  if (serviceChars(v) > maxLength) throw invalidField(param, `${param} must be at most ${maxLength} characters long.`);
  return v;
}

export function optionalString(o: Json, key: string, maxLength: number): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidField(key, `${key} must be a string.`);
  const chars = serviceChars(v);
  if (chars > maxLength) throw invalidField(key, `${key} must be at most ${maxLength} characters long (got ${chars}).`);
  return v;
}

/** Parses a JSON request body sent as text; empty -> undefined. */
export function parseJsonBody(raw: string, contentType: string | undefined): unknown {
  if (raw.trim() === '') return undefined;
  const ct = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (ct !== 'application/json' && !ct.endsWith('+json')) {
    throw badRequest('invalid_json', `Send the request body as JSON with "Content-Type: application/json"${ct ? ` (got "${ct}")` : ''}.`);
  }
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw badRequest('invalid_json', `The request body is not valid JSON: ${(err as Error).message}.`);
  }
}

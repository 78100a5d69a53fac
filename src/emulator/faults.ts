/**
 * Fault injection for tests (POST /_emulator/faults): per-request faults
 * (connection reset before/after handling, a canned status, a delay, a
 * request never answered — `hang`, the body of an upload not read either —
 * and a response body trickled one byte every `ms` — `trickle`) matched
 * by method and path (a trailing "*" makes the path a prefix), and
 * persistent outcome faults for media processing and destinations.
 */
import { ServiceError, errorBody } from './service-errors.js';

export type RequestFaultAction = 'reset_after_handling' | 'reset_before_handling' | 'status' | 'delay' | 'hang' | 'trickle';

export interface RequestFault {
  id: number;
  method: string;
  path: string;
  action: RequestFaultAction;
  status?: number;
  ms?: number;
  body?: string;
  content_type?: string;
  /** Seconds for Retry-After; null = send none. */
  retry_after?: number | null;
  /** How many more requests this fault applies to. */
  times: number;
}

export interface FaultList {
  requests: RequestFault[];
  media_fail: string[];
  destination_fail: string[];
}

const invalid = (message: string, param?: string): ServiceError =>
  new ServiceError(400, 'invalid_field', message, param === undefined ? {} : { param });

/**
 * At most this many faults (request faults, media_fail and destination_fail
 * together): every request is matched against the request faults, so an
 * unbounded list slows the whole emulator down (375 000 faults took GET /v1/me
 * from ~10 000 to ~180 requests a second). Beyond it, POST /_emulator/faults
 * is refused with 409 too_many_faults and adds nothing.
 */
export const MAX_FAULTS = 1000;
/** Longest path, media_fail or destination_fail text, and longest canned body, in characters. */
export const MAX_FAULT_TEXT = 2048;
export const MAX_FAULT_BODY = 65_536;

const tooLong = (name: string, max: number): ServiceError => invalid(`${name} must be at most ${max} characters.`, name);

const ACTIONS: readonly RequestFaultAction[] = ['reset_after_handling', 'reset_before_handling', 'status', 'delay', 'hang', 'trickle'];

export class Faults {
  private requestFaults: RequestFault[] = [];
  private mediaFail: string[] = [];
  private destinationFail = new Set<string>();
  private nextId = 1;

  clear(): void {
    this.requestFaults = [];
    this.mediaFail = [];
    this.destinationFail.clear();
  }

  /** Puts back what list() gave (a state kept by `vidpub emulator --state`, an import). */
  restore(list: FaultList): void {
    this.requestFaults = list.requests.map((f) => ({ ...f }));
    this.mediaFail = [...list.media_fail];
    this.destinationFail = new Set(list.destination_fail);
    this.nextId = Math.max(this.nextId, ...this.requestFaults.map((f) => f.id + 1));
  }

  /** How many faults are held. */
  get size(): number {
    return this.requestFaults.length + this.mediaFail.length + this.destinationFail.size;
  }

  /** Whether any request fault is held (requests are matched against them only then). */
  get holdsRequestFaults(): boolean {
    return this.requestFaults.length > 0;
  }

  /** Refuses adding `count` more faults beyond MAX_FAULTS (before any is added). */
  checkRoom(count: number): void {
    if (this.size + count > MAX_FAULTS) {
      throw new ServiceError(409, 'too_many_faults', `The emulator holds at most ${MAX_FAULTS} faults; it has ${this.size} and this request adds ${count}. Nothing was added: clear them with DELETE /_emulator/faults (or POST /_emulator/reset), or use "times" to repeat one fault.`, { extra: { limit: MAX_FAULTS, held: this.size } });
    }
  }

  list(): FaultList {
    return {
      requests: this.requestFaults.map((f) => ({ ...f })),
      media_fail: [...this.mediaFail],
      destination_fail: [...this.destinationFail],
    };
  }

  /** Validates and adds one fault spec (see docs/emulator.md, "Test controls"). */
  add(spec: unknown): RequestFault | { media_fail: string } | { destination_fail: string } {
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw invalid('A fault must be a JSON object.');
    const s = spec as Record<string, unknown>;
    if ('media_fail' in s) {
      if (typeof s.media_fail !== 'string' || s.media_fail === '') throw invalid('media_fail must be a non-empty string (part of a filename or link).', 'media_fail');
      if (s.media_fail.length > MAX_FAULT_TEXT) throw tooLong('media_fail', MAX_FAULT_TEXT);
      this.checkRoom(1);
      this.mediaFail.push(s.media_fail);
      return { media_fail: s.media_fail };
    }
    if ('destination_fail' in s) {
      if (typeof s.destination_fail !== 'string' || s.destination_fail === '') throw invalid('destination_fail must be a destination id.', 'destination_fail');
      if (s.destination_fail.length > MAX_FAULT_TEXT) throw tooLong('destination_fail', MAX_FAULT_TEXT);
      if (!this.destinationFail.has(s.destination_fail)) this.checkRoom(1);
      this.destinationFail.add(s.destination_fail);
      return { destination_fail: s.destination_fail };
    }
    const method = s.method === undefined ? '*' : s.method;
    if (typeof method !== 'string' || !/^([A-Za-z]+|\*)$/.test(method)) throw invalid('method must be an HTTP method such as "POST", or "*".', 'method');
    if (typeof s.path !== 'string' || !s.path.startsWith('/')) throw invalid('path must start with "/" (end it with "*" to match a prefix).', 'path');
    if (s.path.length > MAX_FAULT_TEXT) throw tooLong('path', MAX_FAULT_TEXT);
    if (typeof s.action !== 'string' || !ACTIONS.includes(s.action as RequestFaultAction)) {
      throw invalid(`action must be one of ${ACTIONS.join(', ')}.`, 'action');
    }
    const times = s.times === undefined ? 1 : s.times;
    if (typeof times !== 'number' || !Number.isInteger(times) || times < 1) throw invalid('times must be a whole number of at least 1.', 'times');
    const fault: RequestFault = { id: this.nextId++, method: method.toUpperCase(), path: s.path, action: s.action as RequestFaultAction, times };
    if (fault.action === 'status') {
      if (typeof s.status !== 'number' || !Number.isInteger(s.status) || s.status < 200 || s.status > 599) {
        throw invalid('status must be an HTTP status from 200 to 599.', 'status');
      }
      fault.status = s.status;
      if (s.body !== undefined) {
        if (typeof s.body !== 'string') throw invalid('body must be a string (sent as is).', 'body');
        if (s.body.length > MAX_FAULT_BODY) throw tooLong('body', MAX_FAULT_BODY);
        fault.body = s.body;
      }
      if (s.content_type !== undefined) {
        if (typeof s.content_type !== 'string' || s.content_type === '') throw invalid('content_type must be a string.', 'content_type');
        fault.content_type = s.content_type;
      }
      if (s.retry_after !== undefined) {
        if (s.retry_after !== null && (typeof s.retry_after !== 'number' || !Number.isInteger(s.retry_after) || s.retry_after < 0)) {
          throw invalid('retry_after must be a whole number of seconds, or null for no Retry-After header.', 'retry_after');
        }
        fault.retry_after = s.retry_after;
      }
    } else if (fault.action === 'delay') {
      if (typeof s.ms !== 'number' || !Number.isFinite(s.ms) || s.ms < 0 || s.ms > 600_000) throw invalid('ms must be a number of milliseconds from 0 to 600000.', 'ms');
      fault.ms = s.ms;
    } else if (fault.action === 'trickle') {
      // The pause before each byte of the response body (the request is handled as usual).
      const ms = s.ms === undefined ? 1000 : s.ms;
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 1 || ms > 60_000) throw invalid('ms must be a number of milliseconds from 1 to 60000 (the pause before each byte).', 'ms');
      fault.ms = ms;
    }
    this.checkRoom(1);
    this.requestFaults.push(fault);
    return { ...fault };
  }

  /** The first request fault matching this request; consumes one of its `times`. */
  take(method: string, path: string): RequestFault | undefined {
    if (this.requestFaults.length === 0) return undefined;
    const m = method.toUpperCase();
    const i = this.requestFaults.findIndex((f) => (f.method === '*' || f.method === m) && pathMatches(f.path, path));
    if (i < 0) return undefined;
    const f = this.requestFaults[i]!;
    f.times -= 1;
    if (f.times <= 0) this.requestFaults.splice(i, 1);
    return { ...f };
  }

  mediaFails(...texts: (string | null | undefined)[]): string | undefined {
    return this.mediaFail.find((needle) => texts.some((t) => typeof t === 'string' && t.includes(needle)));
  }

  destinationFails(destinationId: string): boolean {
    return this.destinationFail.has(destinationId);
  }
}

function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}

const STATUS_CODES: Record<number, [string, string]> = {
  400: ['invalid_request', 'invalid_field'],
  401: ['authentication_error', 'invalid_key'],
  403: ['permission_error', 'read_only_key'],
  404: ['not_found', 'not_found'],
  409: ['conflict', 'conflict'],
  429: ['rate_limited', 'requests_per_minute'],
  500: ['api_error', 'internal_error'],
  502: ['api_error', 'bad_gateway'],
  503: ['api_error', 'service_unavailable'],
  504: ['api_error', 'gateway_timeout'],
};

/** Response of a `status` fault: its own body, or a JSON error body in the usual shape. */
export function statusFaultResponse(f: RequestFault): { status: number; headers: Record<string, string>; body: string } {
  const status = f.status ?? 503;
  const headers: Record<string, string> = {};
  const retryAfter = f.retry_after === undefined ? (status === 429 || status === 503 ? 1 : null) : f.retry_after;
  if (retryAfter !== null) headers['Retry-After'] = String(retryAfter);
  if (f.body !== undefined) {
    headers['Content-Type'] = f.content_type ?? 'text/plain; charset=utf-8';
    return { status, headers, body: f.body };
  }
  headers['Content-Type'] = f.content_type ?? 'application/json; charset=utf-8';
  const [type, code] = STATUS_CODES[status] ?? (status >= 500 ? ['api_error', 'internal_error'] : ['invalid_request', 'invalid_field']);
  const body = status < 400 ? '{}' : JSON.stringify(errorBody(type, code, `The service answered ${status} (fault injected by the emulator; the request was not handled).`));
  return { status, headers, body };
}

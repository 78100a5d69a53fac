/**
 * Typed errors of the emulated service and the one JSON error body shape
 * (gaps.md "Errors"): {"error": {"type", "code", "message", "param"?}}.
 */
import type { ApiErrorBody, ErrorType, Issue } from '../contract/wire-types.js';
import { clip } from './request-log.js';

const TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found',
  409: 'conflict',
  413: 'invalid_request',
  429: 'rate_limited',
  500: 'api_error',
};

export interface ServiceErrorOptions {
  param?: string;
  /** Extra response headers (Retry-After, WWW-Authenticate...). */
  headers?: Record<string, string>;
  /** Extra fields inside `error` (reset_at, issues...). */
  extra?: Record<string, unknown>;
  /** Override the type derived from the status. */
  type?: ErrorType;
}

export class ServiceError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param?: string;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(status: number, code: string, message: string, opts: ServiceErrorOptions = {}) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
    this.code = code;
    this.type = opts.type ?? TYPE_BY_STATUS[status] ?? 'api_error';
    this.param = opts.param;
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
  }

  toBody(): ApiErrorBody {
    return errorBody(this.type, this.code, this.message, this.param, this.extra);
  }
}

export function errorBody(
  type: string,
  code: string,
  message: string,
  param?: string,
  extra: Record<string, unknown> = {},
): ApiErrorBody {
  const error: ApiErrorBody['error'] & Record<string, unknown> = { type, code, message };
  if (param !== undefined) error.param = param;
  Object.assign(error, extra);
  return { error };
}

// ------------------------------------------------------------------ helpers

export const badRequest = (code: string, message: string, param?: string): ServiceError =>
  new ServiceError(400, code, message, param === undefined ? {} : { param });

export const missingField = (param: string, what: string): ServiceError =>
  badRequest('missing_field', `${param} is required: ${what}.`, param);

export const invalidField = (param: string, message: string): ServiceError =>
  badRequest('invalid_field', message, param);

export const notFound = (what: string, id: string, param?: string): ServiceError =>
  new ServiceError(404, 'not_found', `No ${what} with id "${clip(id, 200)}" in this workspace.`, param === undefined ? {} : { param });

export const conflict = (code: string, message: string, extra?: Record<string, unknown>): ServiceError =>
  new ServiceError(409, code, message, extra ? { extra } : {});

export const blockingIssues = (issues: Issue[], extra: Record<string, unknown> = {}): ServiceError => {
  const blocking = issues.filter((i) => i.severity === 'error');
  const list = blocking.map((i) => i.message).join(' ');
  return new ServiceError(
    409,
    'post_has_blocking_issues',
    `The post cannot be published while ${blocking.length === 1 ? 'an issue' : `${blocking.length} issues`} of severity error remain${blocking.length === 1 ? 's' : ''}: ${list}`,
    { extra: { ...extra, issues } },
  );
};

export const internalError = (): ServiceError =>
  new ServiceError(500, 'internal_error', 'The emulator hit an unexpected error while handling this request.');

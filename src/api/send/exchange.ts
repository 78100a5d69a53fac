/**
 * One HTTP exchange of the request sender: the headers every request
 * carries (the key to the service's origin only), the transport's answer,
 * and the --debug lines of both.
 */
import { sanitize } from '../../errors.js';
import type { ResponseMeta } from '../client.js';
import type { DebugLogger } from './debug.js';
import { header, parseErrorBody, redactSecrets } from './http-errors.js';
import type { Transport } from '../net/transport.js';

export type Headers = Record<string, string | string[] | undefined>;

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Set on the response the sender returns. */
  meta?: ResponseMeta;
}

export interface Exchange {
  transport: Transport;
  debug: DebugLogger;
  method: string;
  url: string;
  /** The API key, when the URL is on the service's origin. */
  key: string | undefined;
  userAgent: string;
  body: string | undefined;
  idempotencyKey: string | undefined;
  signal: AbortSignal;
  attempt: number;
}

/** One HTTP exchange, logged. */
export async function exchange(x: Exchange): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': x.userAgent };
  if (x.key !== undefined) headers.authorization = `Bearer ${x.key}`;
  if (x.idempotencyKey) headers['idempotency-key'] = x.idempotencyKey;
  if (x.body !== undefined) headers['content-type'] = 'application/json';
  const done = x.debug.request(x.method, x.url, [x.idempotencyKey ? `idempotency-key=${x.idempotencyKey}` : '', x.attempt > 1 ? `attempt=${x.attempt}` : ''].filter(Boolean).join(' '));
  try {
    const res = await x.transport.request(x.url, { method: x.method, headers, body: x.body, signal: x.signal });
    done(res.statusCode, debugExtra(res.statusCode, res.headers, res.text, x.key));
    return { status: res.statusCode, headers: res.headers, text: res.text };
  } catch (err) {
    done('ERR', networkReason(err));
    throw err;
  }
}

/**
 * What the --debug line of a response adds: rate-limit headers, a replay, Retry-After, an error's message
 * (the key taken out of the body before it is cut to 120 characters: a cut form of it is no longer found).
 */
function debugExtra(status: number, h: Headers, text: string, key: string | undefined): string {
  return [
    header(h, 'x-ratelimit-remaining') !== undefined ? `remaining=${header(h, 'x-ratelimit-remaining')}/${header(h, 'x-ratelimit-limit') ?? '?'} reset=${header(h, 'x-ratelimit-reset') ?? '?'}s` : '',
    header(h, 'idempotent-replayed') === 'true' ? 'replayed' : '',
    header(h, 'retry-after') !== undefined ? `retry-after=${header(h, 'retry-after')}` : '',
    status >= 400 ? `body=${JSON.stringify(parseErrorBody(redactSecrets(text, key === undefined ? [] : [key]), header(h, 'content-type')).message.slice(0, 120))}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** A network failure in a few words, for --debug and retry notices. */
export function networkReason(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const msg = err instanceof Error ? err.message : String(err);
  return sanitize(typeof code === 'string' ? `${code}: ${msg}` : msg);
}

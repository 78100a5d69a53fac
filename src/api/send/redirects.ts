/**
 * Which redirects the request sender follows: within the service's origin
 * only (the API key is sent nowhere else), at most MAX_REDIRECTS in a row,
 * and never one that would turn a write into a GET.
 */
import { ServiceError } from '../../errors.js';
import { redactUrl } from './debug.js';
import { header, type ResponseInfo } from './http-errors.js';

export const MAX_REDIRECTS = 5;

export function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

export interface RedirectAnswer {
  status: number;
  headers: ResponseInfo['headers'];
  method: string;
  /** The URL that was asked. */
  url: string;
  /** The redirects followed so far, this one included. */
  count: number;
  /** The service's origin. */
  origin: URL;
}

/** Where a 3xx points, or a ServiceError saying why vidpub does not follow it. */
export function redirectTarget(r: RedirectAnswer): URL {
  const location = header(r.headers, 'location');
  const from = new URL(r.url);
  const fail = (why: string) =>
    new ServiceError(`The service answered ${r.method} ${redactUrl(r.url)} with a redirect (HTTP ${r.status}) that vidpub does not follow: ${why}`, {
      http: { status: r.status, method: r.method, path: from.pathname },
      hint: 'Check the base URL (--base-url, VIDPUB_BASE_URL or the profile): it should be the service root, including /v1.',
    });
  if (!location) throw fail('no Location header');
  let to: URL;
  try {
    to = new URL(location, r.url);
  } catch {
    throw fail('an invalid Location');
  }
  if (!sameOrigin(to, r.origin)) {
    throw fail(`it points to another origin (${redactUrl(to.origin)}), and the API key is only ever sent to ${r.origin.origin}`);
  }
  if (r.count > MAX_REDIRECTS) throw fail('too many redirects');
  if (r.method !== 'GET' && r.status !== 307 && r.status !== 308) throw fail(`HTTP ${r.status} would turn the ${r.method} into a GET`);
  return to;
}

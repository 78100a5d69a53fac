/**
 * The one home of what a program vidpub starts sees of its environment: the browser opener
 * (`vidpub open`, `--web`), the keychain helper, the caption editor ($VISUAL / $EDITOR). They
 * get vidpub's environment (a browser needs DISPLAY, an editor TERM, the keychain D-Bus)
 * without vidpub's secrets:
 * - VIDPUB_API_KEY, and any variable whose value holds a key (core/key-format.ts: a prefix
 *   ending in `_live_`, then the secret): a key put in a variable of another name, or a key
 *   file's contents exported by a script;
 * - the credentials of a proxy URL (`http://user:pass@proxy:3128` in HTTP_PROXY, HTTPS_PROXY,
 *   ALL_PROXY, FTP_PROXY, any case): the URL is kept without them, so the browser still finds
 *   the proxy; a value with `@` that cannot be read as a URL is left out whole.
 * A key never reaches a child by its argv either (the keychain helper reads it on stdin).
 */

import { holdsKey } from '../core/key-format.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The variables that may name a proxy, with credentials in its URL. */
const PROXY_VARIABLE = /^(?:https?|all|ftp)_proxy$/i;

/** Variables never handed on, whatever they hold. */
const SECRET_VARIABLES = new Set(['VIDPUB_API_KEY']);

/** A proxy URL without its user and password; undefined when it cannot be read but may hold them. */
export function withoutCredentials(value: string): string | undefined {
  if (!value.includes('@')) return value;
  // curl reads "user:pass@proxy:3128" without a scheme as http://.
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? '' : 'http://';
  let url: URL;
  try {
    url = new URL(scheme + value);
  } catch {
    return undefined;
  }
  if (!url.username && !url.password) return value;
  url.username = '';
  url.password = '';
  const shown = url.href.slice(scheme.length);
  // URL adds a "/" to a bare host: the value stays as it was written.
  return !value.endsWith('/') && shown.endsWith('/') && url.pathname === '/' && !url.search && !url.hash ? shown.slice(0, -1) : shown;
}

/** The environment for a program vidpub starts: `env` without vidpub's secrets. */
export function childEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_VARIABLES.has(name.toUpperCase()) || holdsKey(value)) continue;
    if (PROXY_VARIABLE.test(name)) {
      const kept = withoutCredentials(value);
      if (kept !== undefined) out[name] = kept;
      continue;
    }
    out[name] = value;
  }
  return out;
}

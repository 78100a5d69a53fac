/**
 * The --debug log (VIDPUB_DEBUG=1): one line per request and per response on
 * stderr, with timings. Secrets never reach it: the Authorization value is
 * replaced, and a URL's query string (where a signed upload URL keeps its
 * signature) is dropped. The upload code reuses this for the signed PUT.
 */

/** `https://h/p?sig=...` -> `https://h/p?[redacted]`: the signature of a signed URL stays secret. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  const end = q >= 0 ? q : h >= 0 ? h : url.length;
  const base = url.slice(0, end);
  // Userinfo (https://user:pass@host) is a secret too.
  const noUser = base.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1[redacted]@');
  return q >= 0 ? `${noUser}?[redacted]` : noUser;
}

/** Headers for a debug line: Authorization (and anything that looks like a secret) replaced. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (lower === 'authorization' || lower === 'proxy-authorization' || lower === 'cookie' || lower === 'set-cookie' || lower.includes('api-key')) {
      out[name] = text.startsWith('Bearer ') ? 'Bearer [redacted]' : '[redacted]';
    } else {
      out[name] = text;
    }
  }
  return out;
}

export interface DebugLogger {
  readonly enabled: boolean;
  /** Writes one line (prefixed, timestamped relative to the first line) when enabled. */
  line(text: string): void;
  /** `→ GET https://h/v1/me` (URL redacted). Returns a function that logs the matching response line. */
  request(method: string, url: string, detail?: string): (status: number | string, detail?: string) => void;
}

/** Where debug lines go: stderr in the CLI. */
export interface DebugOut {
  write(text: string): unknown;
}

/**
 * A debug logger writing to `out` (none: disabled). `now` is a monotonic-ish
 * clock in ms (the session's clock is fine; tests pass a scaled one).
 */
export function createDebugLogger(opts: {
  out: DebugOut | undefined;
  now: () => number;
  /** Extra secrets to scrub from every line, whatever the caller passed (e.g. the API key). */
  secrets?: () => (string | undefined)[];
}): DebugLogger {
  const { out, now } = opts;
  const enabled = out !== undefined;
  const scrub = (text: string) => {
    let out = text;
    for (const s of opts.secrets?.() ?? []) {
      if (s && s.length >= 4) out = out.split(s).join('[redacted]');
    }
    return out;
  };
  const line = (text: string) => {
    out?.write(`[debug] ${scrub(text)}\n`);
  };
  return {
    enabled,
    line,
    request(method, url, detail) {
      const started = now();
      const target = `${method} ${redactUrl(url)}`;
      line(`→ ${target}${detail ? ' ' + detail : ''}`);
      return (status, rdetail) => {
        line(`← ${status} ${target} (${Math.max(0, Math.round(now() - started))} ms)${rdetail ? ' ' + rdetail : ''}`);
      };
    },
  };
}

import { describe, expect, test } from 'vitest';
import { createDebugLogger, redactHeaders, redactUrl } from '../../src/api/send/debug.js';
import { errorFromResponse, htmlToLine, networkError, parseErrorBody } from '../../src/api/send/http-errors.js';
import { normalizeBaseUrl } from '../../src/api/credentials.js';
import { isLoopbackHost } from '../../src/contract/addresses.js';
import { backoffDelay, parseRetryAfter } from '../../src/api/send/backoff.js';
import { AuthError, BlockedError, ExitCode, NotFoundError, RateLimitError, ServiceError, UsageError, VidpubError } from '../../src/errors.js';
import { PassThrough } from 'node:stream';

const URL_ME = 'https://api.example.com/v1/me';

function err(status: number, body: string, contentType = 'application/json', extra: { retryAfterSec?: number; action?: string } = {}) {
  return errorFromResponse(
    { status, method: 'POST', url: 'https://api.example.com/v1/posts', headers: { 'content-type': contentType }, bodyText: body, retryAfterSec: extra.retryAfterSec },
    { action: extra.action },
  );
}

const gaps = (type: string, code: string, message: string, more: Record<string, unknown> = {}) => JSON.stringify({ error: { type, code, message, ...more } });

describe('error bodies of any shape become one clean line', () => {
  test('the JSON of gaps.md: message, code, param', () => {
    const p = parseErrorBody(gaps('invalid_request', 'invalid_field', 'caption is too long', { param: 'caption' }), 'application/json');
    expect(p).toMatchObject({ message: 'caption is too long', code: 'invalid_field', type: 'invalid_request', param: 'caption' });
  });

  test('other JSON: message, error string, or the JSON itself', () => {
    expect(parseErrorBody('{"message":"nope"}', 'application/json').message).toBe('nope');
    expect(parseErrorBody('{"error":"bad thing","code":"x"}', 'application/json')).toMatchObject({ message: 'bad thing', code: 'x' });
    expect(parseErrorBody('{"weird":1}', 'application/json').message).toBe('{"weird":1}');
    expect(parseErrorBody('[1,2]', 'application/json').message).toBe('[1,2]');
  });

  test('HTML: the <title>, else the heading, else the text, one line', () => {
    expect(htmlToLine('<html><head><title>502 Bad\n Gateway</title></head><body><h1>x</h1></body></html>')).toBe('502 Bad Gateway');
    expect(htmlToLine('<html><body><h1>Service &amp; co down</h1></body></html>')).toBe('Service & co down');
    expect(htmlToLine('<html><body><p>Upstream\nerror</p><script>var x=1</script></body></html>')).toBe('Upstream error');
  });

  test('empty body: the status text', () => {
    const e = err(503, '', 'text/plain');
    expect(e.message).toMatch(/Service Unavailable/);
    expect(e.message).toMatch(/HTTP 503/);
  });

  test('control characters and ANSI escapes from the server are shown escaped, line breaks as a space', () => {
    const e = err(400, gaps('invalid_request', 'invalid_field', 'bad\u001b[31m red\u0007 \r\nline'));
    // eslint-disable-next-line no-control-regex
    expect(e.message).not.toMatch(/[\u0000-\u001f]/);
    expect(e.message).toMatch(/bad\\e\[31m red\\x07 line/);
  });

  test('JSON that does not parse is shown as text', () => {
    expect(parseErrorBody('{"error": {"message": "cut', 'application/json').message).toBe('{"error": {"message": "cut');
  });

  test('very long bodies are truncated', () => {
    expect(parseErrorBody('x'.repeat(5000), 'text/plain').message.length).toBeLessThanOrEqual(300);
  });
});

describe('statuses map to the error hierarchy and exit codes', () => {
  test('400 -> usage (2), naming the field', () => {
    const e = err(400, gaps('invalid_request', 'missing_field', 'caption is required', { param: 'caption' }));
    expect(e).toBeInstanceOf(UsageError);
    expect(e.exitCode).toBe(ExitCode.USAGE);
    expect(e.message).toMatch(/\(caption\): caption is required \(HTTP 400 missing_field\)/);
    expect(e.http).toMatchObject({ status: 400, method: 'POST', path: '/v1/posts', code: 'missing_field', param: 'caption' });
  });

  test('401 -> auth (3) with a login hint; revoked says to create a new key', () => {
    const e = err(401, gaps('authentication_error', 'invalid_key', 'The API key is not valid.'));
    expect(e).toBeInstanceOf(AuthError);
    expect(e.exitCode).toBe(3);
    expect(e.hint).toMatch(/vidpub login/);
    expect(err(401, gaps('authentication_error', 'revoked_key', 'revoked')).hint).toMatch(/new key/);
  });

  test('403 plan_without_api_access names the Free plan', () => {
    const e = err(403, gaps('permission_error', 'plan_without_api_access', 'No API access on this plan.'));
    expect(e).toBeInstanceOf(AuthError);
    expect(e.message).toMatch(/Free plan/);
  });

  test('403 read_only_key says a read_write key is needed for the action', () => {
    const e = err(403, gaps('permission_error', 'read_only_key', 'This key can only read.'), 'application/json', { action: 'create a post' });
    expect(e.exitCode).toBe(3);
    expect(e.message).toMatch(/^This API key is read-only; a read_write key is needed to create a post: This key can only read\. \(HTTP 403 read_only_key\)$/);
  });

  test('404 -> not found (5)', () => {
    const e = err(404, gaps('not_found', 'not_found', 'No post pst_x.'));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e.exitCode).toBe(5);
  });

  test('409 post_has_blocking_issues -> blocked (8); other 409 -> 1', () => {
    const b = err(409, gaps('conflict', 'post_has_blocking_issues', 'Fix the issues first.'));
    expect(b).toBeInstanceOf(BlockedError);
    expect(b.exitCode).toBe(8);
    const c = err(409, gaps('conflict', 'media_not_ready', 'The video is still processing.'));
    expect(c.constructor).toBe(VidpubError);
    expect(c.exitCode).toBe(1);
  });

  test('429 -> rate limited (4) with retry-after, code and reset_at', () => {
    const e = err(429, gaps('rate_limited', 'daily_post_limit', 'used up', { reset_at: '2030-01-02T00:00:00Z' }), 'application/json', { retryAfterSec: 30 });
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e.exitCode).toBe(4);
    expect(e).toMatchObject({ retryAfterSec: 30, code: 'daily_post_limit', resetAt: '2030-01-02T00:00:00Z' });
  });

  test('5xx -> service error (1); HTML page becomes its title', () => {
    const e = err(502, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', 'text/html');
    expect(e).toBeInstanceOf(ServiceError);
    expect(e.exitCode).toBe(1);
    expect(e.message).toBe('The service failed on POST https://api.example.com/v1/posts: 502 Bad Gateway (HTTP 502 Bad Gateway)');
  });

  test('a network failure names the URL tried, without its query string', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const e = networkError(cause, 'GET', 'http://127.0.0.1:9/v1/me?x=secret', 4);
    expect(e.exitCode).toBe(1);
    expect(e.message).toBe('Could not reach the service at http://127.0.0.1:9/v1/me?[redacted] after 4 attempts: connection refused (ECONNREFUSED)');
  });
});

describe('redaction', () => {
  test('redactUrl drops the query string and user info', () => {
    expect(redactUrl('https://store.example.com/up/med_1?sig=abc&exp=1')).toBe('https://store.example.com/up/med_1?[redacted]');
    expect(redactUrl('https://user:pw@h.example/p')).toBe('https://[redacted]@h.example/p');
    expect(redactUrl(URL_ME)).toBe(URL_ME);
  });

  test('redactHeaders hides Authorization', () => {
    expect(redactHeaders({ Authorization: 'Bearer vp_live_x', 'content-type': 'a' })).toEqual({ Authorization: 'Bearer [redacted]', 'content-type': 'a' });
  });

  test('the debug logger scrubs secrets from any line and logs nothing when off', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const log = createDebugLogger({ out, now: () => 0, secrets: () => ['vp_live_supersecret'] });
    log.line('oops vp_live_supersecret leaked');
    const done = log.request('PUT', 'https://s.example/u?sig=1');
    done(200);
    expect(text).toBe('[debug] oops [redacted] leaked\n[debug] → PUT https://s.example/u?[redacted]\n[debug] ← 200 PUT https://s.example/u?[redacted] (0 ms)\n');
    const off = createDebugLogger({ out: undefined, now: () => 0 });
    expect(off.enabled).toBe(false);
    expect(() => off.line('x')).not.toThrow();
  });
});

describe('base URLs', () => {
  test('loopback hosts', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'api.localhost']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com']) expect(isLoopbackHost(h)).toBe(false);
  });

  test('http:// off loopback, other schemes, credentials and queries are refused (exit 2)', () => {
    expect(normalizeBaseUrl('https://api.example.com/v1/', 'x')).toBe('https://api.example.com/v1');
    expect(normalizeBaseUrl('http://127.0.0.1:4010/v1', 'x')).toBe('http://127.0.0.1:4010/v1');
    expect(normalizeBaseUrl('http://[::1]:4010/v1', 'x')).toBe('http://[::1]:4010/v1');
    for (const bad of ['http://api.example.com/v1', 'ftp://x/v1', 'not a url', 'https://u:p@x.example/v1', 'https://x.example/v1?k=1']) {
      expect(() => normalizeBaseUrl(bad, '--base-url')).toThrow(UsageError);
    }
    expect(() => normalizeBaseUrl('http://api.example.com/v1', '--base-url')).toThrow(/refusing the http:\/\/ base URL .* \(from --base-url\)/);
  });
});

describe('retry timing', () => {
  test('backoff grows exponentially, is capped, and is jittered within [half, full]', () => {
    const policy = { baseMs: 500, capMs: 8000 };
    expect(backoffDelay(0, policy, () => 0)).toBe(250);
    expect(backoffDelay(0, policy, () => 1)).toBe(500);
    expect(backoffDelay(2, policy, () => 1)).toBe(2000);
    expect(backoffDelay(10, policy, () => 1)).toBe(8000);
    expect(backoffDelay(10, policy, () => 0)).toBe(4000);
  });

  test('Retry-After: seconds or an HTTP date; garbage is ignored', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2);
    expect(parseRetryAfter(['30'], now)).toBe(30);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

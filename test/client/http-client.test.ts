/**
 * The client over real HTTP: against the emulator, and against tiny local
 * servers where a test needs a remote the emulator cannot play (another
 * origin for redirects, odd response shapes, rate-limit headers at zero).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { PassThrough } from 'node:stream';
import { responseMeta, type ClientSettings } from '../../src/api/client.js';
import { createApiClient, type ClientDeps } from '../../src/api/http-client.js';
import type { Clock } from '../../src/core/clock.js';
import { AuthError, ExitCode, InterruptedError, RateLimitError, ServiceError, TimeoutError, VidpubError } from '../../src/errors.js';
import { streamNotices } from '../../src/ui/notices.js';
import { runCli } from '../support/cli.js';
import { manualClock, scaledClock, tickWhileAllAsleep, timeUpWhen, virtualClock } from '../support/clock.js';

/** The default --timeout of me, destinations, options, login and history (2m): their client's budget, a sleep on the Context's clock. */
const BUDGET_MS = 2 * 60_000;
import { expectError } from '../support/errors.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

const SETTINGS: ClientSettings = { profile: 'default', debug: false, maxWaitMs: 600_000, waitForQuota: false, quiet: false };

/** What a client runs on, without any CLI Context: a clock, a signal, env and a stderr to read back. */
function clientDeps(opts: { clock?: Clock; env?: Record<string, string | undefined>; debug?: boolean } = {}): { deps: ClientDeps; stderr: () => string } {
  const err = new PassThrough();
  let text = '';
  err.on('data', (c: Buffer) => (text += c.toString()));
  const deps: ClientDeps = {
    clock: opts.clock ?? scaledClock(100),
    signal: new AbortController().signal,
    version: 'test',
    notices: streamNotices(err, false),
    debugOut: opts.debug ? err : undefined,
    credentials: { env: opts.env ?? {}, cwd: process.cwd(), readProfile: async () => undefined },
  };
  return { deps, stderr: () => text };
}

async function client(opts: { clock?: Clock; env?: Record<string, string | undefined>; settings?: Partial<ClientSettings>; random?: () => number } = {}) {
  const settings = { ...SETTINGS, ...opts.settings };
  const made = clientDeps({ clock: opts.clock, env: { ...emu.env(), ...opts.env }, debug: settings.debug });
  const c = await createApiClient(settings, made.deps, opts.random ? { random: opts.random } : {});
  return { c, ...made };
}


/** A throwaway HTTP server on 127.0.0.1 (a fake *remote*, not a mock of our layer). */
const servers: Server[] = [];
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const ME = {
  key: { id: 'k', name: 'n', access: 'read_write', prefix: 'vp_live_', last4: 'abcd', created_at: '2030-01-01T00:00:00Z' },
  workspace: { id: 'ws', name: 'Remote' },
  plan: { name: 'standard' },
};

describe('retries', () => {
  test('503 twice then 200 succeeds, three requests in all', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 503, times: 2 });
    const r = await runCli(['me', '--json'], { env: emu.env(), clock: scaledClock(100) });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).workspace.name).toBe('Demo');
    const me = (await emu.requests()).filter((q) => q.path === '/v1/me');
    expect(me.map((q) => q.status)).toEqual([503, 503, 200]);
  });

  test('5xx every time: exit 1 after 4 attempts, one error line', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 500, times: 10 });
    const r = await runCli(['me'], { env: emu.env(), clock: scaledClock(100) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: The service failed on GET http:\/\/127\.0\.0\.1:\d+\/v1\/me: .*\(HTTP 500 internal_error\) after 4 attempts$/m);
    expect((await emu.requests()).filter((q) => q.path === '/v1/me')).toHaveLength(4);
  });

  test('an HTML 502 page becomes one clean line', async () => {
    await emu.fault({
      method: 'GET',
      path: '/v1/me',
      action: 'status',
      status: 502,
      times: 10,
      content_type: 'text/html',
      body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr>nginx</body></html>',
    });
    const r = await runCli(['me'], { env: emu.env(), clock: scaledClock(100) });
    expect(r.code).toBe(1);
    const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('Error:'));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(/: 502 Bad Gateway \(HTTP 502/);
    expect(r.stderr).not.toMatch(/<html|<title|nginx/);
  });

  test('a POST is retried after the connection drops, with the same Idempotency-Key, and the retry replays', async () => {
    await emu.fault({ method: 'POST', path: '/v1/media/imports', action: 'reset_after_handling', times: 1 });
    const { c } = await client();
    const media = await c.createImport({ url: 'https://videos.example.com/clip.mp4' });
    expect(media.id).toMatch(/\S/);
    expect(responseMeta(media)?.replayed).toBe(true);
    const posts = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/media/imports');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.idempotency_key).toBe(posts[0]!.idempotency_key);
    expect(posts[1]!.replayed).toBe(true);
    await c.close();
  });

  test('a given Idempotency-Key is used as is; each logical call otherwise gets its own', async () => {
    const { c } = await client();
    const a = await c.createImport({ url: 'https://videos.example.com/a.mp4' }, { idempotencyKey: 'my-key-1' });
    const again = await c.createImport({ url: 'https://videos.example.com/a.mp4' }, { idempotencyKey: 'my-key-1' });
    expect(again.id).toBe(a.id);
    expect(responseMeta(a)?.replayed).toBe(false);
    expect(responseMeta(again)?.replayed).toBe(true);
    await c.createImport({ url: 'https://videos.example.com/b.mp4' });
    await c.createImport({ url: 'https://videos.example.com/c.mp4' });
    const keys = (await emu.requests()).filter((q) => q.method === 'POST').map((q) => q.idempotency_key);
    expect(keys.slice(0, 2)).toEqual(['my-key-1', 'my-key-1']);
    expect(new Set(keys.slice(2)).size).toBe(2);
    await c.close();
  });

  test('409 idempotency_key_in_use is retried after a short backoff', async () => {
    await emu.fault({
      method: 'POST',
      path: '/v1/media/imports',
      action: 'status',
      status: 409,
      times: 1,
      body: JSON.stringify({ error: { type: 'conflict', code: 'idempotency_key_in_use', message: 'The first request is still being handled.' } }),
      content_type: 'application/json',
    });
    const { c } = await client();
    await c.createImport({ url: 'https://videos.example.com/clip.mp4' });
    const posts = (await emu.requests()).filter((q) => q.method === 'POST');
    expect(posts.map((q) => q.status)).toEqual([409, 201]);
    expect(posts[1]!.idempotency_key).toBe(posts[0]!.idempotency_key);
    await c.close();
  });

  test('a response that does not come in time is retried', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'delay', ms: 1_000, times: 1 });
    const made = clientDeps({ env: emu.env(), debug: true });
    const c = await createApiClient({ ...SETTINGS, debug: true }, made.deps, { headersTimeoutMs: 100 });
    const me = await c.getMe();
    expect(me.workspace.name).toBe('Demo');
    expect(made.stderr()).toMatch(/\[debug\] ← ERR GET .*\/v1\/me .*UND_ERR_HEADERS_TIMEOUT/);
    expect((await emu.requests()).filter((q) => q.path === '/v1/me')).toHaveLength(2);
    await c.close();
  });

  test('the service unreachable: exit 1 naming the URL tried', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const r = await runCli(['me'], { env: { VIDPUB_API_KEY: emu.key(), VIDPUB_BASE_URL: `http://127.0.0.1:${port}/v1` }, clock: scaledClock(100) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`Error: Could not reach the service at http://127\\.0\\.0\\.1:${port}/v1/me after 4 attempts: connection refused`));
    expect(r.stderr).toMatch(/--base-url/);
  });
});

describe('rate limits', () => {
  // Waits of exactly Retry-After here (the random part of a wait for a reset is afterReset's, test/client/retry-decision.test.ts).
  const NO_JITTER = () => 0;
  test('429 with Retry-After 2: waits, says so on stderr, then succeeds', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 2, times: 1 });
    const r = await runCli(['me', '--json'], { env: emu.env(), random: NO_JITTER, clock: scaledClock(50) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Rate limited \(requests_per_minute\); retrying in 2s…/);
    expect(JSON.parse(r.stdout).workspace.name).toBe('Demo');
  });

  test('on a TTY the wait is a countdown rewriting one line', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 3, times: 1 });
    // A clock moved by the test whenever the command sleeps on it but for its --timeout budget (the default 2 min,
    // a sleep on the same clock): each countdown step ends as it begins.
    const manual = manualClock();
    const sleeps: number[] = [];
    const clock = { ...manual, sleep: (ms: number, signal?: AbortSignal) => (sleeps.push(ms), manual.sleep(ms, signal)) };
    let running = 1;
    const stop = tickWhileAllAsleep(manual, () => running, [BUDGET_MS]);
    const r = await runCli(['me', '--json'], { env: emu.env(), random: NO_JITTER, clock, tty: { stderr: true } }).finally(() => {
      running = 0;
      stop();
    });
    expect(r.code).toBe(0);
    expect(sleeps).toEqual([BUDGET_MS, 1000, 1000, 1000]);
    for (const left of ['3s', '2s', '1s']) expect(r.stderr).toContain(`\r\u001b[2KRate limited (requests_per_minute); retrying in ${left}…`);
    expect(r.stderr).not.toContain('\n');
  });

  test('--quiet hides the notice but still waits and succeeds', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 2, times: 1 });
    const r = await runCli(['me', '--json', '--quiet'], { env: emu.env(), random: NO_JITTER, clock: scaledClock(50) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  test('a wait beyond --max-wait: exit 4 saying how long to wait', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 30, times: 1 });
    const r = await runCli(['me', '--max-wait', '10s'], { env: emu.env(), random: NO_JITTER, clock: scaledClock(50) });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/Error: Rate limited \(requests_per_minute\): the service asks to wait 30s, more than --max-wait \(10s\) allows/);
    expect(r.stderr).toMatch(/Try again in 30s, or raise --max-wait/);
  });

  test('--max-wait counts the total: two 429s of 6s with --max-wait 10s -> exit 4 after the first wait', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 6, times: 2 });
    const r = await runCli(['me', '--max-wait', '10s'], { env: emu.env(), random: NO_JITTER, clock: scaledClock(100) });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/retrying in 6s/);
    expect(r.stderr).toMatch(/Rate limited \(requests_per_minute\) after waiting 6s: the service asks to wait 6s/);
  });

  test('--max-wait is one budget for the whole command: a 6s wait on one request leaves 4s for the next', async () => {
    const { c, stderr } = await client({ settings: { maxWaitMs: 10_000 }, random: NO_JITTER });
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 6, times: 1 });
    await c.getMe();
    await emu.fault({ method: 'GET', path: '/v1/destinations', action: 'status', status: 429, retry_after: 6, times: 1 });
    const err = await expectError(RateLimitError, () => c.listDestinations());
    expect(err.message).toMatch(/Rate limited \(requests_per_minute\) after waiting 6s: the service asks to wait 6s, more than --max-wait \(10s\) allows/);
    expect(stderr()).toMatch(/retrying in 6s/);
    await c.close();
  });

  test("maxWaitPer 'request' (the MCP server's long-lived client): each request has the whole --max-wait", async () => {
    const { c } = await client({ settings: { maxWaitMs: 10_000, maxWaitPer: 'request' } });
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 6, times: 1 });
    await c.getMe();
    await emu.fault({ method: 'GET', path: '/v1/destinations', action: 'status', status: 429, retry_after: 6, times: 1 });
    expect(Array.isArray(await c.listDestinations())).toBe(true);
    await c.close();
  });

  test('timeoutMs: one budget for all of the client\'s requests, rate-limit waits included; then TimeoutError', async () => {
    // A clock moved only by the test, once the client sleeps on the rate-limit wait: the budget is spent in that wait,
    // never by how long the machine takes to answer (on real time scaled a hundredfold, a loaded machine spent the 3 s on GET /me).
    const clock = manualClock();
    const { c } = await client({ clock, settings: { timeoutMs: 3_000 } });
    await c.getMe();
    await emu.fault({ method: 'GET', path: '/v1/destinations', action: 'status', status: 429, retry_after: 10, times: 1 });
    const failing = expectError(TimeoutError, () => c.listDestinations());
    await timeUpWhen(clock, 3_000, async () => (await emu.requests()).some((q) => q.path === '/v1/destinations' && q.status === 429));
    const err = await failing;
    expect(err.message).toBe('Stopped: the --timeout of the command was reached.');
    expect(err.exitCode).toBe(ExitCode.TIMEOUT);
    await c.close();
  });

  test('timeoutMs: the budget is a sleep on the client\'s clock: a request never answered ends once that clock passes it, not on a real timer', async () => {
    // 10 minutes of budget pass on a clock the test moves while GET /me hangs: a real timer would hold it 10 minutes.
    const clock = manualClock();
    const { c } = await client({ clock, settings: { timeoutMs: 600_000 } });
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'hang', times: 1 });
    const failing = expectError(TimeoutError, () => c.getMe());
    await timeUpWhen(clock, 600_000, () => emu.took('hang', 'GET', '/v1/me'), { inFlight: true });
    const err = await failing;
    expect(err.message).toBe('Stopped: the --timeout of the command was reached.');
    expect(err.exitCode).toBe(ExitCode.TIMEOUT);
    await c.close();
  });

  test('imports_in_flight is waited out like any 429, saying so', async () => {
    await emu.fault({
      method: 'POST',
      path: '/v1/media/imports',
      action: 'status',
      status: 429,
      retry_after: 30,
      times: 1,
      content_type: 'application/json',
      body: JSON.stringify({ error: { type: 'rate_limited', code: 'imports_in_flight', message: '5 imports are downloading.' } }),
    });
    const { c, stderr } = await client({ clock: scaledClock(1000), random: NO_JITTER });
    await c.createImport({ url: 'https://videos.example.com/clip.mp4' });
    expect(stderr()).toMatch(/Rate limited \(imports_in_flight\); retrying in 30s…/);
    await c.close();
  });

  const dailyFault = (resetAt: string) => ({
    method: 'POST',
    path: '/v1/posts',
    action: 'status',
    status: 429,
    retry_after: 2,
    times: 1,
    content_type: 'application/json',
    body: JSON.stringify({ error: { type: 'rate_limited', code: 'daily_post_limit', message: 'The daily post allowance is used up.', reset_at: resetAt } }),
  });
  const post = { media_id: 'med_demo_sample', caption: 'hi', destinations: [{ destination_id: 'dst_demo_linkedin' }] };

  test('daily_post_limit fails at once (exit 4) with the reset time in local time and UTC', async () => {
    const resetAt = new Date(Date.now() + 5 * 3600_000).toISOString();
    await emu.fault(dailyFault(resetAt));
    const { c } = await client();
    const e = await expectError(RateLimitError, () => c.createPost(post));
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e.exitCode).toBe(ExitCode.RATE_LIMITED);
    expect(e.message).toContain(resetAt.replace(/\.\d{3}Z$/, 'Z'));
    // the one form of a time a person reads: day, time and zone, how far, then UTC
    expect(e.message).toMatch(/it resets \S+ \d\d:\d\d(:\d\d)? \S+, in [\d hms]+ \(\S+Z\)\.$/);
    expect(e.hint).toMatch(/--wait-for-quota/);
    expect((e as RateLimitError).code).toBe('daily_post_limit');
    expect((await emu.requests()).filter((q) => q.path === '/v1/posts')).toHaveLength(1);
    await c.close();
  });

  test('daily_post_limit with --wait-for-quota sleeps to the reset, announcing it, then retries with the same key', async () => {
    const clock = scaledClock(2000);
    const resetAt = new Date(clock.now() + 3_000).toISOString();
    await emu.fault(dailyFault(resetAt));
    const { c, stderr } = await client({ clock, settings: { waitForQuota: true } });
    const created = await c.createPost(post);
    expect(created.id).toMatch(/\S/);
    expect(stderr()).toMatch(/Allowance used up, waiting for the reset: \d+s left \(daily posts, at \S+ \d\d:\d\d(:\d\d)? \S+; --wait-for-quota\)/);
    const posts = (await emu.requests()).filter((q) => q.path === '/v1/posts');
    expect(posts.map((q) => q.status)).toEqual([429, 201]);
    expect(posts[1]!.idempotency_key).toBe(posts[0]!.idempotency_key);
    await c.close();
  });

  test('Ctrl-C during a rate-limit wait: exit 130', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 429, retry_after: 60, times: 1 });
    const ac = new AbortController();
    const r = await runCli(['me'], {
      env: emu.env(),
      signal: ac.signal,
      onStderr: (s) => {
        if (s.includes('Rate limited')) ac.abort();
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Error: Interrupted/);
  });

  test('X-RateLimit-Remaining 0: the next request of that kind waits for the reset first', async () => {
    let n = 0;
    const base = await serve((_req, res) => {
      n++;
      json(res, 200, ME, { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': n === 1 ? '0' : '59', 'x-ratelimit-reset': '7' });
    });
    const clock = virtualClock();
    const sleeps = clock.sleeps;
    const { c, stderr } = await client({ clock, env: { VIDPUB_BASE_URL: base + '/v1' } });
    const first = await c.getMe();
    expect(responseMeta(first)?.rateLimit).toEqual({ limit: 60, remaining: 0, resetSec: 7, kind: 'read' });
    expect(sleeps).toEqual([]);
    await c.getMe();
    // Until the reset, and up to 1.5 s after it at random: runs sharing the key do not all come back at its instant.
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(7000);
    expect(sleeps[0]).toBeLessThanOrEqual(8500);
    expect(stderr()).toMatch(/no read requests left this minute; waiting [789]s /);
    // Writes have their own counter: a POST would not wait for the reads.
    const waited = [...sleeps];
    await c.getMe();
    expect(sleeps).toEqual(waited);
    await c.close();
  });
});

describe('authentication and permission', () => {
  test('a read-only key on a write: exit 3 saying a read_write key is needed', async () => {
    const { c } = await client({ env: { VIDPUB_API_KEY: emu.key('Demo', 'read') } });
    const e = await expectError(AuthError, () => c.createPost({ media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_linkedin' }] }));
    expect(e).toBeInstanceOf(AuthError);
    expect(e.exitCode).toBe(3);
    expect(e.message).toMatch(/read-only; a read_write key is needed to create a post/);
    const e2 = await expectError(AuthError, () => c.createImport({ url: 'https://videos.example.com/clip.mp4' }));
    expect(e2.message).toMatch(/a read_write key is needed to import a video/);
    await c.close();
  });

  test('--workspace that does not match GET /me: exit 3 naming both, and nothing is written', async () => {
    const { c } = await client({ settings: { workspace: 'Studio' } });
    const e = await expectError(AuthError, () => c.createImport({ url: 'https://videos.example.com/clip.mp4' }));
    expect(e).toBeInstanceOf(AuthError);
    expect(e.message).toMatch(/belongs to workspace "Demo", not "Studio"/);
    expect((await emu.requests()).map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/me']);
    await c.close();
  });

  test('through the CLI: --workspace / VIDPUB_WORKSPACE stop a write command with exit 3 before anything is written', async () => {
    for (const [argv, env] of [
      [['--workspace', 'Studio'], {}],
      [[], { VIDPUB_WORKSPACE: 'Studio' }],
    ] as [string[], Record<string, string>][]) {
      await emu.reset();
      const r = await runCli(['import', 'https://videos.example.com/clip.mp4', ...argv], { env: { ...emu.env(), ...env } });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/Error: This API key belongs to workspace "Demo", not "Studio" \(--workspace \/ VIDPUB_WORKSPACE\); nothing was written\./);
      expect((await emu.requests()).filter((q) => q.method === 'POST')).toEqual([]);
    }
  });

  test('--workspace that matches: checked once, then writes go through; reads are never checked', async () => {
    const { c } = await client({ settings: { workspace: 'Demo' } });
    await c.listDestinations();
    await c.createImport({ url: 'https://videos.example.com/a.mp4' });
    await c.createImport({ url: 'https://videos.example.com/b.mp4' });
    expect((await emu.requests()).map((q) => `${q.method} ${q.path}`)).toEqual([
      'GET /v1/destinations',
      'GET /v1/me',
      'POST /v1/media/imports',
      'POST /v1/media/imports',
    ]);
    await c.close();
  });

  test('no key anywhere: AuthError at creation', async () => {
    const { deps } = clientDeps({ env: { VIDPUB_BASE_URL: emu.baseUrl } });
    const e = await expectError(VidpubError, () => createApiClient(SETTINGS, deps));
    expect(e.exitCode).toBe(3);
    expect(e.hint).toMatch(/vidpub login.*VIDPUB_API_KEY/);
  });
});

describe('redirects and where the key goes', () => {
  test('a redirect to another origin is not followed: the other origin never sees the key', async () => {
    const seen: (string | undefined)[] = [];
    const other = await serve((req, res) => {
      seen.push(req.headers.authorization);
      json(res, 200, ME);
    });
    const base = await serve((_req, res) => {
      res.writeHead(302, { location: `${other}/v1/me?token=abc` });
      res.end();
    });
    const r = await runCli(['me'], { env: { VIDPUB_API_KEY: emu.key(), VIDPUB_BASE_URL: base + '/v1' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/redirect \(HTTP 302\) that vidpub does not follow: it points to another origin \(http:\/\/127\.0\.0\.1:\d+\)/);
    expect(r.stderr).not.toContain('token=abc');
    expect(seen).toEqual([]);
  });

  test('a redirect within the service origin is followed, with the key', async () => {
    const auth: (string | undefined)[] = [];
    const base = await serve((req, res) => {
      auth.push(req.headers.authorization);
      if (req.url === '/v1/me') {
        res.writeHead(301, { location: '/v1/me/' });
        res.end();
      } else json(res, 200, ME);
    });
    const { c } = await client({ env: { VIDPUB_BASE_URL: base + '/v1' } });
    const me = await c.getMe();
    expect(me.workspace.name).toBe('Remote');
    expect(auth).toEqual([`Bearer ${emu.key()}`, `Bearer ${emu.key()}`]);
    await c.close();
  });

  test('an http:// base URL off loopback is refused before any request (exit 2)', async () => {
    const r = await runCli(['me', '--base-url', 'http://api.example.com/v1'], { env: { VIDPUB_API_KEY: emu.key() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: refusing the http:\/\/ base URL http:\/\/api\.example\.com\/v1 \(from --base-url\)/);
  });
});

describe('tolerance of a service that fills gaps differently', () => {
  test('missing and extra fields: me prints what it has', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/v1/me') json(res, 200, { workspace: { name: 'Remote', extra: true }, plan: 'weird', surprise: [1] });
      else json(res, 200, []);
    });
    const r = await runCli(['me'], { env: { VIDPUB_API_KEY: emu.key(), VIDPUB_BASE_URL: base + '/v1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Workspace\tRemote$/m);
    expect(r.stdout).toMatch(/^Posts\/day\tunknown$/m);
  });

  test('a destinations list that is a bare array, or has no data, is accepted', async () => {
    let shape = 0;
    const base = await serve((_req, res) => {
      shape++;
      json(res, 200, shape === 1 ? [{ id: 'd1', platform: 'x', handle: 'h', status: 'active' }] : { items: [] });
    });
    const { c } = await client({ env: { VIDPUB_BASE_URL: base + '/v1' } });
    expect((await c.listDestinations()).map((d) => d.id)).toEqual(['d1']);
    expect(await c.listDestinations()).toEqual([]);
    await c.close();
  });

  test('a 2xx that is not JSON: exit 1 with one line', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><title>Captive portal</title></html>');
    });
    const r = await runCli(['me'], { env: { VIDPUB_API_KEY: emu.key(), VIDPUB_BASE_URL: base + '/v1' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: Unexpected response to GET http:\/\/127\.0\.0\.1:\d+\/v1\/me: HTTP 200 \(text\/html\) is not JSON: Captive portal$/m);
  });
});

describe('--debug', () => {
  test('one line per request and response with timings; the key never appears', async () => {
    const key = emu.key();
    const r = await runCli(['destinations', '--debug'], { env: emu.env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^\[debug\] → GET http:\/\/127\.0\.0\.1:\d+\/v1\/destinations$/m);
    expect(r.stderr).toMatch(/^\[debug\] ← 200 GET http:\/\/127\.0\.0\.1:\d+\/v1\/destinations \(\d+ ms\) remaining=\d+\/60 reset=\d+s$/m);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).not.toContain(key.slice(-8));
  });

  test('VIDPUB_DEBUG=1 does the same; error paths leak no key either', async () => {
    const key = emu.key('Demo', 'read');
    const r = await runCli(['me'], { env: { ...emu.env(), VIDPUB_API_KEY: key, VIDPUB_DEBUG: '1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[debug\] → GET/);
    expect(r.stderr).not.toContain(key);
    const bad = 'vp_live_not_a_real_key_123456';
    const r2 = await runCli(['me'], { env: { ...emu.env(), VIDPUB_API_KEY: bad, VIDPUB_DEBUG: '1' } });
    expect(r2.code).toBe(3);
    expect(r2.stderr + r2.stdout).not.toContain(bad);
  });
});

describe('interrupts', () => {
  test('an aborted call rejects with InterruptedError (exit 130)', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'delay', ms: 5_000, times: 1 });
    const { c } = await client({ clock: scaledClock(1) });
    const ac = new AbortController();
    const p = c.getMe({ signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const e = await expectError(InterruptedError, () => p);
    expect(e).toBeInstanceOf(InterruptedError);
    expect(e.exitCode).toBe(130);
    await c.close();
  });

  test('a network failure is a ServiceError with http details', async () => {
    const { c } = await client({ env: { VIDPUB_BASE_URL: 'http://127.0.0.1:9/v1' }, settings: {} });
    const e = await expectError(ServiceError, () => c.getMe());
    expect(e).toBeInstanceOf(ServiceError);
    expect(e.http).toMatchObject({ status: 0, method: 'GET', path: '/v1/me' });
    await c.close();
  });
});

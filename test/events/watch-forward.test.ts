/**
 * `vidpub watch --forward-to URL` in-process against the emulator and a real local receiver (a
 * node:http server on 127.0.0.1, an ephemeral port): each event arrives once, as JSON, its
 * Vidpub-Signature verified here with node:crypto the way a receiver verifies Stripe's (HMAC-SHA256
 * of "t.body", compared in constant time, t within 300 s); a receiver answering 500 twice then 200
 * gets it on the third try (the backoff on the injected clock); a receiver that is down leaves it
 * for the next run; --exec and --forward-to both failing are both said and both get the events
 * again, once; a run killed while sending loses nothing; a torn journal line reports nothing twice;
 * --print-secret shows one secret per profile, kept at 0600; bad input refused. And `vidpub watch`
 * without --once, on the emulator's clock (moved, never waited for): a post not due is not read,
 * --timeout ends the follow (7: in-process, its deadline run out on a manual clock once it pauses),
 * a follow whose posts all settle ends (0: through the real bin).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { manualClock, timeUpWhen } from '../support/clock.js';
import type { Clock } from '../../src/core/clock.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents, publishedAtService } from '../support/events.js';
import type { VidpubEvent } from '../../src/events/event.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

interface Hit {
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A receiver: records each request, answers with the next status of `answers` (then 200). */
async function receiver(answers: number[] = [], says = 'busy \u001b[31mtry later'): Promise<{ url: string; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : says);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  closers.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${port}/hooks/vidpub?token=abc`, hits, close: () => new Promise((r) => server.close(() => r())) };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => undefined)));
});

/** A receiver's check of one webhook, as the guide shows it: the event, or why it is refused. */
function verify(hit: Hit, secret: string, nowMs: number): VidpubEvent {
  const header = String(hit.headers['vidpub-signature']);
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const t = Number(parts.t);
  const expected = createHmac('sha256', secret).update(`${parts.t}.${hit.body}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('bad signature');
  if (Math.floor(nowMs / 1000) - t > 300) throw new Error('too old');
  expect(hit.headers['content-type']).toBe('application/json');
  const [event] = expectEvents(hit.body);
  return event!;
}

/**
 * The command's clock: a wait shorter than 10 minutes (the webhook's backoff, the client's) ends at
 * once, moving time on by it and recorded; a longer one (the --timeout's deadline) only when its
 * signal aborts.
 */
function virtualClock(start: number): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: (ms, signal) => {
      if (ms < 600_000) {
        sleeps.push(ms);
        now += ms;
        return Promise.resolve();
      }
      return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true }));
    },
  };
}

function home() {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-forward-'));
  return { VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_CACHE: '1', VIDPUB_NO_KEYRING: '1' };
}

/** Posts due (published at the service) for watch to report: two events each (the destination, the post). */
async function duePosts(env: Record<string, string>, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date((await emu.api.clockNow()) + 600_000 + i * 1000).toISOString();
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', `hi ${i}`, '--at', at, '--yes', '--json', 'id'], { env });
    expect(r.code, r.stderr).toBe(0);
    ids.push((JSON.parse(r.stdout) as { id: string }).id);
  }
  await emu.advance(700);
  await publishedAtService(emu.api.as(emu.key()), ids);
  return ids;
}

async function secretOf(env: Record<string, string>): Promise<string> {
  const r = await runCli(['watch', '--print-secret'], { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('vidpub watch --forward-to', () => {
  it('each event arrives once, signed, a torn journal line aside; the streams never show the secret; the next run sends nothing again', async () => {
    const env = { ...home(), ...emu.env() };
    const [first] = await duePosts(env, 1);
    // A run killed mid-write: its line has no end, and the next record (the second post's) is appended to it.
    const dir = env.VIDPUB_STATE_DIR;
    appendFileSync(join(dir, readdirSync(dir, { recursive: true }).map(String).find((f) => f.endsWith('journal.jsonl'))!), '{"v":1,"kind":"status","post_id":"post_torn","sta');
    const ids = [first, ...(await duePosts(env, 1))];
    const rx = await receiver();
    const clock = virtualClock(Date.now());
    const r1 = await runCli(['watch', '--once', '--json', '--debug', '--forward-to', rx.url], { env, clock });
    expect(r1.stderr).toMatch(/Skipped a damaged line in the journal: .*journal\.jsonl line \d+/);
    expect(r1.code, r1.stderr).toBe(0);
    const printed = expectEvents(r1.stdout);
    expect(printed).toHaveLength(4);
    const secret = await secretOf(env);
    expect(secret).toMatch(/^vpwhsec_[\w-]{43}$/);
    const got = rx.hits.map((h) => verify(h, secret, clock.now()));
    expect(got).toEqual(printed);
    expect(new Set(got.map((e) => e.post_id))).toEqual(new Set(ids));
    expect(`${r1.stdout}${r1.stderr}`).not.toContain(secret);
    // A tampered body does not verify.
    expect(() => verify({ ...rx.hits[0]!, body: rx.hits[0]!.body.replace('"v":1', '"v":1 ') }, secret, clock.now())).toThrow('bad signature');

    const r2 = await runCli(['watch', '--once', '--json', '--forward-to', rx.url], { env, clock });
    expect([r2.code, r2.stdout]).toEqual([0, '']);
    expect(rx.hits).toHaveLength(4);
  });

  it('a receiver answering 500 twice then 200 gets the event on the third try, after a backoff on the clock; through the proxy of http_proxy', async () => {
    const env = { ...home(), ...emu.env() };
    await duePosts(env, 1);
    // The receiver stands in for a proxy too: the webhook goes the way vidpub's requests go (the API calls straight, NO_PROXY).
    const rx = await receiver([500, 503]);
    const clock = virtualClock(Date.now());
    const proxy = { http_proxy: new URL(rx.url).origin, NO_PROXY: '127.0.0.1' };
    const r = await runCli(['watch', '--once', '--json', '--forward-to', 'http://hooks.example.invalid/vidpub'], { env: { ...env, ...proxy }, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(rx.hits.every((h) => h.url === 'http://hooks.example.invalid/vidpub')).toBe(true);
    expect(r.stderr).not.toMatch(/did not take/);
    const secret = await secretOf(env);
    const bodies = rx.hits.map((h) => verify(h, secret, clock.now()).id);
    // The first event three times (each try signed anew), then the second once.
    expect(bodies).toEqual([bodies[0], bodies[0], bodies[0], bodies[3]]);
    expect(new Set(bodies).size).toBe(2);
    expect(clock.sleeps.filter((ms) => ms >= 500 && ms <= 2000)).toHaveLength(2);
  });

  it('a receiver that is down leaves the events for the next run, which sends them once; a refusal is said, sanitized, and kept; a run killed while sending loses nothing', async () => {
    const env = { ...home(), ...emu.env() };
    const [id] = await duePosts(env, 1);
    const down = await receiver();
    await down.close();
    const r1 = await runCli(['watch', '--once', '--json', '--forward-to', down.url], { env, clock: virtualClock(Date.now()) });
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stderr).toMatch(new RegExp(`The receiver at http://127\\.0\\.0\\.1:\\d+/hooks/vidpub\\?\\[redacted\\] did not take post\\.destination\\.published of ${id} \\(evt_\\w+\\) after 4 tries: it could not be reached \\(ECONNREFUSED\\)\\. It and the 1 event after it are offered again on the next run\\.`));
    const printed = expectEvents(r1.stdout);
    expect(printed).toHaveLength(2);

    // Up again, but refusing once (a 4xx is not tried again in the run): said, its text sanitized and the secret it echoes
    // taken out; kept; the other event is taken.
    const secret = await secretOf(env);
    const rx = await receiver([400], `busy \u001b[31mtry later, not ${secret}`);
    const r2 = await runCli(['watch', '--once', '--json', '--forward-to', rx.url], { env, clock: virtualClock(Date.now()) });
    expect([r2.code, r2.stdout]).toEqual([0, '']);
    expect(r2.stderr).toMatch(/did not take post\.destination\.published of \w+ \(evt_\w+\): it answered HTTP 400: busy \\e\[31mtry later, not vpwhsec_…[\w-]{4}\. It is offered again on the next run\./);
    expect(r2.stderr).not.toContain(secret);
    expect(rx.hits).toHaveLength(2);

    // As a run killed while sending would leave the record: the kept event handed to its process (gone now), none pending.
    const file = join(env.VIDPUB_STATE_DIR, readdirSync(env.VIDPUB_STATE_DIR, { recursive: true }).map(String).find((f) => /watch\/default\.json$/.test(f))!);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { pending: Record<string, unknown[]> };
    expect(doc.pending.forward).toHaveLength(1);
    writeFileSync(file, JSON.stringify({ ...doc, pending: {}, handing: { forward: [{ run: 'killed', pid: spawnSync('true').pid, at: Date.now(), events: doc.pending.forward }] } }));
    const r3 = await runCli(['watch', '--once', '--forward-to', rx.url], { env, clock: virtualClock(Date.now()) });
    expect([r3.code, r3.stdout]).toEqual([0, '']);
    const taken = [rx.hits[1]!, rx.hits[2]!].map((h) => JSON.parse(h.body) as VidpubEvent);
    expect(taken.map((e) => e.id).sort()).toEqual(printed.map((e) => e.id).sort());
    const r4 = await runCli(['watch', '--once', '--forward-to', rx.url], { env, clock: virtualClock(Date.now()) });
    expect(r4.code).toBe(0);
    expect(rx.hits).toHaveLength(3);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pending: {}, handing: {} });
  });

  it('--exec and --forward-to both failing: both said, exit 0, both get each event again next run, once; the hook never sees the secret', async () => {
    const env = { ...home(), ...emu.env() };
    await duePosts(env, 1);
    const out = mkdtempSync(join(tmpdir(), 'vidpub-hook-'));
    const down = await receiver();
    await down.close();
    const r1 = await runCli(['watch', '--once', '--json', '--exec', 'exit 4', '--forward-to', down.url], { env, clock: virtualClock(Date.now()) });
    expect(r1.stderr).toMatch(/The --exec hook failed \(exit 4\) for post\.destination\.published .*: it is offered again on the next run\./);
    expect(r1.stderr).toMatch(/The --exec hook failed \(exit 4\) for post\.completed .*: it is offered again on the next run\./);
    expect(r1.stderr).toMatch(/The receiver at .* did not take post\.destination\.published .* after 4 tries: it could not be reached \(ECONNREFUSED\)\. It and the 1 event after it are offered again/);
    expect(r1.code).toBe(0);
    const printed = expectEvents(r1.stdout);

    const rx = await receiver();
    const hook = `cat >> ${out}/got; env >> ${out}/env`;
    const r2 = await runCli(['watch', '--once', '--json', '--exec', hook, '--forward-to', rx.url], { env, clock: virtualClock(Date.now()) });
    expect([r2.code, r2.stdout]).toEqual([0, '']);
    expect(expectEvents(readFileSync(join(out, 'got'), 'utf8'))).toEqual(printed);
    expect(rx.hits.map((h) => JSON.parse(h.body) as VidpubEvent)).toEqual(printed);
    expect(readFileSync(join(out, 'env'), 'utf8')).not.toContain(await secretOf(env));

    const r3 = await runCli(['watch', '--once', '--exec', hook, '--forward-to', rx.url], { env, clock: virtualClock(Date.now()) });
    expect(r3.code).toBe(0);
    expect(rx.hits).toHaveLength(2);
    expect(expectEvents(readFileSync(join(out, 'got'), 'utf8'))).toHaveLength(2);
  });

});

describe('vidpub watch --print-secret', () => {
  it('one secret per profile, made on first need, kept at 0600 in the config directory', async () => {
    const env = { ...home(), ...emu.env() };
    const a = await runCli(['watch', '--print-secret'], { env });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/Made the webhook secret of profile "default", kept in .*webhook-secrets\.json/);
    const b = await runCli(['watch', '--print-secret'], { env });
    expect([b.code, b.stdout]).toEqual([0, a.stdout]);
    expect(b.stderr).toMatch(/^The webhook secret of profile "default"/);
    const other = await runCli(['watch', '--print-secret', '--profile', 'ci'], { env });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).not.toBe(a.stdout);
    const file = join(env.VIDPUB_CONFIG_DIR, 'webhook-secrets.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ v: 1, secrets: { default: a.stdout.trim(), ci: other.stdout.trim() } });
  });
});

describe('vidpub watch --forward-to: bad input', () => {
  it.each([
    ['ftp://example.com/hook', 'ftp://example.com/hook'],
    ['example.com/hook', 'example.com/hook'],
  ])('%s is refused (exit 2) before any request', async (url, shown) => {
    const env = { ...home(), VIDPUB_BASE_URL: emu.baseUrl };
    const r = await runCli(['watch', '--once', '--forward-to', url], { env });
    expect(r.stderr).toContain(`--forward-to needs an http:// or https:// URL, not "${shown}"`);
    expect([r.code, r.stdout]).toEqual([2, '']);
  });

  it('an unknown profile: exit 3, no secret made for it', async () => {
    const env = { ...home(), VIDPUB_BASE_URL: emu.baseUrl };
    for (const argv of [['watch', '--once', '--forward-to', 'http://127.0.0.1:9/x'], ['watch', '--print-secret']]) {
      const r = await runCli([...argv, '--profile', 'nosuch'], { env });
      expect(r.stderr).toMatch(/No API key: none was given and none is stored in profile "nosuch"/);
      expect([r.code, r.stdout]).toEqual([3, '']);
    }
    expect(existsSync(join(env.VIDPUB_CONFIG_DIR, 'webhook-secrets.json'))).toBe(false);
  });
});

describe('vidpub watch, following (emulator clock; the follow that settles through the real bin)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('reads a post only once it is due, stops at --timeout (7), and ends (0) once all have settled, forwarding each event signed', async () => {
    const env = { ...home(), ...emu.env(), NO_COLOR: '1' };
    const watch = (...extra: string[]) => runAsync(process.execPath, [BIN, 'watch', ...extra], { env: { ...process.env, ...env } });
    const scheduled = async (inSec: number): Promise<string> => {
      const at = new Date((await emu.api.clockNow()) + inSec * 1000).toISOString();
      const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'later', '--at', at, '--yes', '--json', 'id'], { env });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { id: string }).id;
    };
    const first = await scheduled(3600);
    const second = await scheduled(7200);
    await emu.advance(3660);
    await publishedAtService(emu.api.as(emu.key()), [first]);

    // The first is due, the second not for an hour: it follows, pausing until then (a minute at most), and the timeout ends it.
    // In-process on a manual clock: once it has read the first post and pauses, its 8 s run out (not sat out in real time).
    const clock = manualClock(Date.now());
    const following = runCli(['watch', '--json', '--timeout', '8s'], { env, clock });
    await timeUpWhen(clock, 8_000, async () => (await emu.requests()).some((q) => q.method === 'GET' && q.path === `/v1/posts/${first}`));
    const r1 = await following.then((r) => ({ status: r.code, stdout: r.stdout, stderr: r.stderr }));
    expect(expectEvents(r1.stdout).map((e) => `${e.type} ${e.post_id}`)).toEqual([`post.destination.published ${first}`, `post.completed ${first}`]);
    expect(r1.stderr).toMatch(/Watch: 1 post read, 2 new events, 1 not due yet \(next: /);
    expect(r1.stderr).toMatch(/Stopped \(--timeout reached\) while following the posts; the next run goes on from there/);
    expect(r1.status).toBe(7);
    const reads = (await emu.requests()).filter((q) => q.method === 'GET' && q.path.startsWith('/v1/posts/')).map((q) => q.path);
    expect(reads).toContain(`/v1/posts/${first}`);
    expect(reads).not.toContain(`/v1/posts/${second}`);

    // Its time comes: a watch that follows reads it, forwards its events, and ends with nothing left open.
    await emu.advance(3660);
    await publishedAtService(emu.api.as(emu.key()), [second]);
    const rx = await receiver();
    const r2 = await watch('--json', '--forward-to', rx.url);
    expect(r2.status, r2.stderr).toBe(0);
    const events = expectEvents(r2.stdout);
    expect(events.map((e) => `${e.type} ${e.post_id}`)).toEqual([`post.destination.published ${second}`, `post.completed ${second}`]);
    const secret = await secretOf(env);
    expect(rx.hits.map((h) => verify(h, secret, Date.now()))).toEqual(events);
  }, 60_000);
});

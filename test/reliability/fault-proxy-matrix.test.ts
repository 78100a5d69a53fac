/**
 * The fault matrix's cells for answers that are not the service's word, made
 * by a proxy in the service's place (test/support/fault-proxy.ts): a load
 * balancer's 503 or 500 page, a 2xx whose body is not JSON, a 201 without an
 * id, an answer lost and the retry refused by a WAF. After a write that may
 * have reached the service, each is "outcome unknown": exit 9, the ids known
 * so far on stdout, the rerun line on stderr, the note of the run kept, so
 * that a plain rerun of the same command (no --idempotency-key) leaves
 * exactly one post, as the emulator's own log and state show.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/contract/wire-types.js';
import { runCli, type RunResult } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { withStall } from '../support/stall.js';
import { withTimeout } from './fault-cells.js';
import { useEmulator } from '../support/emulator.js';
import { CREATED_NO_ID, HTML_500, LB_503, OK_NOT_JSON, WAF_403, startFaultProxy, type FaultProxy, type ProxyAnswer, type ProxyRule } from '../support/fault-proxy.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await startFaultProxy(emu.baseUrl);
});
afterAll(() => proxy.close());
beforeEach(() => proxy.clear());

/** The command's clock runs this many times faster than the wall's: retries' backoff costs little real time. */
const SPEED = 10;
const TIMEOUT_MS = 30_000;
/** Real time a command may take past its deadline to stop and exit. */
const GRACE_MS = 1000;
const T = ['--timeout', `${TIMEOUT_MS / 1000}s`, '--no-input', '--no-wait'];

type Totals = { posts: number; media: number; published: number };
async function totals(): Promise<Totals> {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number; draft: number }; media: { total: number } }[] };
  const demo = state.workspaces.find((w) => w.name === 'Demo')!;
  return { posts: demo.posts.total, media: demo.media.total, published: demo.posts.total - demo.posts.draft };
}

/** A config and state directory shared by a cell's first run and its rerun (the note of the run lives there). */
function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-proxy-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state') };
}

/** One run through the proxy on a fast clock. */
async function run(args: string[], env: Record<string, string>): Promise<RunResult & { elapsedMs: number; clockMs: number; stallMs: number }> {
  const clock = scaledClock(SPEED);
  const started = performance.now();
  const startedAt = clock.now();
  const { value: r, stallMs } = await withStall(() => runCli(args, { clock, env: { ...emu.env(), VIDPUB_BASE_URL: proxy.baseUrl, ...env, TZ: 'UTC' } }));
  return { ...r, elapsedMs: performance.now() - started, clockMs: clock.now() - startedAt, stallMs };
}

const writes = async (path: RegExp): Promise<RecordedRequest[]> => (await emu.requests()).filter((r) => r.method === 'POST' && path.test(r.path));

async function draftPost(): Promise<string> {
  const r = await emu.api.post<{ id: string }>('/posts', { media_id: 'med_demo_sample', caption: 'draft', destinations: [{ destination_id: 'dst_demo_youtube' }] });
  expect(r.status).toBe(201);
  return r.body.id;
}

interface Write {
  name: string;
  method: 'POST';
  /** The path the proxy matches. */
  path: string;
  /** The path in the emulator's log. */
  logged: RegExp;
  args: (id: string) => string[];
  setup?: () => Promise<string>;
  /** stdout of the unknown run: the ids known so far. */
  stdout: (id: string) => RegExp | '';
  /** What the outcome is about, in the message. */
  told: RegExp;
  /** After the rerun: the totals moved by this much. */
  grows: Partial<Totals>;
  /** What a plain rerun says when the first run's write was done (default: exit 0). */
  rerunWhenDone?: { code: number; stderr: RegExp };
}

const WRITES: Write[] = [
  {
    name: 'POST /v1/posts',
    method: 'POST',
    path: '/v1/posts',
    logged: /^\/v1\/posts$/,
    args: () => ['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'through a proxy', ...T],
    stdout: () => /^med_demo_sample\n$/,
    told: /The outcome is unknown: the post may have been created \(video med_demo_sample\)/,
    grows: { posts: 1, media: 0 },
  },
  {
    name: 'POST /v1/media/uploads',
    method: 'POST',
    path: '/v1/media/uploads',
    logged: /^\/v1\/media\/uploads$/,
    args: () => ['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--caption', 'through a proxy', ...T],
    stdout: () => '',
    told: /The outcome is unknown: the upload of clip\.mp4 may have been created at the service/,
    grows: { posts: 1, media: 1 },
  },
  {
    name: 'POST /v1/posts/{id}/publish',
    method: 'POST',
    path: '/v1/posts/*/publish',
    logged: /^\/v1\/posts\/[^/]+\/publish$/,
    setup: draftPost,
    args: (id) => ['publish', id, ...T],
    stdout: (id) => new RegExp(`^${id}\\n$`),
    told: /The outcome is unknown: post post_\w+ may have been sent to publish/,
    grows: { posts: 0, media: 0, published: 1 },
    // publish takes a new key on each run: the rerun finds the post published, and says so (exit 10).
    // Published, or still being published when the rerun comes (the emulator's publishing takes its time): once either way.
    rerunWhenDone: { code: 10, stderr: /Post post_\w+ cannot be published: it (has already been published|is being published right now)/ },
  },
];

interface Fault {
  name: string;
  rules: (path: string) => ProxyRule[];
  /** What the message says was seen. */
  seen: RegExp;
  /** Whether the first run reached the service (the emulator handled the write). */
  reached: boolean;
}

const after = (answer: ProxyAnswer) => (path: string): ProxyRule[] => [{ method: 'POST', path, mode: 'after', answer }];
const FAULTS: Fault[] = [
  { name: "a load balancer's 503 page after handling, on every attempt", rules: after(LB_503), seen: /the answer was not the service's own: HTTP 503 \(text\/html\)/, reached: true },
  { name: 'a 500 HTML page after handling, on every attempt', rules: after(HTML_500), seen: /the answer was not the service's own: HTTP 500 \(text\/html\)/, reached: true },
  { name: 'a 2xx whose body is not JSON, after handling', rules: after(OK_NOT_JSON), seen: /the answer was not the service's own: HTTP 200 \(text\/html\) is not JSON/, reached: true },
  { name: 'a 201 whose JSON has no id, after handling', rules: after(CREATED_NO_ID), seen: /the answer was not the service's own: HTTP 201 \(application\/json\) without (an id|"media\.id")/, reached: true },
  {
    name: "the first answer dropped, the retry refused by a WAF's 403 page",
    rules: (path) => [
      { method: 'POST', path, mode: 'drop', times: 1 },
      { method: 'POST', path, mode: 'instead', answer: WAF_403 },
    ],
    seen: /the answer was not the service's own: HTTP 403 \(text\/html\)/,
    reached: true,
  },
  { name: "a 503 page instead of the service (it never got the request)", rules: (path) => [{ method: 'POST', path, mode: 'instead', answer: LB_503 }], seen: /HTTP 503 \(text\/html\)/, reached: false },
];

describe('answers that are not the service\'s word: outcome unknown, and a plain rerun makes exactly one', () => {
  for (const w of WRITES) {
    for (const f of FAULTS) {
      // A 2xx page or a 201 without an id answers a create; publish is sent with its own faults too.
      it(`${w.name} · ${f.name} → exit 9, then one ${w.grows.published ? 'publication' : 'post'}`, async () => {
        const id = w.setup ? await w.setup() : '';
        const env = dirs();
        const before = await totals();
        const since = (await writes(w.logged)).length;
        proxy.add(...f.rules(w.path));

        const first = await run(w.args(id), env);
        expect(first.stderr).toMatch(w.told);
        expect(first.stderr).toMatch(f.seen);
        expect(first.stderr).toMatch(/Rerun to settle it \(nothing is done twice\): vidpub |See where it stands with: vidpub status post_\w+/);
        expect(first.stderr).not.toMatch(/refused|try again in a minute|undefined/);
        expect(first.code).toBe(9);
        const stdout = w.stdout(id);
        if (stdout === '') expect(first.stdout).toBe('');
        else expect(first.stdout).toMatch(stdout);
        // On time: within the --timeout plus 1 s of real time (what ending takes on a busy machine), by the
        // command's own clock and by the wall's (SPEED times slower), plus the time this process could not
        // run meanwhile (other processes holding the cores: test/support/stall.ts).
        expect(first.clockMs).toBeLessThan(TIMEOUT_MS + SPEED * (GRACE_MS + first.stallMs));
        expect(first.elapsedMs).toBeLessThan(TIMEOUT_MS / SPEED + GRACE_MS + first.stallMs);

        // The emulator's log: every attempt carried one key; it handled the write once, or never when the proxy kept it.
        const sent = (await writes(w.logged)).slice(since);
        expect(new Set(sent.map((r) => r.idempotency_key)).size).toBeLessThanOrEqual(1);
        expect(sent.filter((r) => r.status < 300 && !r.replayed).length).toBe(f.reached ? 1 : 0);

        // The plain rerun, the proxy now passing everything on: exactly one post (and one video, one publication).
        // Its --timeout only stops a hang (a loaded machine ran a rerun's upload and post past the cell's, on the fast clock).
        proxy.clear();
        const again = await run(withTimeout(w.args(id), '10m'), env);
        expect(again.stderr).not.toMatch(/outcome is unknown/);
        const settled = f.reached ? (w.rerunWhenDone ?? { code: 0, stderr: /^/ }) : { code: 0, stderr: /^/ };
        expect(again.stderr).toMatch(settled.stderr);
        expect(again.code).toBe(settled.code);
        const now = await totals();
        for (const [k, grew] of Object.entries(w.grows)) expect(now[k as keyof Totals] - before[k as keyof Totals], k).toBe(grew);
        const all = (await writes(w.logged)).slice(since);
        expect(all.filter((r) => r.status < 300 && !r.replayed).length, 'handled once in all').toBe(1);
      });
    }
  }
});

// `vidpub emulator --state DIR` (npm run bench -- emulator-state).
//
// (a) A post's round trips (POST /v1/media/uploads, the PUT of 64 KiB,
//     complete, GET /v1/media/{id} until ready, POST /v1/posts "now", GET
//     /v1/posts/{id}) against an emulator keeping its state in a directory,
//     against the same emulator without it, measured in the same run, the two
//     interleaved in rounds; both in this process (started through the
//     module), with background steps of 0 ms. Goal: with --state at most
//     1.3x without it. Wall time and this process's CPU time (client and
//     emulator: the same client work on both sides) are both printed, best
//     of the rounds and the median of each round's own ratio; on a shared
//     machine wall time follows the scheduler, so the goal is judged on the
//     median CPU ratio.
// (b) A state of 100,000 posts (drafts and scheduled posts made from one
//     real post's record, in the snapshot) loaded: the time startEmulator
//     takes on it, the new snapshot it writes at start included. Goal: < 5 s.
//
// Env: VIDPUB_BENCH_POSTS (per round, default 200), VIDPUB_BENCH_ROUNDS
// (default 5), VIDPUB_BENCH_STATE_POSTS (default 100000), VIDPUB_BENCH_ROOT.
// Exit code 1 if a goal is missed.
/* global fetch */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const POSTS = Number(process.env.VIDPUB_BENCH_POSTS ?? 200);
const ROUNDS = Number(process.env.VIDPUB_BENCH_ROUNDS ?? 5);
const STATE_POSTS = Number(process.env.VIDPUB_BENCH_STATE_POSTS ?? 100_000);
const RATIO_GOAL = 1.3;
const LOAD_GOAL_MS = 5000;

if (!existsSync(join(ROOT, 'dist', 'emulator.js'))) {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('the build failed');
}
const require = createRequire(join(ROOT, 'package.json'));
const { startEmulator, defaultFixture, DEFAULT_KEYS } = require(join(ROOT, 'dist', 'emulator.js'));

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-state-'));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const KEY = DEFAULT_KEYS.studio_rw;
const BYTES = Buffer.alloc(64 * 1024, 7);

// The default fixture, the Studio account's allowances out of the way (the figure is that of the routes).
const fixture = defaultFixture();
fixture.accounts.find((a) => a.plan === 'studio').limits = { requests_per_minute: { read: 1e9, write: 1e9 }, api_posts_per_day: { limit: 1e9 } };

async function call(base, method, path, body) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/** One post's round trips; the destination of the Studio workspace with no required option. */
async function onePost(base) {
  const up = await call(base, 'POST', '/media/uploads', { filename: 'clip.mp4', size_bytes: BYTES.length, content_type: 'video/mp4' });
  const put = await fetch(up.upload.url, { method: 'PUT', headers: up.upload.headers, body: BYTES });
  await put.arrayBuffer();
  await call(base, 'POST', `/media/${up.media.id}/complete`);
  while ((await call(base, 'GET', `/media/${up.media.id}`)).status !== 'ready') await new Promise((r) => setTimeout(r, 1));
  const post = await call(base, 'POST', '/posts', { media_id: up.media.id, caption: 'bench', destinations: [{ destination_id: DESTINATION }], publish_at: 'now' });
  await call(base, 'GET', `/posts/${post.id}`);
}

const studio = fixture.workspaces.find((w) => w.id === 'ws_studio');
const DESTINATION = studio.destinations.find((d) => !d.options.some((o) => o.required && o.default === null) && d.status === 'active').id;

async function roundTrips() {
  const plain = await startEmulator({ port: 0, fixture, processingMs: 0, publishMs: 0 });
  const kept = await startEmulator({ port: 0, fixture, processingMs: 0, publishMs: 0, state: join(dir, 'kept') });
  const ratios = [];
  const cpuRatios = [];
  const best = { plain: Infinity, kept: Infinity };
  try {
    for (let i = 0; i < 20; i++) {
      await onePost(plain.baseUrl);
      await onePost(kept.baseUrl);
    }
    for (let round = 0; round < ROUNDS; round++) {
      const ms = {};
      const cpu = {};
      for (const [name, h] of round % 2 ? [['kept', kept], ['plain', plain]] : [['plain', plain], ['kept', kept]]) {
        const t = now();
        const c = process.cpuUsage();
        for (let i = 0; i < POSTS; i++) await onePost(h.baseUrl);
        const used = process.cpuUsage(c);
        ms[name] = (now() - t) / POSTS;
        cpu[name] = (used.user + used.system) / 1000 / POSTS;
        best[name] = Math.min(best[name], ms[name]);
      }
      ratios.push(ms.kept / ms.plain);
      cpuRatios.push(cpu.kept / cpu.plain);
      console.log(`round ${round + 1}: a post ${ms.plain.toFixed(2)} ms without --state, ${ms.kept.toFixed(2)} ms with (${(ms.kept / ms.plain).toFixed(2)}x); CPU ${cpu.plain.toFixed(2)} / ${cpu.kept.toFixed(2)} ms (${(cpu.kept / cpu.plain).toFixed(2)}x)`);
    }
  } finally {
    await plain.close();
    await kept.close();
  }
  const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
  console.log(`a post's round trips: best ${best.plain.toFixed(2)} ms without --state, ${best.kept.toFixed(2)} ms with (${(best.kept / best.plain).toFixed(2)}x); median ratio ${median(ratios).toFixed(2)}x wall, ${median(cpuRatios).toFixed(2)}x CPU (goal <= ${RATIO_GOAL}x)`);
  return median(cpuRatios) <= RATIO_GOAL;
}

async function load() {
  const stateDir = join(dir, 'big');
  const seed = await startEmulator({ port: 0, fixture, processingMs: 0, publishMs: 0, state: stateDir });
  const first = await call(seed.baseUrl, 'POST', '/posts', { media_id: 'med_studio_sample', caption: 'a draft', destinations: [{ destination_id: DESTINATION }] });
  await seed.close();
  const file = join(stateDir, 'state.json');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const ws = doc.workspaces.find((w) => w.id === 'ws_studio');
  const record = ws.posts.find((p) => p.id === first.id);
  const far = Date.now() + 30 * 86_400_000;
  ws.posts = [];
  for (let i = 0; i < STATE_POSTS; i++) {
    const scheduled = i % 2 === 1;
    ws.posts.push({ ...record, id: `post_${i.toString(16).padStart(16, '0')}`, caption: `post ${i}`, status: scheduled ? 'scheduled' : 'draft', publish_at: scheduled ? new Date(far + i * 1000).toISOString() : null, dueAtMs: scheduled ? far + i * 1000 : null, counted: scheduled });
  }
  writeFileSync(file, JSON.stringify(doc));
  unlinkSync(join(stateDir, 'log.jsonl')); // what it added is in the snapshot made here
  const mb = readFileSync(file).length / 1048576;
  const t = now();
  const h = await startEmulator({ port: 0, fixture, processingMs: 0, publishMs: 0, state: stateDir });
  const ms = now() - t;
  const total = (await call(h.baseUrl, 'GET', '/me')).usage.post_count;
  await h.close();
  console.log(`a state of ${total} posts (${mb.toFixed(1)} MB) loaded in ${(ms / 1000).toFixed(2)} s (goal < ${LOAD_GOAL_MS / 1000} s)`);
  return total === STATE_POSTS && ms < LOAD_GOAL_MS;
}

try {
  const okTrips = await roundTrips();
  const okLoad = await load();
  process.exitCode = okTrips && okLoad ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// The emulator under load, and its memory (npm run bench -- emulator-load).
//
// (a) Requests per second with 50 concurrent connections (an undici Pool,
//     loopback only, each case bounded by time and by count) on
//     `GET /v1/me` and `POST /v1/media/uploads`, against a bare Fastify
//     server answering the same routes with the same JSON (captured from the
//     emulator once), measured in the same run, the cases interleaved. Goal:
//     the emulator >= 0.5x the bare server. Both servers run in a child
//     process of their own; the load loop runs here. Beside requests per
//     second, each server's CPU time per request (user + system, asked over
//     IPC before and after each case): on a shared machine requests per
//     second follow the scheduler, CPU per request much less; beside the best
//     of each, the median of each round's own CPU ratio (the two servers back
//     to back under the same load on the machine). The fixture gives the
//     Studio workspace a few thousand keys and the loop takes them in turn, so
//     the per-key per-minute allowance never answers 429 and the figure is
//     that of the real route.
// (b) The emulator's memory after 10,000 uploaded videos (create, PUT,
//     complete) and 10,000 published posts: heap in use after a full GC
//     (the emulator runs with --expose-gc and is asked over IPC) and RSS.
//     Finished records beyond the retention limit are dropped (docs/emulator.md, "The
//     emulator"), so the heap after 10,000 stays near the heap after the first
//     2,000 (goal: at most 1.5x of it). RSS alone hardly shows it: V8 keeps
//     the pages it has grown into.
//
// Env: VIDPUB_BENCH_LOAD_MS (per case, default 3000), VIDPUB_BENCH_ROUNDS
// (default 3), VIDPUB_BENCH_RECORDS (default 10000), VIDPUB_BENCH_ROOT.
// Exit code 1 if a goal is missed.
/* global fetch */
import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const LOAD_MS = Number(process.env.VIDPUB_BENCH_LOAD_MS ?? 3000);
const ROUNDS = Number(process.env.VIDPUB_BENCH_ROUNDS ?? 3);
const MAX_REQUESTS = 200_000;
const CONNECTIONS = 50;
const RECORDS = Number(process.env.VIDPUB_BENCH_RECORDS ?? 10_000);
const KEYS = 3000;
const RPS_GOAL = 0.5;
const RSS_GOAL = 1.5;

if (!existsSync(join(ROOT, 'dist', 'emulator.js'))) {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('the build failed');
}
const require = createRequire(join(ROOT, 'package.json'));
const { Pool } = require('undici');
const { defaultFixture } = require(join(ROOT, 'dist', 'emulator.js'));

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-load-'));
const now = () => Number(process.hrtime.bigint()) / 1e6;

// The default fixture, with KEYS more keys in the Studio workspace.
const fixture = defaultFixture();
const studio = fixture.workspaces.find((w) => w.id === 'ws_studio');
const keys = [];
for (let i = 0; i < KEYS; i++) {
  const key = `vp_live_bench_${String(i).padStart(6, '0')}_load`;
  keys.push(key);
  studio.keys.push({ key, name: `bench ${i}`, access: 'read_write', revoked: false, created_at: studio.keys[0].created_at });
}
const fixtureFile = join(dir, 'fixture.json');
writeFileSync(fixtureFile, JSON.stringify(fixture));

// The bare server: the same two routes, the same JSON, nothing else.
const bareScript = join(dir, 'bare.cjs');
writeFileSync(
  bareScript,
  `const fastify = require(${JSON.stringify(require.resolve('fastify'))});
const { me, upload } = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const app = fastify({ logger: false });
app.get('/v1/me', async () => me);
app.post('/v1/media/uploads', async (req, reply) => reply.code(201).send(upload));
app.listen({ host: '127.0.0.1', port: 0 }).then((a) => {
  process.send({ info: { base_url: a + '/v1' } });
  process.on('message', () => {
    const c = process.cpuUsage();
    process.send({ cpu: c.user + c.system });
  });
});
`,
);

// The emulator in a child process of its own, started through its module (not the CLI) so that
// it can be asked, over IPC, for its memory after a full garbage collection.
const emuScript = join(dir, 'emulator-child.cjs');
writeFileSync(
  emuScript,
  `const { startEmulator } = require(${JSON.stringify(join(ROOT, 'dist', 'emulator.js'))});
const fixture = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
startEmulator({ port: 0, fixture, processingMs: 0, publishMs: 0 }).then((h) => {
  process.send({ info: h.info });
  process.on('message', (what) => {
    if (what === 'cpu') {
      const c = process.cpuUsage();
      process.send({ cpu: c.user + c.system });
      return;
    }
    globalThis.gc();
    const m = process.memoryUsage();
    process.send({ rss: m.rss, heapUsed: m.heapUsed });
  });
});
`,
);

function startEmulatorChild() {
  return new Promise((resolve, reject) => {
    const child = fork(emuScript, [fixtureFile], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve({ child, info: m.info }));
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
  });
}

/** The emulator's RSS and heap in use after a full GC (MB). */
function memory(child) {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve({ rss: m.rss / 1048576, heap: m.heapUsed / 1048576 }));
    child.send('mem');
  });
}

function startBare(bodies) {
  const file = join(dir, 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  return new Promise((resolve, reject) => {
    const child = fork(bareScript, [file], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve({ child, info: m.info }));
    child.on('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
  });
}

/** The child's CPU time so far (user + system, microseconds). */
function cpuTime(child) {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m.cpu));
    child.send('cpu');
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const uploadBody = (i) => JSON.stringify({ filename: `load-${i}.mp4`, content_type: 'video/mp4', size_bytes: 16 });

/**
 * CONNECTIONS workers for LOAD_MS (or MAX_REQUESTS); returns requests per second, the server's CPU time
 * per request (microseconds) and the status counts.
 */
async function load(server, method, path) {
  const baseUrl = server.info.base_url;
  const url = new URL(baseUrl);
  const pool = new Pool(url.origin, { connections: CONNECTIONS, pipelining: 1 });
  const prefix = url.pathname.replace(/\/$/, '');
  let sent = 0;
  const statuses = {};
  const cpuBefore = await cpuTime(server.child);
  const started = now();
  const end = started + LOAD_MS;
  const worker = async () => {
    while (now() < end && sent < MAX_REQUESTS) {
      const i = sent++;
      const headers = { authorization: `Bearer ${keys[i % keys.length]}` };
      if (method === 'POST') headers['content-type'] = 'application/json';
      const res = await pool.request({ method, path: prefix + path, headers, body: method === 'POST' ? uploadBody(i) : undefined });
      await res.body.dump();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const secs = (now() - started) / 1000;
  const cpu = (await cpuTime(server.child)) - cpuBefore;
  await pool.close();
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return { rps: total / secs, cpuUs: cpu / total, statuses };
}

async function api(baseUrl, method, path, key, body) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Runs `fn(i)` for i in [from, to) on `n` workers. */
async function each(from, to, n, fn) {
  let next = from;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < to) await fn(next++);
    }),
  );
}

const { child: emulator, info } = await startEmulatorChild();
let bare;
let failed = false;
try {
  const admin = (path, body) =>
    fetch(info.admin_url + path, { method: 'POST', headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined }).then((r) => r.json());
  const me = await api(info.base_url, 'GET', '/me', keys[0]);
  const upload = await api(info.base_url, 'POST', '/media/uploads', keys[0], JSON.parse(uploadBody(0)));
  bare = await startBare({ me, upload });

  // (a) requests per second, interleaved: emulator, bare, emulator, bare...; the best of ROUNDS rounds each
  // (requests per second and CPU per request taken separately: each its own best round).
  const cases = [
    { name: 'GET /v1/me', method: 'GET', path: '/me' },
    { name: 'POST /v1/media/uploads', method: 'POST', path: '/media/uploads' },
  ];
  const emuServer = { child: emulator, info };
  console.log(
    `Emulator under load: ${CONNECTIONS} connections, ${LOAD_MS} ms per case, best of ${ROUNDS} · node ${process.version} · ${cpus().length} CPUs (${(cpus()[0]?.model ?? '').trim()}) · load ${loadavg()[0].toFixed(2)} · ${new Date().toISOString().slice(0, 10)}`,
  );
  console.log(
    `${'route'.padEnd(24)} ${'emulator rps'.padStart(12)} ${'bare rps'.padStart(9)} ${'ratio'.padStart(6)}  goal          ${'CPU/request emulator'.padStart(20)} ${'bare'.padStart(7)} ${'ratio'.padStart(6)}  goal          ${'paired'.padStart(6)}`,
  );
  for (const c of cases) {
    const emu = { rps: 0, cpuUs: Infinity };
    const base = { rps: 0, cpuUs: Infinity };
    // Each round's own CPU ratio (the two servers measured back to back, under the same load on the machine).
    const paired = [];
    for (let round = 0; round < ROUNDS; round++) {
      await admin('/reset');
      const e = await load(emuServer, c.method, c.path);
      const b = await load(bare, c.method, c.path);
      const expected = c.method === 'GET' ? '200' : '201';
      for (const [who, r] of [['emulator', e], ['bare', b]]) {
        const other = Object.entries(r.statuses).filter(([s]) => s !== expected);
        if (other.length) throw new Error(`${who} ${c.name}: unexpected statuses ${JSON.stringify(r.statuses)}`);
      }
      paired.push(b.cpuUs / e.cpuUs);
      for (const [best, r] of [[emu, e], [base, b]]) {
        best.rps = Math.max(best.rps, r.rps);
        best.cpuUs = Math.min(best.cpuUs, r.cpuUs);
      }
    }
    const ratio = emu.rps / base.rps;
    // CPU per request as a speed: the bare server's CPU per request over the emulator's (same goal).
    const cpuRatio = base.cpuUs / emu.cpuUs;
    if (ratio < RPS_GOAL) failed = true;
    const verdict = (x) => `>= ${RPS_GOAL}x ${x >= RPS_GOAL ? 'ok' : 'MISSED'}`.padEnd(12);
    console.log(
      `${c.name.padEnd(24)} ${emu.rps.toFixed(0).padStart(12)} ${base.rps.toFixed(0).padStart(9)} ${(ratio.toFixed(2) + 'x').padStart(6)}  ${verdict(ratio)}  ${(emu.cpuUs.toFixed(0) + ' µs').padStart(20)} ${(base.cpuUs.toFixed(0) + ' µs').padStart(7)} ${(cpuRatio.toFixed(2) + 'x').padStart(6)}  ${verdict(cpuRatio)}  ${(median(paired).toFixed(2) + 'x').padStart(6)}`,
    );
  }
  console.log(`(CPU ratio: the bare server's CPU time per request over the emulator's, best of each; paired: the median of each round's own ratio. The goal is checked on requests per second.)`);

  // (b) RSS after RECORDS videos and posts.
  await admin('/reset');
  const fresh = await memory(emulator);
  let early;
  const postsPerDay = 100; // the Studio plan's daily allowance (one workspace)
  const batch = async (from, to) => {
    const ids = new Array(to - from);
    await each(from, to, 16, async (i) => {
      const key = keys[i % keys.length];
      const { media, upload: link } = await api(info.base_url, 'POST', '/media/uploads', key, { filename: `rss-${i}.mp4`, content_type: 'video/mp4', size_bytes: 16 });
      const put = await fetch(link.url, { method: link.method ?? 'PUT', headers: link.headers, body: Buffer.alloc(16) });
      if (!put.ok) throw new Error(`PUT: HTTP ${put.status} ${await put.text()}`);
      await put.arrayBuffer();
      await api(info.base_url, 'POST', `/media/${media.id}/complete`, key);
      ids[i - from] = media.id;
    });
    // A day's allowance of posts at a time, then the emulator's clock moves a day on.
    for (let d = from; d < to; d += postsPerDay) {
      await each(d, Math.min(to, d + postsPerDay), 16, async (i) => {
        await api(info.base_url, 'POST', '/posts', keys[i % keys.length], {
          media_id: ids[i - from],
          caption: `rss ${i}`,
          destinations: [{ destination_id: 'dst_studio_tiktok_1', options: { privacy: 'SELF_ONLY' } }],
          publish_at: 'now',
        });
      });
      await admin('/clock', { advance_sec: 86_400 });
    }
  };
  // Batches of 500 videos, then their posts: fewer than the 1,000 finished videos a workspace keeps.
  // Batches of 500 videos, then their posts: fewer than the 1,000 finished videos a workspace keeps.
  const started = now();
  const first = Math.min(2000, RECORDS);
  for (let from = 0; from < first; from += 500) await batch(from, Math.min(first, from + 500));
  early = await memory(emulator);
  for (let from = first; from < RECORDS; from += 500) await batch(from, Math.min(RECORDS, from + 500));
  const after = await memory(emulator);
  const state = await fetch(`${info.admin_url}/state`).then((r) => r.json());
  const ws = state.workspaces.find((w) => w.id === 'ws_studio');
  const ratio = after.heap / early.heap;
  if (ratio > RSS_GOAL) failed = true;
  const mb = (x) => x.toFixed(1);
  console.log(`Memory after a full GC, heap in use / RSS (MB): fresh ${mb(fresh.heap)} / ${mb(fresh.rss)}, after ${first} videos+posts ${mb(early.heap)} / ${mb(early.rss)}, after ${RECORDS} ${mb(after.heap)} / ${mb(after.rss)}`);
  console.log(
    `heap after ${RECORDS} / after ${first}: ${ratio.toFixed(2)}x (goal <= ${RSS_GOAL}x ${ratio <= RSS_GOAL ? 'ok' : 'MISSED'}) · kept: ${ws.media.total} videos, ${ws.posts.total} posts · ${((now() - started) / 1000).toFixed(1)} s`,
  );
} finally {
  emulator.kill('SIGTERM');
  bare?.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

// End-to-end post latency and request economy (npm run bench -- post-latency).
//
// `vidpub post clip.mp4 --to youtube --caption … --yes` (a child process)
// against an emulator started with --processing-ms 3000 --publish-ms 2000, a
// fresh emulator state (POST /_emulator/reset) before each run. While the
// command runs, the bench watches GET /_emulator/state every few ms (not
// logged, not counted against the key's allowance) and timestamps when the
// video starts processing, when it is ready, when the post starts publishing
// and when it is completed. Printed per run and as medians:
//
// - service: the service's own work (processing + publishing, as observed);
// - vidpub: the command's wall time (start-up and the upload included);
// - after done: from the post's completion to the command's exit (goal: median <= 0.5 s);
// - ready→post: from the video being ready to the post being created (the
//   media wait's own lag, which adds to the total but not to "after done");
// - reads and writes per post, from GET /_emulator/requests (GET = read,
//   POST = write; the PUT of the bytes to the signed link is neither); goal: reads <= 5.
//
// Env: VIDPUB_BENCH_POSTS (runs, default 5), VIDPUB_BENCH_ROOT (another build).
// Exit code 1 if a goal is missed. The watch's resolution is ~10 ms.
/* global fetch */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const RUNS = Number(process.env.VIDPUB_BENCH_POSTS ?? 5);
const PROCESSING_MS = 3000;
const PUBLISH_MS = 2000;
const AFTER_DONE_GOAL_MS = 500;
const READS_GOAL = 5;
const WATCH_EVERY_MS = 10;

if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('the build failed');
}

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-post-'));
const clip = join(dir, 'clip.mp4');
copyFileSync(fileURLToPath(new URL('../test/fixtures/clip.mp4', import.meta.url)), clip);
const env = { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
for (const k of ['VIDPUB_API_KEY', 'VIDPUB_BASE_URL', 'VIDPUB_PROFILE', 'VIDPUB_WORKSPACE', 'VIDPUB_DEBUG']) delete env[k];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Watches the Demo workspace's counts; returns the first time each transition was seen. */
function watch(adminUrl) {
  const seen = {};
  let stop = false;
  const done = (async () => {
    while (!stop) {
      const t = now();
      const state = await fetch(`${adminUrl}/state`).then((r) => r.json());
      const ws = state.workspaces.find((w) => w.id === 'ws_demo');
      if (ws.media.processing > 0) seen.processing ??= t;
      if (seen.processing !== undefined && ws.media.processing === 0) seen.ready ??= t;
      if (ws.posts.publishing > 0) seen.publishing ??= t;
      if (ws.posts.completed > 0) seen.completed ??= t;
      await sleep(WATCH_EVERY_MS);
    }
  })();
  return {
    seen,
    async stop() {
      stop = true;
      await done;
    },
  };
}

function runPost(baseUrl, key) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, [BIN, 'post', clip, '--to', 'youtube', '--caption', 'bench', '--yes', '--no-input', '--quiet', '--json'], {
      env: { ...env, VIDPUB_BASE_URL: baseUrl, VIDPUB_API_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, ms: now() - started, started, ended: now(), stdout, stderr }));
  });
}

const { child: emulator, info } = await startEmulator(BIN, { env, args: ['--processing-ms', String(PROCESSING_MS), '--publish-ms', String(PUBLISH_MS)] });
let failed = false;
try {
  const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    const reset = await fetch(`${info.admin_url}/reset`, { method: 'POST' });
    if (!reset.ok) throw new Error(`emulator reset: ${reset.status}`);
    const w = watch(info.admin_url);
    const r = await runPost(info.base_url, key);
    await w.stop();
    if (r.code !== 0) throw new Error(`vidpub post exited ${r.code}: ${r.stderr}`);
    const s = w.seen;
    for (const k of ['processing', 'ready', 'publishing', 'completed']) if (s[k] === undefined) throw new Error(`the watch never saw "${k}"`);
    const log = await fetch(`${info.admin_url}/requests`).then((res) => res.json());
    const api = log.filter((e) => e.path.startsWith('/v1/'));
    rows.push({
      service: s.ready - s.processing + (s.completed - s.publishing),
      vidpub: r.ms,
      afterDone: r.ended - s.completed,
      readyToPost: s.publishing - s.ready,
      reads: api.filter((e) => e.method === 'GET').length,
      writes: api.filter((e) => e.method === 'POST').length,
      paths: api.filter((e) => e.method === 'GET').map((e) => e.path.replace(/\/(med|post)_[0-9a-f]+/, '/$1_…')),
    });
  }

  const cpuModel = (cpus()[0]?.model ?? 'unknown CPU').trim();
  console.log(
    `Post latency: ${RUNS} runs, --processing-ms ${PROCESSING_MS} --publish-ms ${PUBLISH_MS} · node ${process.version} · ${cpus().length} CPUs (${cpuModel}) · load ${loadavg()[0].toFixed(2)} · ${new Date().toISOString().slice(0, 10)}`,
  );
  const f = (ms) => (ms / 1000).toFixed(2).padStart(7);
  console.log(`${'run'.padEnd(5)} ${'service s'.padStart(9)} ${'vidpub s'.padStart(9)} ${'after done'.padStart(10)} ${'ready→post'.padStart(10)} ${'reads'.padStart(5)} ${'writes'.padStart(6)}`);
  rows.forEach((r, i) =>
    console.log(`${String(i + 1).padEnd(5)} ${f(r.service).padStart(9)} ${f(r.vidpub).padStart(9)} ${f(r.afterDone).padStart(10)} ${f(r.readyToPost).padStart(10)} ${String(r.reads).padStart(5)} ${String(r.writes).padStart(6)}`),
  );
  const m = (k) => median(rows.map((r) => r[k]));
  const after = m('afterDone');
  const reads = m('reads');
  console.log(`${'median'.padEnd(5)} ${f(m('service')).padStart(9)} ${f(m('vidpub')).padStart(9)} ${f(after).padStart(10)} ${f(m('readyToPost')).padStart(10)} ${String(reads).padStart(5)} ${String(m('writes')).padStart(6)}`);
  console.log(`reads of the last run: ${rows.at(-1).paths.join(', ')}`);
  const okAfter = after <= AFTER_DONE_GOAL_MS;
  const okReads = reads <= READS_GOAL;
  console.log(`after the service is done: median ${(after / 1000).toFixed(2)} s (overhead over the service's work: ${((m('vidpub') - m('service')) / 1000).toFixed(2)} s)  goal <= ${(AFTER_DONE_GOAL_MS / 1000).toFixed(1)} s ${okAfter ? 'ok' : 'MISSED'}`);
  console.log(`reads per post: median ${reads}  goal <= ${READS_GOAL} ${okReads ? 'ok' : 'MISSED'}; writes per post: median ${m('writes')}`);
  failed = !okAfter || !okReads;
} finally {
  emulator.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

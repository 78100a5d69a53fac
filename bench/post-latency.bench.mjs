// End-to-end post latency and request economy (npm run bench -- post-latency).
//
// `vidpub post clip.mp4 --to youtube --caption … --yes` (a child process)
// against an emulator started with --processing-ms 3000 --publish-ms 2000, a
// fresh emulator state (POST /_emulator/reset) before each run. Runs go in
// threes: a first post with an empty cache directory (cold: destinations,
// options and the key's workspace read from the service, no remembered
// durations), then the same post again with that directory (warm), then
// once more with every entry of that directory made a day older ("next
// day": what a daily cron line meets; destinations and options, kept 10
// minutes, are read again; the workspace and the durations, kept 7 days,
// are not). The
// cache directories are temporary, one per three runs; the V8 code cache of the
// bundle is copied into each, so that "cold" is about the API cache alone. While the
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
// The goals are checked on the warm (repeated) post and on the next day's;
// the cold one is printed beside them.
//
// Env: VIDPUB_BENCH_POSTS (threes of runs, default 5), VIDPUB_BENCH_ROOT (another build).
// Exit code 1 if a goal is missed. The watch's resolution is ~10 ms.
/* global fetch */
import { envNote } from './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
for (const k of ['VIDPUB_API_KEY', 'VIDPUB_BASE_URL', 'VIDPUB_PROFILE', 'VIDPUB_WORKSPACE', 'VIDPUB_DEBUG', 'VIDPUB_NO_CACHE', 'VIDPUB_CACHE_DIR']) delete env[k];
/** Where the V8 code cache of the bundle builds up (copied into each new cache directory). */
const codeCacheDir = join(dir, 'code-cache');
mkdirSync(codeCacheDir);

/** A new, empty API cache directory holding only the bundle's code cache. */
function coldCacheDir(i) {
  const d = join(dir, `cache-${i}`);
  mkdirSync(d);
  for (const f of readdirSync(codeCacheDir)) if (f.startsWith('v8-')) copyFileSync(join(codeCacheDir, f), join(d, f));
  return d;
}

/** Keeps the code cache a run wrote, for the next cache directories. */
function keepCodeCache(d) {
  for (const f of readdirSync(d)) if (f.startsWith('v8-')) copyFileSync(join(d, f), join(codeCacheDir, f));
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * Makes every entry of the API cache in `d` a day older, as if the post ran
 * again the next day (the entries carry the time they were read: `at`,
 * epoch ms; see src/cache/key-cache.ts).
 */
function ageCacheByADay(d) {
  const api = join(d, 'api');
  if (!existsSync(api)) throw new Error(`no API cache in ${d}`);
  let aged = 0;
  for (const f of readdirSync(api)) {
    if (!f.endsWith('.json')) continue;
    const file = JSON.parse(readFileSync(join(api, f), 'utf8'));
    for (const e of Object.values(file.entries ?? {})) {
      e.at -= DAY_MS;
      aged++;
    }
    writeFileSync(join(api, f), JSON.stringify(file));
  }
  if (aged === 0) throw new Error(`the API cache in ${d} has no entries to age`);
}

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

function runPost(baseUrl, key, cacheDir) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, [BIN, 'post', clip, '--to', 'youtube', '--caption', 'bench', '--yes', '--no-input', '--quiet', '--json'], {
      env: { ...env, VIDPUB_BASE_URL: baseUrl, VIDPUB_API_KEY: key, VIDPUB_CACHE_DIR: cacheDir },
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
  /** One post against a fresh emulator state, measured. */
  async function measure(cacheDir) {
    const reset = await fetch(`${info.admin_url}/reset`, { method: 'POST' });
    if (!reset.ok) throw new Error(`emulator reset: ${reset.status}`);
    const w = watch(info.admin_url);
    const r = await runPost(info.base_url, key, cacheDir);
    await w.stop();
    if (r.code !== 0) throw new Error(`vidpub post exited ${r.code}: ${r.stderr}`);
    const s = w.seen;
    for (const k of ['processing', 'ready', 'publishing', 'completed']) if (s[k] === undefined) throw new Error(`the watch never saw "${k}"`);
    const log = await fetch(`${info.admin_url}/requests`).then((res) => res.json());
    const api = log.filter((e) => e.path.startsWith('/v1/'));
    return {
      service: s.ready - s.processing + (s.completed - s.publishing),
      vidpub: r.ms,
      afterDone: r.ended - s.completed,
      readyToPost: s.publishing - s.ready,
      reads: api.filter((e) => e.method === 'GET').length,
      writes: api.filter((e) => e.method === 'POST').length,
      paths: api.filter((e) => e.method === 'GET').map((e) => e.path.replace(/\/(med|post)_[0-9a-f]+/, '/$1_…')),
    };
  }

  // Warm the bundle's code cache once, outside the figures.
  const primer = coldCacheDir('primer');
  await measure(primer);
  keepCodeCache(primer);

  const cold = [];
  const warm = [];
  const nextDay = [];
  for (let i = 0; i < RUNS; i++) {
    const d = coldCacheDir(i);
    cold.push(await measure(d));
    warm.push(await measure(d));
    ageCacheByADay(d);
    nextDay.push(await measure(d));
  }

  const cpuModel = (cpus()[0]?.model ?? 'unknown CPU').trim();
  console.log(
    `Post latency: ${RUNS} × (cold cache, warm, next day), --processing-ms ${PROCESSING_MS} --publish-ms ${PUBLISH_MS} · node ${process.version} · ${cpus().length} CPUs (${cpuModel}) · load ${loadavg()[0].toFixed(2)} · ${new Date().toISOString().slice(0, 10)}`,
  );
  console.log(envNote());
  const f = (ms) => (ms / 1000).toFixed(2);
  const head = `${'run'.padEnd(10)} ${'service s'.padStart(9)} ${'vidpub s'.padStart(9)} ${'overhead'.padStart(9)} ${'after done'.padStart(10)} ${'ready→post'.padStart(10)} ${'reads'.padStart(5)} ${'writes'.padStart(6)}`;
  const line = (label, r) =>
    `${label.padEnd(10)} ${f(r.service).padStart(9)} ${f(r.vidpub).padStart(9)} ${f(r.vidpub - r.service).padStart(9)} ${f(r.afterDone).padStart(10)} ${f(r.readyToPost).padStart(10)} ${String(r.reads).padStart(5)} ${String(r.writes).padStart(6)}`;
  console.log(head);
  for (let i = 0; i < RUNS; i++) {
    console.log(line(`${i + 1} cold`, cold[i]));
    console.log(line(`${i + 1} warm`, warm[i]));
    console.log(line(`${i + 1} next day`, nextDay[i]));
  }
  const medians = (rows) => {
    const m = (k) => median(rows.map((r) => r[k]));
    return { service: m('service'), vidpub: m('vidpub'), afterDone: m('afterDone'), readyToPost: m('readyToPost'), reads: m('reads'), writes: m('writes') };
  };
  const mc = medians(cold);
  const mw = medians(warm);
  const md = medians(nextDay);
  console.log(line('med cold', mc));
  console.log(line('med warm', mw));
  console.log(line('med next', md));
  console.log(`reads of the last cold run: ${cold.at(-1).paths.join(', ')}`);
  console.log(`reads of the last warm run: ${warm.at(-1).paths.join(', ')}`);
  console.log(`reads of the last next-day run: ${nextDay.at(-1).paths.join(', ')}`);
  const okAfter = mw.afterDone <= AFTER_DONE_GOAL_MS && md.afterDone <= AFTER_DONE_GOAL_MS;
  const okReads = mw.reads <= READS_GOAL && md.reads <= READS_GOAL;
  const mark = (ok) => (ok ? 'ok' : 'MISSED');
  const cols = (fmt) => [mc, mw, md].map((m) => fmt(m).padStart(9)).join(' ');
  console.log('figure (median)              cold      warm  next day   target');
  console.log(`service time            ${cols((m) => `${f(m.service)} s`)}   (the emulator's own work)`);
  console.log(`vidpub time             ${cols((m) => `${f(m.vidpub)} s`)}   (the whole command)`);
  console.log(`overhead                ${cols((m) => `${f(m.vidpub - m.service)} s`)}   (vidpub - service)`);
  console.log(`after done              ${cols((m) => `${f(m.afterDone)} s`)}   <= ${(AFTER_DONE_GOAL_MS / 1000).toFixed(1)} s (warm, next day) ${mark(okAfter)}`);
  console.log(`reads per post          ${cols((m) => `${m.reads}  `)}   <= ${READS_GOAL} (warm, next day) ${mark(okReads)}`);
  console.log(`writes per post         ${cols((m) => `${m.writes}  `)}   3 (create upload, complete, create post)`);
  failed = !okAfter || !okReads;
} finally {
  emulator.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

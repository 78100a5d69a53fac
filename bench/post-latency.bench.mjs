// End-to-end post latency and request economy (npm run bench -- post-latency).
//
// `vidpub post clip.mp4 --to youtube --caption … --yes --quiet --json` (a
// child process) against an emulator started with --processing-ms 3000
// --publish-ms 2000, a fresh emulator state (POST /_emulator/reset) before each
// run. Each round runs three posts: a first with an empty cache directory and
// an empty state directory (cold: a new machine or CI runner; destinations,
// options and the key's workspace read from the service, no remembered
// durations, no journal), the same post again with both (warm), then once more
// with every entry of the cache made a day older ("next day": a daily cron
// line; destinations and options, kept 10 minutes, are read again; the
// workspace and the durations, kept 7 days, are not). The V8 code cache of the
// bundle is copied into each new cache directory, so that "cold" is about the
// API cache alone. While the command runs, the bench watches GET
// /_emulator/state every few ms (not logged, not counted against the key's
// allowance) and timestamps when the video starts processing, when it is
// ready, when the post starts publishing and when it is completed.
//
// The goal is on the **overhead**: the command's wall time less the service's
// own work in the same run (processing + publishing, as observed: the floor,
// which no client can go under), paired run by run; median ≤ 0.5 s, warm and
// cold, marked met or missed. Printed per kind, as medians:
//
// - to processing: from the spawn to the video processing (start-up, the reads
//   before the upload, the upload);
// - ready→post: from the video being ready to the post publishing (the media
//   wait's lag, and creating the post);
// - after done: from the post's completion to the command's exit (the post
//   wait's lag, printing, the journal);
// - reads and writes per post, from GET /_emulator/requests (GET = read,
//   POST = write; the PUT of the bytes to the signed link is neither); goal:
//   reads <= 5 (warm, next day).
//
// VIDPUB_BENCH_BASE=<checkout> runs another build (built already) in the same
// rounds, interleaved (the order swapped every other round), and prints its
// figures beside this one's: a before/after on the same loaded machine.
//
// Env: VIDPUB_BENCH_POSTS (rounds, default 9), VIDPUB_BENCH_ROOT (another build
// as the one measured). Exit code 1 if a goal is missed. The watch's
// resolution is ~10 ms.
/* global fetch */
import { envNote } from './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BASE = process.env.VIDPUB_BENCH_BASE;
const RUNS = Number(process.env.VIDPUB_BENCH_POSTS ?? 9);
const PROCESSING_MS = 3000;
const PUBLISH_MS = 2000;
const OVERHEAD_GOAL_MS = 500;
const READS_GOAL = 5;
const WATCH_EVERY_MS = 10;

if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('the build failed');
}
if (BASE !== undefined && !existsSync(join(BASE, 'dist', 'main.js'))) throw new Error(`VIDPUB_BENCH_BASE: ${BASE} is not built (npm run build there)`);

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-post-'));
const clip = join(dir, 'clip.mp4');
copyFileSync(fileURLToPath(new URL('../test/fixtures/clip.mp4', import.meta.url)), clip);
const env = { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
for (const k of ['VIDPUB_API_KEY', 'VIDPUB_BASE_URL', 'VIDPUB_PROFILE', 'VIDPUB_WORKSPACE', 'VIDPUB_DEBUG', 'VIDPUB_NO_CACHE', 'VIDPUB_CACHE_DIR', 'VIDPUB_STATE_DIR', 'TZ']) delete env[k];

/** A build measured: where its bin is, and where the V8 code cache of its bundle builds up. */
function build(name, root) {
  const codeCache = join(dir, `code-cache-${name}`);
  mkdirSync(codeCache);
  return { name, bin: join(root, 'bin', 'vidpub.js'), codeCache };
}
const builds = [build('this', ROOT), ...(BASE !== undefined ? [build('base', BASE)] : [])];

/** A new machine: an empty API cache directory (holding only the bundle's code cache) and an empty state directory. */
function newMachine(b, i) {
  const cache = join(dir, `cache-${b.name}-${i}`);
  mkdirSync(cache);
  for (const f of readdirSync(b.codeCache)) if (f.startsWith('v8-')) copyFileSync(join(b.codeCache, f), join(cache, f));
  return { cache, state: join(dir, `state-${b.name}-${i}`) };
}

/** Keeps the code cache a run wrote, for the next cache directories. */
function keepCodeCache(b, d) {
  for (const f of readdirSync(d)) if (f.startsWith('v8-')) copyFileSync(join(d, f), join(b.codeCache, f));
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

function runPost(bin, baseUrl, key, machine) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, [bin, 'post', clip, '--to', 'youtube', '--caption', 'bench', '--yes', '--no-input', '--quiet', '--json'], {
      env: { ...env, VIDPUB_BASE_URL: baseUrl, VIDPUB_API_KEY: key, VIDPUB_CACHE_DIR: machine.cache, VIDPUB_STATE_DIR: machine.state },
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

const KINDS = ['cold', 'warm', 'next day'];
const { child: emulator, info } = await startEmulator(builds[0].bin, { env, args: ['--processing-ms', String(PROCESSING_MS), '--publish-ms', String(PUBLISH_MS)] });
let failed = false;
try {
  const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
  /** One post against a fresh emulator state, measured. */
  async function measure(b, machine) {
    const reset = await fetch(`${info.admin_url}/reset`, { method: 'POST' });
    if (!reset.ok) throw new Error(`emulator reset: ${reset.status}`);
    const w = watch(info.admin_url);
    const r = await runPost(b.bin, info.base_url, key, machine);
    await w.stop();
    if (r.code !== 0) throw new Error(`vidpub post (${b.name}) exited ${r.code}: ${r.stderr}`);
    const s = w.seen;
    for (const k of ['processing', 'ready', 'publishing', 'completed']) if (s[k] === undefined) throw new Error(`the watch never saw "${k}"`);
    const log = await fetch(`${info.admin_url}/requests`).then((res) => res.json());
    const api = log.filter((e) => e.path.startsWith('/v1/'));
    const service = s.ready - s.processing + (s.completed - s.publishing);
    return {
      service,
      vidpub: r.ms,
      overhead: r.ms - service,
      toProcessing: s.processing - r.started,
      readyToPost: s.publishing - s.ready,
      afterDone: r.ended - s.completed,
      reads: api.filter((e) => e.method === 'GET').length,
      writes: api.filter((e) => e.method === 'POST').length,
      paths: api.filter((e) => e.method === 'GET').map((e) => e.path.replace(/\/(med|post)_[0-9a-f]+/, '/$1_…')),
    };
  }

  // Warm each bundle's code cache once, outside the figures.
  for (const b of builds) {
    const m = newMachine(b, 'primer');
    await measure(b, m);
    keepCodeCache(b, m.cache);
  }

  /** rows[build][kind] = runs */
  const rows = Object.fromEntries(builds.map((b) => [b.name, Object.fromEntries(KINDS.map((k) => [k, []]))]));
  for (let i = 0; i < RUNS; i++) {
    // Interleaved: each round runs every build's three posts, the builds' order swapped every other round.
    const order = i % 2 ? [...builds].reverse() : builds;
    for (const b of order) {
      const m = newMachine(b, i);
      rows[b.name].cold.push(await measure(b, m));
      rows[b.name].warm.push(await measure(b, m));
      ageCacheByADay(m.cache);
      rows[b.name]['next day'].push(await measure(b, m));
    }
  }

  const cpuModel = (cpus()[0]?.model ?? 'unknown CPU').trim();
  console.log(
    `Post latency: ${RUNS} rounds × (cold, warm, next day)${BASE !== undefined ? ' × 2 builds, interleaved' : ''}, --processing-ms ${PROCESSING_MS} --publish-ms ${PUBLISH_MS} · node ${process.version} · ${cpus().length} CPUs (${cpuModel}) · load ${loadavg()[0].toFixed(2)} · ${new Date().toISOString().slice(0, 10)}`,
  );
  console.log(envNote());
  const f = (ms) => (ms / 1000).toFixed(2);
  const cols = ['service', 'vidpub', 'overhead', 'toProcessing', 'readyToPost', 'afterDone'];
  const head = `${'build'.padEnd(5)} ${'run'.padEnd(11)} ${'service s'.padStart(9)} ${'vidpub s'.padStart(9)} ${'overhead'.padStart(9)} ${'to proc.'.padStart(9)} ${'ready→post'.padStart(10)} ${'after done'.padStart(10)} ${'reads'.padStart(5)} ${'writes'.padStart(6)}`;
  const line = (name, label, r) =>
    `${name.padEnd(5)} ${label.padEnd(11)} ${cols.map((c, j) => f(r[c]).padStart(j < 3 || c === 'toProcessing' ? 9 : 10)).join(' ')} ${String(r.reads).padStart(5)} ${String(r.writes).padStart(6)}`;
  console.log(head);
  for (let i = 0; i < RUNS; i++) for (const b of builds) for (const k of KINDS) console.log(line(b.name, `${i + 1} ${k}`, rows[b.name][k][i]));
  const medians = (runs) => Object.fromEntries([...cols, 'reads', 'writes'].map((c) => [c, median(runs.map((r) => r[c]))]));
  const med = Object.fromEntries(builds.map((b) => [b.name, Object.fromEntries(KINDS.map((k) => [k, medians(rows[b.name][k])]))]));
  for (const b of builds) for (const k of KINDS) console.log(line(b.name, `med ${k}`, med[b.name][k]));
  const mine = rows.this;
  console.log(`reads of the last cold run: ${mine.cold.at(-1).paths.join(', ')}`);
  console.log(`reads of the last warm run: ${mine.warm.at(-1).paths.join(', ')}`);
  console.log(`reads of the last next-day run: ${mine['next day'].at(-1).paths.join(', ')}`);
  const m = med.this;
  const mark = (ok) => (ok ? 'met' : 'missed');
  const okCold = m.cold.overhead <= OVERHEAD_GOAL_MS;
  const okWarm = m.warm.overhead <= OVERHEAD_GOAL_MS;
  const okReads = m.warm.reads <= READS_GOAL && m['next day'].reads <= READS_GOAL;
  const three = (fmt, r = m) => KINDS.map((k) => fmt(r[k]).padStart(9)).join(' ');
  console.log(`\nmedians of ${RUNS} paired runs each (overhead = vidpub − service, run by run)`);
  console.log('figure                       cold      warm  next day   goal');
  console.log(`service (the floor)    ${three((x) => `${f(x.service)} s`)}   the emulator's own work, in the same run`);
  console.log(`vidpub                 ${three((x) => `${f(x.vidpub)} s`)}   the whole command`);
  console.log(`overhead               ${three((x) => `${f(x.overhead)} s`)}   <= ${f(OVERHEAD_GOAL_MS)} s: cold ${mark(okCold)}, warm ${mark(okWarm)}`);
  if (BASE !== undefined) console.log(`overhead, base build   ${three((x) => `${f(x.overhead)} s`, med.base)}   (${BASE}, interleaved)`);
  console.log(`  to processing        ${three((x) => `${f(x.toProcessing)} s`)}   start-up, reads, upload`);
  console.log(`  ready→post           ${three((x) => `${f(x.readyToPost)} s`)}   the media wait's lag, creating the post`);
  console.log(`  after done           ${three((x) => `${f(x.afterDone)} s`)}   the post wait's lag, output, journal`);
  console.log(`reads per post         ${three((x) => `${x.reads}  `)}   <= ${READS_GOAL} (warm, next day): ${mark(okReads)}`);
  console.log(`writes per post        ${three((x) => `${x.writes}  `)}   3 (create upload, complete, create post)`);
  failed = !okCold || !okWarm || !okReads;
} finally {
  emulator.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

// `vidpub watch --once` at scale, and what --events costs a post (npm run bench -- watch, or:
// node bench/watch.bench.mjs). Issue 45's benchmark.
//
// 1. A journal of 10,000 posts (two segments as rotation leaves them), 500 of them due (published at
//    the emulator, which an exported world imported holds), 9,500 scheduled for later; a Standard key
//    (60 reads a minute). `watch --once --json` is run as cron would, the emulator's clock moved on a
//    minute between runs, until every due post was read; a `vidpub post` runs beside the first run on
//    the same key. Goals: no 429 to anyone; each run's peak memory (maxRSS) <= 120 MB; the reads of
//    any minute within the allowance (60), the rest left for the next run; every due post's events
//    reported once in all.
// 2. --events: the same post (--media, one destination, followed to its end) with it and with --json, the
//    two alternated run by run. Goal: median CPU time (user + system: what vidpub itself spends; the wall
//    time, mostly the service publishing, is printed beside it) with --events <= 1.02x with --json.
//
// Env: VIDPUB_BENCH_PAIRS (default 20). Exit code 1 if a goal is missed. Everything lives in a temp
// dir, deleted at the end.
import { envNote } from './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';
import { writeJournalSegments } from './journal-segments.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const RSS_PRELOAD = join(ROOT, 'bench', 'max-rss.cjs');
const POSTS = 10_000;
const DUE = 500;
const PAIRS = Number(process.env.VIDPUB_BENCH_PAIRS ?? 20);
const KEY = 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td'; // Demo, Standard plan: 60 reads, 20 writes a minute
const KEY_ID = '114f83360b56'; // its id as the journal keeps it
const MEMORY_GOAL_MB = 120;
const EVENTS_GOAL = 1.02;

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-watch-'));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The emulator's world with the 500 due posts, done at the service (one destination published, one failed in 10). */
function worldWith(duePosts, nowMs) {
  const template = join(dir, 'template.json');
  return startEmulator(BIN).then(async ({ child, info }) => {
    try {
      const r = spawnSync(process.execPath, [BIN, 'emulator', 'export', template, '--base-url', info.base_url], { env: { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'c0') } });
      if (r.status !== 0) throw new Error(`emulator export failed: ${r.stderr}`);
    } finally {
      child.kill();
    }
    const world = JSON.parse(readFileSync(template, 'utf8'));
    const demo = world.workspaces.find((w) => w.id === 'ws_demo');
    for (const p of duePosts) {
      const failed = p.n % 10 === 0;
      demo.posts.push({
        id: p.id, workspaceId: 'ws_demo', status: 'completed', caption: p.caption, media_id: 'med_demo_sample', publish_at: p.publish_at, dueAtMs: Date.parse(p.publish_at),
        issues: [], created_at: new Date(nowMs - 2 * 3600_000).toISOString(), counted: false,
        destinations: [{
          destination_id: 'dst_demo_linkedin', options: { visibility: 'PUBLIC', allow_comments: true }, status: failed ? 'failed' : 'published',
          url: failed ? null : `https://example.com/p/${p.id}`, warning: null, failure: failed ? { code: 'platform_rejected', message: 'linkedin refused the video' } : null,
        }],
      });
    }
    const path = join(dir, 'world.json');
    writeFileSync(path, JSON.stringify(world));
    return path;
  });
}

/** The 10,000 posts: one in 20 due (published an hour ago), the others scheduled from tomorrow on. */
function planPosts(nowMs) {
  const posts = [];
  let n = 0;
  for (let i = 0; i < POSTS; i++) {
    const isDue = i % (POSTS / DUE) === 0;
    const publishAt = new Date(isDue ? nowMs - 3600_000 + i : nowMs + 86_400_000 + i * 60_000).toISOString().replace(/\.\d{3}Z$/, '.000Z');
    posts.push({ id: `post_${String(i).padStart(16, '0')}`, i, isDue, n: isDue ? n++ : -1, publish_at: publishAt, caption: `Nightly build ${i}: ${'what changed today, in a few words. '.repeat(4)}`.slice(0, 200) });
  }
  return posts;
}

/** The journal as vidpub writes it: a post record for each of `posts` (bench/journal-segments.mjs cuts it). */
function* journalRecords(baseUrl, posts, nowMs) {
  for (const p of posts) {
    yield {
      v: 1, kind: 'post', at: new Date(nowMs - 2 * 3600_000 + p.i).toISOString(), profile: 'default', base_url: baseUrl, key: KEY_ID, workspace_id: 'ws_demo', workspace: 'Demo',
      post_id: p.id, media_id: 'med_demo_sample', size: 4_200_000, caption: p.caption,
      destinations: [{ id: 'dst_demo_linkedin', name: '@vidpub-demo (linkedin)', options: { visibility: 'PUBLIC', allow_comments: true }, status: 'pending' }],
      publish_at: p.publish_at, draft: false, idem: `nightly-${p.i}`, outcome: 'created', status: 'scheduled',
    };
  }
}

/** One run of the bin (its peak memory and CPU read by the preload): exit code, wall ms, stdout, maxRSS MB, CPU ms. */
function runBin(args, env) {
  const rssFile = join(dir, `rss-${process.hrtime.bigint()}`);
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, ['-r', RSS_PRELOAD, BIN, ...args], { env: { ...env, VIDPUB_BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.stderr.on('data', (c) => (stderr += c));
    p.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      let rssMb = NaN;
      let cpuMs = NaN;
      try {
        const [rss, cpu] = readFileSync(rssFile, 'utf8').trim().split(' ').map(Number);
        [rssMb, cpuMs] = [rss / 1024, cpu / 1000];
      } catch {
        // the process died before its exit handler
      }
      resolve({ code, ms, stdout, stderr, rssMb, cpuMs });
    });
  });
}

let failed = false;
let emulator;
try {
  const cpuModel = (cpus()[0]?.model ?? 'unknown CPU').trim();
  console.log(`watch --once: ${POSTS.toLocaleString('en-US')} posts in the journal, ${DUE} due, Standard key · node ${process.version} · ${cpus().length} CPUs (${cpuModel})`);
  console.log(envNote());
  const nowMs = Date.now();
  const posts = planPosts(nowMs);
  const due = posts.filter((p) => p.isDue);
  emulator = await startEmulator(BIN, { args: ['--import', await worldWith(due, nowMs), '--processing-ms', '50', '--publish-ms', '50'] });
  const { info } = emulator;
  const admin = async (method, path, body) => {
    const res = await globalThis.fetch(info.admin_url + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
    return res.status === 204 ? undefined : res.json();
  };
  const stateDir = join(dir, 'state');
  const segments = writeJournalSegments(stateDir, journalRecords(info.base_url, posts, nowMs));
  const env = { ...process.env, VIDPUB_STATE_DIR: stateDir, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_CACHE_DIR: join(dir, 'cache'), VIDPUB_API_KEY: KEY, VIDPUB_BASE_URL: info.base_url, NO_COLOR: '1', TZ: 'UTC' };
  for (const k of ['VIDPUB_PROFILE', 'VIDPUB_WORKSPACE', 'VIDPUB_NO_JOURNAL']) delete env[k];
  console.log(`Journal: ${segments} segments + the active file; emulator world: ${due.length} due posts done at the service.`);
  // Baselines of memory in the same run: a command that reads the service once, and history reading one post of this journal.
  const baseline = {};
  for (const [name, args] of [['vidpub me', ['me']], ['vidpub history --limit 1', ['history', '--limit', '1']]]) baseline[name] = (await runBin(args, env)).rssMb;

  // ---------------------------------------------------------------- 1. watch --once, run by run
  await admin('DELETE', '/requests');
  const runs = [];
  const reported = new Map();
  let besidePost;
  for (let run = 1; run <= 30; run++) {
    const watch = runBin(['watch', '--once', '--json'], env);
    // A post on the same key beside the first run (it must get no 429 either).
    if (run === 1) besidePost = runBin(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'beside watch', '--yes', '--allow-duplicate', '--json', 'id,status'], env);
    const r = await watch;
    const log = (await admin('GET', '/requests')).filter((q) => q.path.startsWith('/v1/'));
    await admin('DELETE', '/requests');
    const reads = log.filter((q) => q.method === 'GET' && /^\/v1\/posts\/post_\d{16}$/.test(q.path)).length;
    const limited = log.filter((q) => q.status === 429).length;
    const lines = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (const e of lines) reported.set(e.id, (reported.get(e.id) ?? 0) + 1);
    runs.push({ run, code: r.code, ms: r.ms, rssMb: r.rssMb, reads, allGets: log.filter((q) => q.method === 'GET').length, limited, events: lines.length, note: (r.stderr.match(/(\d+) posts? due (was|were) not read/) ?? [])[1] ?? '0' });
    if (r.code !== 0 && r.code !== 6) throw new Error(`watch --once exited ${r.code}: ${r.stderr}`);
    const readSoFar = runs.reduce((n, x) => n + x.reads, 0);
    if (readSoFar >= DUE) break;
    await admin('POST', '/clock', { advance_sec: 60 }); // cron's next minute
  }
  const beside = await besidePost;
  console.log(`${'run'.padStart(3)} ${'exit'.padStart(4)} ${'wall ms'.padStart(8)} ${'maxRSS MB'.padStart(9)} ${'post reads'.padStart(10)} ${'GETs'.padStart(5)} ${'429s'.padStart(5)} ${'events'.padStart(6)} ${'left'.padStart(5)}`);
  for (const x of runs) {
    console.log(`${String(x.run).padStart(3)} ${String(x.code).padStart(4)} ${x.ms.toFixed(0).padStart(8)} ${x.rssMb.toFixed(1).padStart(9)} ${String(x.reads).padStart(10)} ${String(x.allGets).padStart(5)} ${String(x.limited).padStart(5)} ${String(x.events).padStart(6)} ${x.note.padStart(5)}`);
  }
  const total429 = runs.reduce((n, x) => n + x.limited, 0);
  const peak = Math.max(...runs.map((x) => x.rssMb));
  const maxGets = Math.max(...runs.map((x) => x.allGets));
  const totalReads = runs.reduce((n, x) => n + x.reads, 0);
  const twice = [...reported.values()].filter((c) => c > 1).length;
  const expectedEvents = DUE * 2; // a destination's end and the post's, for each due post
  console.log(`baselines, maxRSS: ${Object.entries(baseline).map(([k, v]) => `${k} ${v.toFixed(1)} MB`).join(', ')}; watch --once peak ${(peak / baseline['vidpub me']).toFixed(2)}x vidpub me`);
  console.log(`post beside run 1: exit ${beside.code} (${beside.ms.toFixed(0)} ms)${beside.code === 0 ? '' : `: ${beside.stderr.trim().split('\n').at(-1)}`}`);
  const goals = [
    ['no 429 (watch and the post beside it)', total429 === 0, `${total429}`],
    [`peak memory <= ${MEMORY_GOAL_MB} MB`, peak <= MEMORY_GOAL_MB, `${peak.toFixed(1)} MB`],
    ['GETs of a run (a minute) <= 60, the rest left for the next run', maxGets <= 60 && runs.length > 1, `max ${maxGets} a run, ${runs.length} runs for ${totalReads} posts read`],
    ['each due post read once', totalReads === DUE, `${totalReads}`],
    ['every event reported once', reported.size === expectedEvents && twice === 0, `${reported.size} of ${expectedEvents}, ${twice} twice`],
    ['the post beside the first run succeeded', beside.code === 0, `exit ${beside.code}`],
  ];
  for (const [what, ok, got] of goals) {
    console.log(`${ok ? 'ok    ' : 'MISSED'} ${what}: ${got}`);
    if (!ok) failed = true;
  }

  // ---------------------------------------------------------------- 2. --events on a post
  const plain = { ms: [], cpu: [] };
  const events = { ms: [], cpu: [] };
  for (let i = 0; i < PAIRS + 1; i++) {
    await admin('POST', '/clock', { advance_sec: 86_400 }); // a new day: the minute's writes and the day's posts back (Standard: 30 a day)
    const args = (tag) => ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', `pair ${i} ${tag}`, '--yes', '--allow-duplicate', '--no-journal'];
    // Alternated, which goes first too, so that neither always runs on a warmer machine.
    const order = i % 2 ? ['events', 'plain'] : ['plain', 'events'];
    for (const which of order) {
      const r = await runBin(which === 'events' ? [...args(which), '--events'] : [...args(which), '--json'], env);
      if (r.code !== 0) throw new Error(`post ${which} exited ${r.code}: ${r.stderr}`);
      if (i > 0) {
        const into = which === 'events' ? events : plain;
        into.ms.push(r.ms);
        into.cpu.push(r.cpuMs);
      }
    }
  }
  // The overhead is what vidpub itself spends (CPU); the wall time is mostly the service's publishing, printed beside it.
  const ratio = median(events.cpu) / median(plain.cpu);
  const wallRatio = median(events.ms) / median(plain.ms);
  const okEvents = ratio <= EVENTS_GOAL;
  console.log(`post --json: median ${median(plain.cpu).toFixed(0)} ms CPU, ${median(plain.ms).toFixed(0)} ms wall; post --events: ${median(events.cpu).toFixed(0)} ms CPU, ${median(events.ms).toFixed(0)} ms wall (${PAIRS} pairs, after 1 warm-up pair)`);
  console.log(`${okEvents ? 'ok    ' : 'MISSED'} --events / --json, CPU: ${ratio.toFixed(3)}x (goal <= ${EVENTS_GOAL.toFixed(2)}x); wall: ${wallRatio.toFixed(3)}x`);
  if (!okEvents) failed = true;
} finally {
  emulator?.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

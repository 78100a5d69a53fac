// The local journal (npm run bench -- journal, or: node bench/journal.bench.mjs).
//
// 1. `vidpub history` over a journal of 100,000 records (60,000 posts and
//    40,000 status records, in numbered segments as rotation leaves them),
//    against `vidpub --version` measured in the same run, the two interleaved
//    run by run. Goal: <= 3x (median wall time).
// 2. What the journal adds to a post: the records one post writes (its video,
//    the post, two statuses seen later), appended the way vidpub appends them
//    (src/journal/jsonl-store.ts, bundled here with esbuild), into a journal already
//    holding the 100,000 records. Goal: < 2 ms per post (median of batches).
//
// Env: VIDPUB_BENCH_RUNS (default 30). Exit code 1 if a goal is missed.
// Everything lives in a temp dir, deleted at the end.
import { envNote } from './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeJournalSegments } from './journal-segments.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const RUNS = Number(process.env.VIDPUB_BENCH_RUNS ?? 30);
const WARMUP = 3;
const RECORDS = 100_000;

if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('the build failed');
}

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-journal-'));
const stateDir = join(dir, 'state');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A journal as vidpub writes it: records in time order, cut into 4 MiB segments (./journal-segments.mjs). */
function writeJournal() {
  return writeJournalSegments(stateDir, journalRecords());
}

function* journalRecords() {
  const start = Date.UTC(2026, 0, 1);
  let post = 0;
  for (let i = 0; i < RECORDS; i++) {
    const at = new Date(start + i * 60_000).toISOString();
    let rec;
    if (i % 5 === 2 || i % 5 === 4) {
      const id = `post_${String(Math.max(0, post - 1)).padStart(16, '0')}`;
      rec = { v: 1, kind: 'status', at, profile: 'default', post_id: id, status: 'completed', publish_at: at, destinations: [{ id: 'dst_demo_tiktok', status: 'published', url: `https://example.com/p/${id}` }, { id: 'dst_demo_youtube', status: i % 10 === 4 ? 'failed' : 'published', failure: i % 10 === 4 ? 'refused' : undefined }], outcome: 'published' };
    } else {
      const id = `post_${String(post++).padStart(16, '0')}`;
      rec = {
        v: 1, kind: 'post', at, profile: i % 3 ? 'default' : 'work', base_url: 'https://api.videopublishing.example/v1', key: '114f83360b56', workspace_id: 'ws_demo', workspace: 'Demo',
        post_id: id, media_id: `med_${i}`, file: `/home/me/videos/nightly-${i}.mp4`, size: 48_000_000 + i, caption: `Nightly build ${i}: ${'what changed today, in a few words. '.repeat(4)}`.slice(0, 200),
        destinations: [
          { id: 'dst_demo_tiktok', name: '@vidpub.demo (tiktok)', options: { privacy: 'PUBLIC_TO_EVERYONE', allow_comments: true, allow_duet: false, allow_stitch: false }, status: 'publishing' },
          { id: 'dst_demo_youtube', name: '@vidpubdemo (youtube)', options: { visibility: 'public', category: 'People & Blogs', notify_subscribers: true }, status: 'publishing' },
        ],
        publish_at: at, draft: false, idem: `nightly-${i}`, outcome: 'created', status: 'publishing',
      };
    }
    yield rec;
  }
}

const env = { ...process.env, VIDPUB_STATE_DIR: stateDir, VIDPUB_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
for (const k of ['VIDPUB_API_KEY', 'VIDPUB_BASE_URL', 'VIDPUB_PROFILE', 'VIDPUB_WORKSPACE', 'VIDPUB_NO_JOURNAL']) delete env[k];

function run(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 24 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: String(r.stdout) };
}

let failed = false;
try {
  const segments = writeJournal();
  const cpuModel = (cpus()[0]?.model ?? 'unknown CPU').trim();
  console.log(`Journal: ${RECORDS.toLocaleString('en-US')} records in ${segments} segments + the active file · ${RUNS} runs per case (after ${WARMUP} warm-up), medians · node ${process.version} · ${cpus().length} CPUs (${cpuModel})`);
  console.log(envNote());

  const lines = run([BIN, 'history']).stdout.trim().split('\n');
  if (lines.length !== 20) throw new Error(`vidpub history printed ${lines.length} lines, not 20`);
  const cases = [
    { name: 'vidpub --version', args: [BIN, '--version'] },
    { name: 'vidpub history', args: [BIN, 'history'], goal: 3 },
    { name: 'history --status failed --limit 100', args: [BIN, 'history', '--status', 'failed', '--limit', '100'] },
    { name: 'history --all-profiles --json --limit 1000', args: [BIN, 'history', '--all-profiles', '--json', '--limit', '1000'] },
  ];
  for (const c of cases) c.wall = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const c of cases) {
      const { ms } = run(c.args);
      if (i >= WARMUP) c.wall.push(ms);
    }
  }
  const base = median(cases[0].wall);
  console.log(`${'case'.padEnd(42)} ${'wall ms'.padStart(8)} ${'ratio'.padStart(6)}  goal`);
  for (const c of cases) {
    const w = median(c.wall);
    const ratio = w / base;
    const verdict = c.goal === undefined ? '' : `<= ${c.goal.toFixed(2)}x ${ratio <= c.goal ? 'ok' : 'MISSED'}`;
    if (c.goal !== undefined && ratio > c.goal) failed = true;
    console.log(`${c.name.padEnd(42)} ${w.toFixed(1).padStart(8)} ${(ratio.toFixed(2) + 'x').padStart(6)}  ${verdict}`);
  }

  // 2. Append cost per post, with the store vidpub uses.
  const bundle = join(dir, 'store.mjs');
  await build({ entryPoints: [join(ROOT, 'src', 'journal', 'jsonl-store.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
  const { JournalStore } = await import(pathToFileURL(bundle).href);
  const store = new JournalStore(stateDir);
  const at = new Date().toISOString();
  const ctx = { profile: 'default', base_url: 'https://api.videopublishing.example/v1', key: '114f83360b56' };
  const onePost = (i) => {
    store.append({ v: 1, kind: 'media', at, ...ctx, media_id: `med_b${i}`, source: 'upload', file: `/home/me/videos/clip-${i}.mp4`, size: 48_000_000, status: 'ready', idem: `k-${i}`, outcome: 'ready' });
    store.append({
      v: 1, kind: 'post', at, ...ctx, workspace_id: 'ws_demo', workspace: 'Demo', post_id: `post_b${i}`, media_id: `med_b${i}`, caption: 'c'.repeat(200),
      destinations: [{ id: 'dst_demo_tiktok', name: '@vidpub.demo (tiktok)', options: { privacy: 'PUBLIC_TO_EVERYONE' }, status: 'publishing' }],
      publish_at: at, draft: false, idem: `k-${i}`, outcome: 'created', status: 'publishing',
    });
    for (let s = 0; s < 2; s++) store.append({ v: 1, kind: 'status', at, profile: 'default', post_id: `post_b${i}`, status: 'completed', publish_at: at, destinations: [{ id: 'dst_demo_tiktok', status: 'published' }], outcome: 'published' });
  };
  const BATCH = 100;
  const perPost = [];
  for (let b = 0; b < 20; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < BATCH; i++) onePost(b * BATCH + i);
    perPost.push(Number(process.hrtime.bigint() - t0) / 1e6 / BATCH);
  }
  const cost = median(perPost);
  const ok = cost < 2;
  if (!ok) failed = true;
  console.log(`journal append per post (4 records: video, post, 2 statuses): ${cost.toFixed(3)} ms median of 20 batches of ${BATCH}  < 2 ms ${ok ? 'ok' : 'MISSED'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

// The content fingerprint and uploads by content (npm run bench -- same-video).
//
// (a) The PUT with the fingerprint taken (SHA-256 of the chunks read for the
//     socket, on a thread of its own: util/running-fingerprint.ts) against the same PUT without it, in the same
//     run: `vidpub upload BIG --no-wait --debug` with a journal (the
//     fingerprint is taken) and with --no-journal (nowhere to keep one, so none
//     is taken), interleaved, the order turned each round. The PUT's own time
//     (the --debug line) and the client's peak RSS (GNU time's %M). Goals: the
//     median of the rounds' ratios (without / with) >= 0.95, the peak RSS at
//     most 8 MB more.
// (b) A reused video's post: a copy of BIG (another name, so its whole
//     content is hashed to confirm the candidate) posted with --no-wait after
//     BIG was uploaded, to a destination it was not posted to (each round on
//     a copy of the journal as the upload left it): the duplicate guard and
//     the reuse both look, as a real post does. The client's wall time until
//     the post is created (publishing has started). Goal: under 1 s.
//
// BIG is 1 GB (VIDPUB_BENCH_SIZE to change it), sparse (an ftyp box, then
// zeros): the page cache serves it, so the figures are the client's, not the
// disk's. VIDPUB_BENCH_RUNS rounds (default 5).
import { envNote } from './node-env.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const SIZE = Number(process.env.VIDPUB_BENCH_SIZE ?? 1_000_000_000);
const RUNS = Number(process.env.VIDPUB_BENCH_RUNS ?? 5);
const GNU_TIME = ['/usr/bin/time', '/bin/time'].find((p) => spawnSync(p, ['-f', '%M', 'true'], { stdio: 'ignore' }).status === 0);
const mark = (ok) => (ok ? 'met' : 'missed');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-same-'));
function videoFile(name) {
  const p = join(dir, name);
  const fd = openSync(p, 'w');
  const ftyp = Buffer.from('000000186674797069736f6d0000020069736f6d6d703431', 'hex');
  writeSync(fd, ftyp, 0, ftyp.length, 0);
  ftruncateSync(fd, SIZE);
  closeSync(fd);
  spawnSync('cat', [p], { stdio: 'ignore' });
  return p;
}

function run(args, env) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const cmd = GNU_TIME ? [GNU_TIME, ['-f', 'VIDPUB_BENCH_MAXRSS_KB=%M VIDPUB_BENCH_CPU_S=%U+%S', process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
    const child = spawn(cmd[0], cmd[1], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => {
      // The client's CPU time (user + system), when GNU time says it.
      const cpu = /VIDPUB_BENCH_CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr);
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined, code, stdout, stderr });
    });
  });
}

const { child, info } = await startEmulator(BIN, { args: ['--processing-ms', '0', '--publish-ms', '0'] });
try {
  console.log(envNote(3));
  const base = { VIDPUB_BASE_URL: info.base_url, VIDPUB_API_KEY: info.keys[0].key, VIDPUB_NO_INPUT: '1', VIDPUB_CONFIG_DIR: join(dir, 'config') };
  const reset = () =>
    new Promise((resolve, reject) => {
      const req = http.request(new URL(`${info.admin_url}/reset`), { method: 'POST' }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`emulator reset: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
  const big = videoFile('big.mp4');
  const upload = async (journal, round) => {
    await reset();
    const env = { ...base, VIDPUB_STATE_DIR: join(dir, `state-${round}-${journal}`) };
    const r = await run(['upload', big, '--no-wait', '--debug', ...(journal ? [] : ['--no-journal'])], env);
    if (r.code !== 0) throw new Error(`upload exited ${r.code}: ${r.stderr}`);
    const putMs = Number(/← 200 PUT \S+ \((\d+) ms\)/.exec(r.stderr)?.[1]);
    return { putMs, rssKb: Number(/VIDPUB_BENCH_MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1]) };
  };
  const ratios = [];
  const rss = { with: [], without: [] };
  const puts = { with: [], without: [] };
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 ? [true, false] : [false, true];
    const got = {};
    for (const journal of order) got[journal] = await upload(journal, i);
    puts.with.push(got.true.putMs);
    puts.without.push(got.false.putMs);
    rss.with.push(got.true.rssKb);
    rss.without.push(got.false.rssKb);
    ratios.push(got.false.putMs / got.true.putMs);
  }
  const size = `${(SIZE / 1e9).toFixed(SIZE >= 1e9 ? 0 : 2)} GB`;
  const ratio = median(ratios);
  console.log(`PUT of ${size}: without the fingerprint ${median(puts.without)} ms, with it ${median(puts.with)} ms (medians of ${RUNS}); ratio ${ratio.toFixed(3)} (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')}), goal >= 0.95: ${mark(ratio >= 0.95)}`);
  if (GNU_TIME) {
    const grow = (median(rss.with) - median(rss.without)) / 1024;
    console.log(`peak RSS: without ${(median(rss.without) / 1024).toFixed(1)} MB, with ${(median(rss.with) / 1024).toFixed(1)} MB: +${grow.toFixed(1)} MB, goal <= 8 MB: ${mark(grow <= 8)}`);
  }

  // (b) One machine: BIG uploaded (and its fingerprint kept), then a copy posted.
  await reset();
  const env = { ...base, VIDPUB_STATE_DIR: join(dir, 'state-reuse') };
  const first = await run(['upload', big, '--quiet'], env);
  if (first.code !== 0) throw new Error(`upload exited ${first.code}: ${first.stderr}`);
  const copy = join(dir, 'copy.mp4');
  copyFileSync(big, copy);
  spawnSync('cat', [copy], { stdio: 'ignore' });
  const posts = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    // The journal as the upload left it: no post of BIG yet, so the guard reads it and lets the post go.
    const state = join(dir, `state-reuse-${i}`);
    mkdirSync(state, { mode: 0o700 });
    copyFileSync(join(env.VIDPUB_STATE_DIR, 'journal.jsonl'), join(state, 'journal.jsonl'));
    const r = await run(['post', copy, '--to', 'linkedin', '--caption', `reuse ${i}`, '--no-wait'], { ...env, VIDPUB_STATE_DIR: state });
    if (r.code !== 0 || !/nothing to upload/.test(r.stderr)) throw new Error(`post exited ${r.code} without reusing: ${r.stderr}`);
    posts.push(r.ms);
    if (r.cpuMs !== undefined) cpu.push(r.cpuMs);
  }
  const ms = median(posts);
  const cpuNote = cpu.length ? `; the client's CPU ${Math.round(median(cpu))} ms` : '';
  console.log(`a reused ${size} video's post (a copy: hashed whole to confirm), until the post is created: ${Math.round(ms)} ms wall (median of ${RUNS})${cpuNote}, goal < 1000 ms: ${mark(ms < 1000)}`);
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}

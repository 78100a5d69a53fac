// Batch posting (npm run bench -- batch): `vidpub batch` posting 7 videos to
// 3 destinations each on a Standard key (20 writes a minute) against the
// emulator (--processing-ms 3000 --publish-ms 2000), against the shortest
// time the service allows: 21 writes (upload, complete, post per video) do
// not fit in one minute's 20, so the last post cannot be created before the
// window turns, and then takes 3 x 2 s to publish (the emulator publishes a
// post's destinations one after another); no video is ready before 3 s of
// processing. The run starts with START_LEFT_SEC seconds left in the
// emulator's minute window (its clock is moved to there), so the bound is
// known and the bench takes ~25 s. Goal: ratio <= 1.2. Requests per item are
// printed from the emulator's own log (goal: reads <= 6 per item).
//
// Then a real batch of 100,000 items (VIDPUB_BENCH_BATCH_ITEMS: another count, or
// several, comma-separated, e.g. 10000,30000, each run in turn): each its own
// upload of the 13.7 KB clip, completed, and posted now to one destination
// (--no-wait, --concurrency 16), against an emulator whose Demo account has
// allowances no plan has (a fixture's limits: a plan's 20 or 30 writes a
// minute and 30 or 100 posts a day would stretch it over years of waiting)
// and whose processing and publishing take no time. Its peak RSS (the
// whole process, /usr/bin/time -v or its own getrusage) against the goal,
// <= 256 MB, and against floors measured in the same run: `node -e 0`, the
// same manifest's --dry-run (the check and the plan alone), and a real run of
// 1,000 items; and its wall time. Below 100,000 items, the goal is judged at the
// largest count run, and the peak at 100,000 projected in a straight line from
// the two largest counts (from 1,000 items and the largest, with one count), so
// that several counts show whether memory grows with the items.
/* global fetch */
import './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const CLIP = fileURLToPath(new URL('../test/fixtures/clip.mp4', import.meta.url));
const ITEMS = 7;
const DESTINATIONS = 3;
const PROCESSING_MS = 3000;
const PUBLISH_MS = 2000;
const START_LEFT_SEC = 15;
const RATIO_GOAL = 1.2;
const READS_GOAL = 6;

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-batch-'));
const configDir = join(dir, 'config');

const lines = ['defaults:', '  to: ["@vidpub.demo", youtube, linkedin]', '  options:', '    "@vidpub.demo": { privacy: SELF_ONLY }', 'items:'];
for (let i = 1; i <= ITEMS; i++) {
  copyFileSync(CLIP, join(dir, `day${i}.mp4`));
  lines.push(`  - file: day${i}.mp4`, `    caption: "Day ${i}"`);
}
writeFileSync(join(dir, 'week.yaml'), lines.join('\n') + '\n');

const { child: emulator, info } = await startEmulator(BIN, {
  env: { ...process.env, VIDPUB_CONFIG_DIR: configDir },
  args: ['--processing-ms', String(PROCESSING_MS), '--publish-ms', String(PUBLISH_MS)],
});
const admin = async (method, path, body) => {
  const res = await fetch(`${info.admin_url}${path}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  return res.json();
};
const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
const env = { ...process.env, VIDPUB_BASE_URL: info.base_url, VIDPUB_API_KEY: key, VIDPUB_CONFIG_DIR: configDir, VIDPUB_NO_INPUT: '1' };

function run(args) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
  });
}

try {
  // Place the run START_LEFT_SEC seconds before the emulator's minute window turns.
  const now = Date.parse((await admin('GET', '/clock')).now);
  const intoMinute = (now % 60_000) / 1000;
  await admin('POST', '/clock', { advance_sec: (60 - intoMinute - START_LEFT_SEC + 60) % 60 });
  await admin('DELETE', '/requests').catch(() => undefined);
  const me = await (await fetch(`${info.base_url}/me`, { headers: { authorization: `Bearer ${key}` } })).json();
  const emuNow = Date.parse((await admin('GET', '/clock')).now);
  const w = me.limits.requests_per_minute.write;
  const resetInMs = Date.parse(w.reset_at) - emuNow;
  const writesNeeded = ITEMS * 3;

  // The shortest time the allowance and the service's processing allow.
  // The emulator publishes a post's destinations one after another, PUBLISH_MS each.
  const publishAll = PUBLISH_MS * DESTINATIONS;
  const processingBound = PROCESSING_MS + publishAll;
  let allowanceBound = 0;
  if (writesNeeded > w.remaining) {
    const windows = Math.ceil((writesNeeded - w.remaining) / w.limit);
    allowanceBound = resetInMs + (windows - 1) * 60_000 + publishAll;
  }
  const bound = Math.max(processingBound, allowanceBound);

  const before = (await admin('GET', '/requests')).length;
  const r = await run(['batch', 'week.yaml', '--yes', '--json']);
  if (r.code !== 0) {
    console.error(r.stderr);
    throw new Error(`vidpub batch exited ${r.code}`);
  }
  const reqs = (await admin('GET', '/requests')).slice(before).filter((q) => q.path.startsWith('/v1/'));
  const reads = reqs.filter((q) => q.method === 'GET').length;
  const writes = reqs.filter((q) => q.method !== 'GET').length;
  const limited = reqs.filter((q) => q.status === 429).length;
  const doc = JSON.parse(r.stdout);
  const published = doc.items.filter((i) => i.status === 'published').length;

  const ratio = r.ms / bound;
  console.log(`${ITEMS} videos x 3 destinations, Standard key (${w.limit} writes/min, ${w.remaining} left, window turns in ${(resetInMs / 1000).toFixed(1)} s)`);
  console.log(`  shortest possible: ${(bound / 1000).toFixed(1)} s (processing+publishing ${(processingBound / 1000).toFixed(1)} s; ${writesNeeded} writes -> ${(allowanceBound / 1000).toFixed(1)} s)`);
  console.log(`  vidpub batch:      ${(r.ms / 1000).toFixed(1)} s, ${published}/${ITEMS} published, ${limited} responses 429`);
  console.log(`  ratio:             ${ratio.toFixed(2)}x (goal <= ${RATIO_GOAL}) ${ratio <= RATIO_GOAL ? 'OK' : 'MISSED'}`);
  console.log(`  requests per item: ${(reads / ITEMS).toFixed(1)} reads (goal <= ${READS_GOAL}) ${reads / ITEMS <= READS_GOAL ? 'OK' : 'MISSED'}, ${(writes / ITEMS).toFixed(1)} writes`);
  if (published !== ITEMS || limited > 0) process.exitCode = 1;
} finally {
  emulator.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------- 100,000 items, bounded memory
const GOAL_ITEMS = 100_000;
const COUNTS = String(process.env.VIDPUB_BENCH_BATCH_ITEMS ?? GOAL_ITEMS).split(',').map(Number).sort((a, b) => a - b);
if (COUNTS.some((c) => !Number.isInteger(c) || c < 1)) throw new Error(`VIDPUB_BENCH_BATCH_ITEMS: give item counts, e.g. 10000,30000 (not ${process.env.VIDPUB_BENCH_BATCH_ITEMS})`);
const MANY = COUNTS[COUNTS.length - 1];
const FEW = 1_000;
const RSS_GOAL_MB = 256;
const TIME = '/usr/bin/time';
const hasTime = existsSync(TIME) && spawnSync(TIME, ['-v', 'true']).status === 0;
const many = mkdtempSync(join(tmpdir(), 'vidpub-bench-batch-many-'));
const { defaultFixture } = createRequire(join(ROOT, 'package.json'))(join(ROOT, 'dist', 'emulator.js'));
const fixture = defaultFixture();
fixture.accounts.find((a) => a.id === 'acct_demo').limits = { requests_per_minute: { read: 100_000_000, write: 100_000_000 }, api_posts_per_day: { limit: 10_000_000 } };
writeFileSync(join(many, 'fixture.json'), JSON.stringify(fixture));
copyFileSync(CLIP, join(many, 'a.mp4'));
const jsonl = (name, n) => {
  const rows = [];
  for (let i = 1; i <= n; i++) rows.push(JSON.stringify({ file: 'a.mp4', to: 'linkedin', caption: `Item ${i} of ${n}` }));
  writeFileSync(join(many, name), rows.join('\n') + '\n');
  return name;
};

/** One process: exit code, wall time (ms), peak RSS (MB) of the whole process, stdout's line count. */
function measure(args, envOf) {
  return new Promise((resolve) => {
    const rusage = join(many, 'rusage.json');
    const hook = join(many, 'rusage-hook.cjs');
    writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(rusage)}, JSON.stringify(process.resourceUsage())))`);
    const [cmd, argv] = hasTime ? [TIME, ['-v', process.execPath, ...args]] : [process.execPath, ['--require', hook, ...args]];
    const started = process.hrtime.bigint();
    const child = spawn(cmd, argv, { cwd: many, env: envOf, stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let stderr = '';
    child.stdout.on('data', (c) => {
      for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
    });
    // The tail only: a run's stderr has a line or two per item.
    child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-20_000)));
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const kb = hasTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]) : JSON.parse(readFileSync(rusage, 'utf8')).maxRSS;
      const status = hasTime ? Number(/Exit status: (\d+)/.exec(stderr)?.[1] ?? code) : code;
      resolve({ code: status, ms, mb: kb / 1024, lines, stderr });
    });
  });
}

const big = await startEmulator(BIN, {
  env: { ...process.env, VIDPUB_CONFIG_DIR: join(many, 'emu') },
  args: ['--fixture', join(many, 'fixture.json'), '--processing-ms', '0', '--publish-ms', '0'],
});
try {
  const bigKey = big.info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
  const bigEnv = { ...process.env, VIDPUB_BASE_URL: big.info.base_url, VIDPUB_API_KEY: bigKey, VIDPUB_CONFIG_DIR: join(many, 'config'), VIDPUB_STATE_DIR: join(many, 'state'), VIDPUB_NO_INPUT: '1', NO_COLOR: '1', TZ: 'UTC' };
  const real = async (name, n) => {
    const r = await measure([BIN, 'batch', name, '--yes', '--no-wait', '--concurrency', '16'], bigEnv);
    if (r.code !== 0 || r.lines !== n) throw new Error(`vidpub batch ${name} exited ${r.code} with ${r.lines} lines of ${n}\n${r.stderr.slice(-2000)}`);
    return r;
  };
  const nodeZero = await measure(['-e', '0'], bigEnv);
  const count = (c) => c.toLocaleString('en-US');
  const n = count(MANY);
  const manyName = jsonl('many.jsonl', MANY);
  const dry = await measure([BIN, 'batch', manyName, '--dry-run'], bigEnv);
  if (dry.code !== 0) throw new Error(`vidpub batch --dry-run exited ${dry.code}\n${dry.stderr.slice(-2000)}`);
  const few = await real(jsonl('few.jsonl', FEW), FEW);
  const runs = [];
  for (const c of COUNTS) runs.push({ c, r: c === MANY ? await real(manyName, c) : await real(jsonl(`items-${c}.jsonl`, c), c) });
  const run = runs[runs.length - 1].r;
  const show = (label, r) => console.log(`  ${label.padEnd(36)} ${r.mb.toFixed(0).padStart(5)} MB peak RSS ${(r.ms / 1000).toFixed(1).padStart(7)} s`);
  console.log(`\nbatch, a real run of ${COUNTS.map(count).join(', ')} items (upload, complete, post now; --no-wait, --concurrency 16), peak RSS (${hasTime ? '/usr/bin/time -v' : "the process's own getrusage"})`);
  show('node -e 0', nodeZero);
  show(`--dry-run of the ${n} items`, dry);
  show(`a real run of ${count(FEW)} items`, few);
  for (const { c, r } of runs) show(`a real run of ${count(c)} items`, r);
  console.log(`  ${n} items: ${run.mb.toFixed(0)} MB, ${(run.mb / nodeZero.mb).toFixed(1)}x node -e 0, +${(run.mb - dry.mb).toFixed(0)} MB over its --dry-run, +${(run.mb - few.mb).toFixed(0)} MB over ${count(FEW)} items; ${(run.ms / MANY).toFixed(1)} ms an item`);
  if (MANY < GOAL_ITEMS) {
    // A straight line through the two largest counts (or 1,000 items and the one count).
    const [lo, hi] = runs.length > 1 ? [runs[runs.length - 2], runs[runs.length - 1]] : [{ c: FEW, r: few }, runs[0]];
    const perThousand = hi.c > lo.c ? ((hi.r.mb - lo.r.mb) / (hi.c - lo.c)) * 1000 : 0;
    const projected = hi.r.mb + (perThousand * (GOAL_ITEMS - hi.c)) / 1000;
    console.log(`  growth: ${perThousand.toFixed(2)} MB per 1,000 items (${count(lo.c)} to ${count(hi.c)}); at ${count(GOAL_ITEMS)} items, projected ${projected.toFixed(0)} MB (not measured)`);
  }
  console.log(`  goal <= ${RSS_GOAL_MB} MB${MANY < GOAL_ITEMS ? ` (measured at ${n} items, not ${count(GOAL_ITEMS)})` : ''}: ${run.mb <= RSS_GOAL_MB ? 'met' : 'missed'}`);
  if (run.mb > RSS_GOAL_MB) process.exitCode = 1;
} finally {
  big.child.kill('SIGTERM');
  rmSync(many, { recursive: true, force: true });
}

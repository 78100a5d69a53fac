// Shards (npm run bench -- shards), issue 48.
//
// 1. A manifest of 1,200 items (posted now to one destination, from a video the service has)
//    run as 4 shards (--shard I/4) in 4 processes at once against one emulator, each process
//    with its own HOME and state directory (four machines), on one key whose allowances no plan
//    has (a fixture's limits: a plan's 20 or 30 writes a minute would stretch it over an hour), each
//    post answered 150 ms late (a fault) so that a shard's items end over a second or so.
//    Shards 1 and 2 are killed (SIGKILL) at a random point, chosen by an event: once the run has
//    said on stderr that k items ended, k random in [10, 250] (a shard has ~300); their reports
//    then hold what was written last. Then shards 1 and 2
//    run again on fresh machines (new HOME and state: no journal of the first run). Goals, from
//    the emulator's own request log and the four last reports: every item posted exactly once
//    (0 duplicates, 0 lost), the reports disjoint and together the manifest, every item posted
//    before a kill reported `replayed` by the rerun.
// 2. The cost of the split: the shard of each of 100,000 items (its identity hashed, then its
//    shard), the very code of src/batch/shard.ts (bundled here with esbuild), against a whole
//    `vidpub batch --dry-run` of the same 100,000-item manifest (parse, check, plan), in CPU time
//    (the split's in this process, the dry-run's in its own). Goal: <= 5 %.
/* global fetch */
import './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { startEmulator } from './emulator.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const ITEMS = Number(process.env.VIDPUB_BENCH_SHARD_ITEMS ?? 1200);
const SPLIT_ITEMS = 100_000;
const work = mkdtempSync(join(tmpdir(), 'vidpub-bench-shards-'));

// The split's own code, and the manifest reader, as this checkout has them.
const bundle = join(work, 'shard.mjs');
writeFileSync(join(work, 'entry.ts'), `export { identities, itemIdentity, manifestIdentity, shardOf } from ${JSON.stringify(join(ROOT, 'src/batch/shard.ts'))};\nexport { parseManifest } from ${JSON.stringify(join(ROOT, 'src/batch/manifest.ts'))};\nexport { parseReport } from ${JSON.stringify(join(ROOT, 'src/batch/report/format.ts'))};\nexport { defaultFixture } from ${JSON.stringify(join(ROOT, 'src/emulator/default-fixture.ts'))};\n`);
await build({ entryPoints: [join(work, 'entry.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'error', packages: 'external', absWorkingDir: ROOT });
const { identities, itemIdentity, manifestIdentity, shardOf, parseManifest, parseReport, defaultFixture } = await import(pathToFileURL(bundle).href);

const fx = defaultFixture();
fx.accounts.find((a) => a.id === 'acct_demo').limits = { requests_per_minute: { read: 100_000_000, write: 100_000_000 }, api_posts_per_day: { limit: 10_000_000 } };
writeFileSync(join(work, 'fixture.json'), JSON.stringify(fx));

const manifestOf = (name, n, tag) => {
  const rows = [];
  for (let i = 1; i <= n; i++) rows.push(JSON.stringify({ media: 'med_demo_sample', to: 'linkedin', caption: `${tag} ${i} of ${n}` }));
  writeFileSync(join(work, name), rows.join('\n') + '\n');
  return join(work, name);
};

const emu = await startEmulator(BIN, {
  env: { ...process.env, VIDPUB_CONFIG_DIR: join(work, 'emu') },
  // Posts stay publishing for the run: the emulator keeps the latest 1,000 finished posts of a workspace
  // (docs/emulator.md), and a rerun reads each replayed post again.
  args: ['--fixture', join(work, 'fixture.json'), '--processing-ms', '0', '--publish-ms', '3600000'],
});
// Each post answered 150 ms late: a shard's items end in waves (64 under way at once) over a second
// or so instead of all at once, so that a kill chosen by the report's count lands mid-run.
await fetch(emu.info.admin_url + '/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 150, times: 1_000_000 }) });
const key = emu.info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
let machines = 0;
function machine() {
  const home = join(work, `machine-${++machines}`);
  return { HOME: home, VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_STATE_DIR: join(home, 'state'), VIDPUB_CACHE_DIR: join(home, 'cache') };
}
const env = (extra) => ({ ...process.env, VIDPUB_BASE_URL: emu.info.base_url, VIDPUB_API_KEY: key, VIDPUB_NO_INPUT: '1', NO_COLOR: '1', TZ: 'UTC', ...machine(), ...extra });

/** One process: resolves with its exit code or signal, wall ms and CPU ms (the child's own, from /proc at its end when it is killed: not counted). */
function run(args, extra = {}, killWhen) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: env(extra), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
    // The kill: as soon as the run has said (on stderr, as it happens) that k items ended.
    let said = 0;
    if (killWhen) {
      child.stderr.on('data', (c) => {
        said += String(c).match(/^item \d+: (publishing|published|scheduled|draft|failed|blocked)/gm)?.length ?? 0;
        if (child.exitCode === null && killWhen(said)) child.kill('SIGKILL');
      });
    }
    child.on('exit', (code, signal) => {
      resolve({ code, signal, ms: Number(process.hrtime.bigint() - started) / 1e6, stderr });
    });
  });
}

const reportOf = (path) => {
  try {
    return parseReport(readFileSync(path, 'utf8'), path);
  } catch {
    return undefined; // not written yet
  }
};
const ended = (r) => r?.items.filter((it) => it.result !== 'pending').length ?? 0;

let failed = false;
const check = (ok, what) => {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failed = true;
};

try {
  // 1. Four machines, two killed and run again elsewhere.
  const file = manifestOf('shards.jsonl', ITEMS, 'Sharded');
  const args = (i, report) => ['batch', file, '--yes', '--no-wait', '--concurrency', '8', '--shard', `${i}/4`, '--report', report];
  const killAt = [1, 2].map(() => 10 + Math.floor(Math.random() * 241));
  const first = [1, 2, 3, 4].map((i) => join(work, `first-${i}.json`));
  const t0 = Date.now();
  const firstRuns = await Promise.all(first.map((r, i) => run(args(i + 1, r), {}, i < 2 ? (said) => said >= killAt[i] : undefined)));
  const firstWall = Date.now() - t0;
  const before = first.map(reportOf);
  const again = [1, 2].map((i) => join(work, `again-${i}.json`));
  const t1 = Date.now();
  const againRuns = await Promise.all(again.map((r, i) => run(args(i + 1, r))));
  const againWall = Date.now() - t1;

  const log = await (await fetch(emu.info.admin_url + '/requests')).json();
  const posts = log.filter((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201);
  const made = posts.filter((q) => !q.replayed);
  const finals = [reportOf(again[0]), reportOf(again[1]), before[2], before[3]];
  const items = finals.flatMap((r) => r?.items ?? []);
  const { ids } = identities(await parseManifest(readFileSync(file, 'utf8'), 'jsonl'));
  const postedBeforeKill = new Set(before.slice(0, 2).flatMap((r) => r?.items.filter((it) => it.result === 'posted').map((it) => it.id) ?? []));
  const counts = {};
  for (const it of items) counts[it.result] = (counts[it.result] ?? 0) + 1;

  console.log(`\nshards: ${ITEMS.toLocaleString('en-US')} items as 4 shards, 4 processes at once (own HOME and state each); shards 1 and 2 SIGKILLed once they had said ${killAt.join(' and ')} items ended, then run again on fresh machines`);
  console.log(`  first run   ${(firstWall / 1000).toFixed(1)} s wall; exits ${firstRuns.map((r) => r.signal ?? r.code).join(', ')}; the killed reports held ${before.slice(0, 2).map((r) => `${ended(r)} ended (${r?.items.filter((it) => it.result === 'posted').length ?? 0} posted) of ${r?.items.length}`).join(' and ')}`);
  console.log(`  rerun       ${(againWall / 1000).toFixed(1)} s wall; exits ${againRuns.map((r) => r.signal ?? r.code).join(', ')}`);
  console.log(`  emulator    POST /v1/posts answered 201: ${made.length} made, ${posts.length - made.length} replayed (a request cut off by a kill is logged without its answer); merged reports ${JSON.stringify(counts)}`);
  check(firstRuns.slice(0, 2).every((r) => r.signal === 'SIGKILL'), 'shards 1 and 2 were killed mid-run (SIGKILL)');
  check(firstRuns.slice(2).every((r) => r.code === 0) && againRuns.every((r) => r.code === 0), 'every other run ended 0');
  // The emulator's state: its posts (a request cut off by a kill may be logged without its answer, made all the same).
  const state = await (await fetch(emu.info.admin_url + '/state')).json();
  const inWorkspace = state.workspaces.find((w) => w.name === 'Demo').posts.total;
  const postIds = new Set(items.map((it) => it.post_id).filter(Boolean));
  const sentKeys = new Set(log.filter((q) => q.method === 'POST' && q.path === '/v1/posts').map((q) => q.idempotency_key));
  check(inWorkspace === ITEMS && postIds.size === ITEMS && sentKeys.size === ITEMS, `every item posted exactly once: ${inWorkspace} posts in the workspace, ${postIds.size} distinct post ids in the reports, ${sentKeys.size} Idempotency-Keys sent; ${Math.max(0, inWorkspace - ITEMS)} duplicates, ${Math.max(0, ITEMS - postIds.size)} lost`);
  check(items.length === ITEMS && new Set(items.map((it) => it.id)).size === ITEMS && ids.every((id) => items.some((it) => it.id === id)), 'the four reports disjoint, together the manifest');
  check((counts.posted ?? 0) + (counts.replayed ?? 0) === ITEMS, `the merged reports: ${(counts.posted ?? 0) + (counts.replayed ?? 0)} posted (${counts.replayed ?? 0} of them replayed)`);
  check([...postedBeforeKill].every((id) => items.find((it) => it.id === id)?.result === 'replayed'), `the ${postedBeforeKill.size} items the killed reports had as posted: replayed by the rerun`);

  // 2. The split of 100,000 items against a --dry-run of them all.
  const big = manifestOf('split.jsonl', SPLIT_ITEMS, 'Split');
  const text = readFileSync(big, 'utf8');
  const manifest = await parseManifest(text, 'jsonl');
  // CPU time, of this process for the split and of the dry-run's process (its own getrusage at exit):
  // on a machine other work shares, wall times swing with its load; CPU times much less.
  const cpuMs = (u) => (u.user + u.system) / 1000;
  const splits = [];
  for (let round = 0; round < 5; round++) {
    const u = process.cpuUsage();
    // What a runner of shard 1/4 does (src/batch/shard-run.ts): each item's identity and shard, its own items kept.
    const first = manifestIdentity(manifest.batchKey, itemIdentity(manifest.items[0], manifest.batchKey));
    const kept = manifest.items.filter((it) => shardOf(itemIdentity(it, manifest.batchKey), 4) === 1);
    if (!first || kept.length === 0) throw new Error('no split');
    splits.push(cpuMs(process.cpuUsage(u)));
  }
  splits.sort((a, b) => a - b);
  const split = splits[2];
  await fetch(emu.info.admin_url + '/faults', { method: 'DELETE' });
  const usage = join(work, 'rusage.json');
  const hook = join(work, 'rusage-hook.cjs');
  writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(usage)}, JSON.stringify(process.resourceUsage())))`);
  const dry = await run(['batch', big, '--dry-run'], { NODE_OPTIONS: `--require ${hook}` });
  if (dry.code !== 0) throw new Error(`vidpub batch --dry-run exited ${dry.code}\n${dry.stderr}`);
  const r = JSON.parse(readFileSync(usage, 'utf8'));
  const dryCpu = (r.userCPUTime + r.systemCPUTime) / 1000;
  const ratio = split / dryCpu;
  console.log(`\nshards: the split of ${SPLIT_ITEMS.toLocaleString('en-US')} items (identity + shard, median of 5): ${split.toFixed(0)} ms CPU; a --dry-run of the whole manifest: ${dryCpu.toFixed(0)} ms CPU (${dry.ms.toFixed(0)} ms wall)`);
  check(ratio <= 0.05, `ratio ${(ratio * 100).toFixed(2)} % (goal <= 5 %)`);
} finally {
  emu.child.kill();
}
if (existsSync(work)) console.log(`  (files in ${work})`);
process.exitCode = failed ? 1 : 0;

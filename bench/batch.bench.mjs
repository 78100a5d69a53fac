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
/* global fetch */
import './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

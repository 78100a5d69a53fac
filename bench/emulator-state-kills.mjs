// Run by hand (minutes of wall time, not in `npm run bench`):
//   node bench/emulator-state-kills.mjs
//
// `vidpub emulator --state DIR` killed with SIGKILL at random moments while
// `vidpub batch` posts 200 items (VIDPUB_KILLS times, default 50), started
// again on the same DIR and port at once each time, the batch run again after
// each kill until it ends with exit 0. Checks: the state loads every time, and
// the emulator ends with exactly one post of each item. The built bin is run
// (npm run build first).
//
// Env: VIDPUB_KILLS (default 50), VIDPUB_ITEMS (default 200), VIDPUB_BENCH_ROOT.
/* global fetch */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const KILLS = Number(process.env.VIDPUB_KILLS ?? 50);
const ITEMS = Number(process.env.VIDPUB_ITEMS ?? 200);
const BIN = join(ROOT, 'bin', 'vidpub.js');
const require = createRequire(join(ROOT, 'package.json'));
const { defaultFixture, DEFAULT_KEYS } = require(join(ROOT, 'dist', 'emulator.js'));

const dir = mkdtempSync(join(tmpdir(), 'vidpub-kills-'));
const fixture = defaultFixture();
fixture.accounts.find((a) => a.plan === 'studio').limits = { requests_per_minute: { read: 1e6, write: 1e6 }, api_posts_per_day: { limit: 1e6 } };
const studio = fixture.workspaces.find((w) => w.id === 'ws_studio');
const destination = studio.destinations.find((d) => d.status === 'active' && !d.options.some((o) => o.required && o.default === null)).id;
writeFileSync(join(dir, 'fixture.json'), JSON.stringify(fixture));
writeFileSync(join(dir, 'items.jsonl'), Array.from({ length: ITEMS }, (_, i) => JSON.stringify({ media: 'med_studio_sample', to: destination, caption: `item ${i + 1}` })).join('\n') + '\n');
const env = { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'journal'), VIDPUB_API_KEY: DEFAULT_KEYS.studio_rw, NO_COLOR: '1' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function startEmulator(port) {
  const args = [BIN, 'emulator', '--state', join(dir, 'state'), '--port', String(port), '--json', '--fixture', join(dir, 'fixture.json'), '--processing-ms', '100', '--publish-ms', '300'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve({ child, baseUrl: JSON.parse(out.split('\n')[0]).base_url });
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited ${code} before it listened (the state did not load?): ${err}`)));
  });
}

function runBatch(baseUrl) {
  const child = spawn(process.execPath, [BIN, 'batch', join(dir, 'items.jsonl'), '--yes', '--timeout', '60s'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...env, VIDPUB_BASE_URL: baseUrl } });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  return { child, ended: new Promise((resolve) => child.on('exit', (code) => resolve({ code, err }))) };
}

const killed = (child) => new Promise((resolve) => {
  child.once('exit', resolve);
  child.kill('SIGKILL');
});

let emu = await startEmulator(0);
const port = new URL(emu.baseUrl).port;
const started = Date.now();
const codes = {};
try {
  for (let k = 1; k <= KILLS; k++) {
    const batch = runBatch(emu.baseUrl);
    await sleep(200 + Math.random() * 2500);
    await killed(emu.child);
    const t = Date.now();
    emu = await startEmulator(port);
    const loadMs = Date.now() - t;
    const { code } = await batch.ended;
    codes[code] = (codes[code] ?? 0) + 1;
    console.log(`kill ${k}: restarted in ${loadMs} ms; the batch ended ${code}`);
  }
  let last;
  for (let i = 0; i < 5; i++) {
    last = await runBatch(emu.baseUrl).ended;
    if (last.code === 0) break;
  }
  if (last.code !== 0) throw new Error(`the batch did not end with 0 after the kills: ${last.code}\n${last.err}`);
  const admin = `${new URL(emu.baseUrl).origin}/_emulator`;
  const state = await (await fetch(`${admin}/state`)).json();
  const ids = state.workspaces.find((w) => w.id === 'ws_studio').post_ids;
  const captions = new Map();
  for (const id of ids) {
    const p = await (await fetch(`${emu.baseUrl}/posts/${id}`, { headers: { authorization: `Bearer ${DEFAULT_KEYS.studio_rw}` } })).json();
    if (p.status !== 'completed') throw new Error(`${id} is ${p.status}`);
    captions.set(p.caption, (captions.get(p.caption) ?? 0) + 1);
  }
  const twice = [...captions].filter(([, n]) => n !== 1);
  const missing = Array.from({ length: ITEMS }, (_, i) => `item ${i + 1}`).filter((c) => !captions.has(c));
  console.log(`${KILLS} kills in ${((Date.now() - started) / 1000).toFixed(0)} s; batch exits between kills: ${JSON.stringify(codes)}; ${ids.length} posts for ${ITEMS} items, ${twice.length} posted more than once, ${missing.length} missing`);
  process.exitCode = twice.length === 0 && missing.length === 0 && ids.length === ITEMS ? 0 : 1;
} finally {
  emu.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}

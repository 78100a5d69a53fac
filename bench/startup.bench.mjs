// Start-up time (npm run bench -- startup, or: node bench/startup.bench.mjs).
//
// Each case is a fresh `node` process. The goals are on CPU time (user +
// system, read by a tiny --require hook at exit), which a machine shared with
// other work disturbs much less than wall time (both are printed), and each is
// a ratio to the case's FLOOR, measured in the same run: the least any Node.js
// program doing the same thing costs.
//
// - `vidpub --version`, `vidpub --help`: the floor is `node -e 0` (they make no
//   request); goal <= 1.10x.
// - `vidpub me` (the human format) and `vidpub me --json`, against a running
//   emulator with the key in the stored profile: the floor is a few lines of
//   plain node:http making the same GET /me and printing the body; goal <= 1.15x.
// - `vidpub upload small.mp4 --no-wait` (the 13.7 KB clip): the floor is plain
//   node:http making upload's three calls (create, PUT the clip, complete);
//   goal <= 1.25x.
//
// The ratio is paired: the cases run interleaved, round by round (the order
// reversed every other round), each case next to its floor, and a goal's
// figure is the median of the per-round ratios case / floor, so that a busy
// moment slows both sides of a pair alike. Every case's ratio to `node -e 0`
// is printed too, as information. The emulator runs in a child process; its
// state is reset and its clock moved a minute ahead before each run that talks
// to it, so that the per-minute allowance never throttles a run and every run
// finds the same state.
//
// The V8 code cache (bin/compile-cache.js) lives in the temp dir's cache
// dir: written by the warm-up runs, used by the timed ones, as a user's
// second and later runs would.
//
// The processes run without NODE_EXTRA_CA_CERTS (bench/node-env.mjs).
//
// Env: VIDPUB_BENCH_RUNS (default 40), VIDPUB_BENCH_ROOT (a dir with
// bin/vidpub.js and dist/, default this checkout), VIDPUB_BENCH_ONLY (a
// substring: only the cases whose name has it, with their floors and
// `node -e 0`). Exit code 1 if a goal is missed. Everything lives in a temp
// dir, deleted at the end.
/* global fetch */
import { envNote } from './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const RUNS = Number(process.env.VIDPUB_BENCH_RUNS ?? 40);
const WARMUP = 3;

if (!existsSync(join(ROOT, 'dist', 'main.js'))) {
  console.log('dist/ is missing: building first (npm run build).');
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) throw new Error('the build failed');
}

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-startup-'));
const configDir = join(dir, 'config');
const cpuHook = join(dir, 'cpu-hook.cjs');
const cpuOut = join(dir, 'cpu.txt');
// Appends this process's CPU time (ms) to a file when it exits.
writeFileSync(
  cpuHook,
  `process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeFileSync(${JSON.stringify(cpuOut)}, String((u.user + u.system) / 1000)); });\n`,
);

// Only the config dir: no VIDPUB_API_KEY / VIDPUB_BASE_URL, the stored profile is used.
const env = { ...process.env, VIDPUB_CONFIG_DIR: configDir, XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' };
for (const k of ['VIDPUB_API_KEY', 'VIDPUB_BASE_URL', 'VIDPUB_PROFILE', 'VIDPUB_WORKSPACE', 'VIDPUB_DEBUG', 'VIDPUB_CACHE_DIR', 'VIDPUB_NO_COMPILE_CACHE']) delete env[k];
const CLIP = join(ROOT, 'test', 'fixtures', 'clip.mp4');

function run(args, { cpu = false, input } = {}) {
  const argv = cpu ? ['--require', cpuHook, ...args] : args;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, argv, { env, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 1 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, cpu: cpu ? Number(readFileSync(cpuOut, 'utf8')) : undefined, stdout: String(r.stdout) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const loadAtStart = loadavg()[0].toFixed(2);
const { child, info } = await startEmulator(BIN, { env });
let failed = false;
try {
  const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write') ?? info.keys[0];
  const admin = (path, body) =>
    fetch(info.admin_url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text());
  // The key goes into the stored profile, the way a user would put it there.
  const login = spawnSync(process.execPath, [BIN, 'login', '--with-key'], {
    env: { ...env, VIDPUB_BASE_URL: info.base_url },
    input: key.key,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (login.status !== 0) throw new Error(`vidpub login failed: ${login.stderr}`);
  const me = JSON.parse(run([BIN, 'me', '--json']).stdout);
  if (!me.workspace) throw new Error('vidpub me --json printed no workspace');

  // Every upload makes a video: a reset keeps the emulator's state (and its work per request) the same for every run.
  const fresh = async () => {
    await admin('/reset', {});
    await admin('/clock', { advance_sec: 61 });
  };
  // The floors: the same requests from a few lines of plain node:http, no vidpub at all. What a
  // floor costs over `node -e 0`, any client on node:http pays; the goals are ratios to them.
  const floorMe = join(dir, 'floor-me.cjs');
  writeFileSync(
    floorMe,
    `const http = require('node:http');
const [base, key] = process.argv.slice(2);
http.get(base + '/me', { headers: { authorization: 'Bearer ' + key } }, (res) => {
  let body = '';
  res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => process.stdout.write(body + '\\n'));
});
`,
  );
  const floorUpload = join(dir, 'floor-upload.cjs');
  writeFileSync(
    floorUpload,
    `const http = require('node:http');
const fs = require('node:fs');
const [base, key, file] = process.argv.slice(2);
const size = fs.statSync(file).size;
function call(method, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => (res.statusCode < 300 ? resolve(text) : reject(new Error(text))));
    });
    req.on('error', reject);
    if (body && typeof body.pipe === 'function') body.pipe(req);
    else req.end(body);
  });
}
(async () => {
  const auth = { authorization: 'Bearer ' + key };
  const created = JSON.parse(await call('POST', base + '/media/uploads', { ...auth, 'content-type': 'application/json' }, JSON.stringify({ filename: 'clip.mp4', size_bytes: size, content_type: 'video/mp4' })));
  await call(created.upload.method, created.upload.url, { ...created.upload.headers, 'content-length': String(size) }, fs.createReadStream(file));
  process.stdout.write(await call('POST', base + '/media/' + created.media.id + '/complete', auth) + '\\n');
})();
`,
  );
  // Each floor again, after loading the command's bundle (dist/me.js, dist/upload.js) from its
  // code cache the way bin/vidpub.js does, and running nothing of it: what the bundle's load
  // alone adds to the floor, printed as information beside the goals. The rest of a goal's
  // ratio is what vidpub does with the bundle loaded.
  const withBundle = (floor, name) => {
    const file = join(dir, `${name}-with-bundle.cjs`);
    const load = `require(${JSON.stringify(join(ROOT, 'bin', 'compile-cache.js'))}).requireCached(${JSON.stringify(join(ROOT, 'dist', `${name}.js`))}, process.env);\n`;
    writeFileSync(file, load + readFileSync(floor, 'utf8'));
    return file;
  };
  const floorMeLoaded = withBundle(floorMe, 'me');
  const floorUploadLoaded = withBundle(floorUpload, 'upload');
  const only = process.env.VIDPUB_BENCH_ONLY;
  // `floor`: the case a goal is a ratio to; `label`, `what`: how the goals' lines name a case and a floor.
  const baseline = { name: 'node -e 0', args: ['-e', '0'] };
  const floorOfMe = { name: 'floor of me: node:http GET /me', args: [floorMe, info.base_url, key.key], what: 'node:http GET /me', before: fresh };
  const floorOfUpload = { name: 'floor of upload: node:http, 3 calls', args: [floorUpload, info.base_url, key.key, CLIP], what: 'node:http, 3 calls', before: fresh };
  const loadedMe = { name: 'floor of me + loading dist/me.js', args: [floorMeLoaded, info.base_url, key.key], before: fresh, of: floorOfMe, label: 'me' };
  const loadedUpload = { name: 'floor of upload + loading dist/upload.js', args: [floorUploadLoaded, info.base_url, key.key, CLIP], before: fresh, of: floorOfUpload, label: 'upload' };
  const measured = [
    { name: 'vidpub --version', label: '--version', args: [BIN, '--version'], floor: baseline, goal: 1.1 },
    { name: 'vidpub --help', label: '--help', args: [BIN, '--help'], floor: baseline, goal: 1.1 },
    { name: 'vidpub me', label: 'me', args: [BIN, 'me'], floor: floorOfMe, goal: 1.15, before: fresh },
    { name: 'vidpub me --json', label: 'me --json', args: [BIN, 'me', '--json'], floor: floorOfMe, goal: 1.15, before: fresh },
    { name: 'vidpub upload small.mp4 --no-wait', label: 'upload small --no-wait', args: [BIN, 'upload', CLIP, '--no-wait', '--quiet'], floor: floorOfUpload, goal: 1.25, before: fresh },
  ].filter((c) => !only || c.name.includes(only));
  // Each floor just before the first case measured against it, then the floor with the bundle loaded.
  const cases = [baseline];
  const loaded = [];
  for (const c of measured) {
    if (!cases.includes(c.floor)) {
      cases.push(c.floor);
      const l = [loadedMe, loadedUpload].find((x) => x.of === c.floor);
      if (l) {
        cases.push(l);
        loaded.push(l);
      }
    }
    cases.push(c);
  }
  for (const c of cases) {
    c.wall = [];
    c.cpu = [];
  }
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const c of i % 2 ? [...cases].reverse() : cases) {
      await c.before?.();
      const wall = run(c.args);
      await c.before?.();
      const cpu = run(c.args, { cpu: true });
      if (i >= WARMUP) {
        c.wall.push(wall.ms);
        c.cpu.push(cpu.cpu);
      }
    }
  }

  /** The median of the per-round ratios a[i] / b[i]. */
  const paired = (a, b) => median(a.map((x, i) => x / b[i]));
  const bw = median(baseline.wall);
  const bc = median(baseline.cpu);
  const cpuModel = (cpus()[0]?.model ?? 'unknown CPU').trim();
  console.log(`Start-up: ${RUNS} rounds (after ${WARMUP} warm-up), medians · node ${process.version} · ${cpus().length} CPUs (${cpuModel}) · load average ${loadAtStart} at the start, ${loadavg()[0].toFixed(2)} at the end`);
  console.log(envNote());
  console.log(`${'case'.padEnd(42)} ${'wall ms'.padStart(8)} ${'cpu ms'.padStart(8)}  vs node -e 0 (information): wall, cpu`);
  for (const c of cases) {
    const w = median(c.wall);
    const u = median(c.cpu);
    console.log(`${c.name.padEnd(42)} ${w.toFixed(1).padStart(8)} ${u.toFixed(1).padStart(8)}  ${(w / bw).toFixed(2)}x, ${(u / bc).toFixed(2)}x`);
  }
  console.log('Goals: CPU against the floor, the median of the per-round ratios (wall beside it, information):');
  for (const c of measured) {
    const ratio = paired(c.cpu, c.floor.cpu);
    const met = ratio <= c.goal;
    if (!met) failed = true;
    console.log(`${c.label} CPU / floor: ${ratio.toFixed(2)} [target <= ${c.goal.toFixed(2)}] ${met ? 'met' : 'MISSED'}  (floor: ${c.floor.what ?? c.floor.name}; wall ${paired(c.wall, c.floor.wall).toFixed(2)})`);
  }
  console.log('Information: what loading the bundle alone adds to the floor, CPU, the median of the per-round ratios:');
  for (const l of loaded) {
    const ratio = paired(l.cpu, l.of.cpu);
    const goal = measured.find((c) => c.floor === l.of).goal;
    console.log(`${l.label}: floor + loading its bundle / floor: ${ratio.toFixed(2)} (of the goal's ${goal.toFixed(2)}, ${(goal - ratio).toFixed(2)} is left for the command's own work)`);
  }
} finally {
  // The emulator writes into the temp dir until it exits.
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
process.exitCode = failed ? 1 : 0;

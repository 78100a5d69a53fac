// Start-up time (npm run bench -- startup, or: node bench/startup.bench.mjs).
//
// Each case is a fresh `node` process; its time is compared with `node -e 0`
// measured in the same run, the cases interleaved run by run so that a busy
// machine slows them all alike. Reported: the median wall time of each case
// and its ratio to the baseline (the goals below), plus the median CPU time
// (user + system, read by a tiny --require hook at exit) and its ratio, which
// a loaded machine disturbs much less than wall time.
//
// Goals (issue 15): vidpub --version and vidpub --help <= 1.1x; vidpub me
// (the human format, reset times included) and vidpub me --json, against a
// running emulator with the key in the stored profile, <= 1.3x; vidpub upload
// small.mp4 --no-wait (the 13.7 KB clip: create, PUT, complete) <= 2.0x. The
// verdict is on the CPU ratio, which a machine shared with other work
// disturbs much less than wall time (both are printed). The emulator runs in
// a child process; its clock is moved a minute ahead before each run that
// talks to it so the per-minute allowance never throttles a run.
//
// The V8 code cache (bin/compile-cache.js) lives in the temp dir's cache
// dir: written by the warm-up runs, used by the timed ones, as a user's
// second and later runs would.
//
// Beside them, two floors: the same requests made by a few lines of plain
// node:http (GET /me and print it; create, PUT the clip, complete), no vidpub
// code at all. Any client on node:http pays at least what a floor costs over
// `node -e 0`; where a floor's ratio is above a goal, the goal is out of reach
// without another HTTP client, and the bench says so.
//
// The processes run without NODE_EXTRA_CA_CERTS (bench/node-env.mjs).
//
// Env: VIDPUB_BENCH_RUNS (default 40), VIDPUB_BENCH_ROOT (a dir with
// bin/vidpub.js and dist/, default this checkout), VIDPUB_BENCH_ONLY (a
// substring: only the cases whose name has it, and the baseline). Exit code 1
// if a goal is missed. Everything lives in a temp dir, deleted at the end.
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
  // floor costs over `node -e 0`, any client on node:http pays; a goal under it is out of reach.
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
  const only = process.env.VIDPUB_BENCH_ONLY;
  const cases = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'vidpub --version', args: [BIN, '--version'], goal: 1.1 },
    { name: 'vidpub --help', args: [BIN, '--help'], goal: 1.1 },
    { name: 'vidpub me', args: [BIN, 'me'], goal: 1.3, before: fresh },
    { name: 'vidpub me --json', args: [BIN, 'me', '--json'], goal: 1.3, before: fresh },
    { name: 'floor of me: node:http GET /me', args: [floorMe, info.base_url, key.key], floorOf: 'vidpub me', before: fresh },
    { name: 'vidpub upload small.mp4 --no-wait', args: [BIN, 'upload', CLIP, '--no-wait', '--quiet'], goal: 2.0, before: fresh },
    { name: 'floor of upload: node:http, 3 calls', args: [floorUpload, info.base_url, key.key, CLIP], floorOf: 'vidpub upload', before: fresh },
  ].filter((c, i) => i === 0 || !only || c.name.includes(only));
  for (const c of cases) {
    c.wall = [];
    c.cpu = [];
  }
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const c of cases) {
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

  const base = cases[0];
  const bw = median(base.wall);
  const bc = median(base.cpu);
  const cpuModel = (cpus()[0]?.model ?? 'unknown CPU').trim();
  console.log(`Start-up: ${RUNS} runs per case (after ${WARMUP} warm-up), medians · node ${process.version} · ${cpus().length} CPUs (${cpuModel}) · ${new Date().toISOString().slice(0, 10)} · load average ${loadAtStart} at the start, ${loadavg()[0].toFixed(2)} at the end`);
  console.log(envNote());
  console.log(`${'case'.padEnd(38)} ${'wall ms'.padStart(8)} ${'ratio'.padStart(6)} ${'cpu ms'.padStart(8)} ${'ratio'.padStart(6)}  goal (on the CPU ratio)`);
  for (const c of cases) {
    const w = median(c.wall);
    const u = median(c.cpu);
    const ratio = u / bc;
    const goalOfFloor = c.floorOf && cases.find((x) => x.name.startsWith(c.floorOf) && x.goal !== undefined)?.goal;
    const verdict =
      c.goal !== undefined
        ? `<= ${c.goal.toFixed(2)}x ${ratio <= c.goal ? 'ok' : 'MISSED'}`
        : goalOfFloor
          ? `(${c.floorOf}'s goal <= ${goalOfFloor.toFixed(2)}x is ${ratio <= goalOfFloor ? 'above this floor' : 'below this floor: out of reach on node:http'})`
          : '';
    if (c.goal !== undefined && ratio > c.goal) failed = true;
    console.log(`${c.name.padEnd(38)} ${w.toFixed(1).padStart(8)} ${((w / bw).toFixed(2) + 'x').padStart(6)} ${u.toFixed(1).padStart(8)} ${(ratio.toFixed(2) + 'x').padStart(6)}  ${verdict}`);
  }
} finally {
  // The emulator writes into the temp dir until it exits.
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
process.exitCode = failed ? 1 : 0;

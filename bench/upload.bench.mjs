// Upload throughput and memory (npm run bench -- upload).
//
// (a) Throughput: `vidpub upload FILE --no-wait` (a child process) against a
//     shell script doing the same three calls with curl (POST /media/uploads,
//     `curl -T FILE` to the signed URL, POST /media/{id}/complete),
//     alternating, several runs each. Two ratios, curl's time / vidpub's, goal
//     >= 0.95 each: the whole commands (vidpub's start-up and its two API calls
//     against the script's three curl processes), and the PUTs alone (vidpub's
//     own timing of its PUT, the --debug line, against curl's time_total).
//     The PUT ratio is paired: the clients run interleaved, the order turned
//     each round, and the figure is the median of the rounds' ratios, with
//     their spread; the machine's load is sampled each round and printed.
//     A third client runs in each round: bench/put-floor.mjs, the least a
//     Node.js program does to PUT the file (node:http, no retries, progress
//     or checks): its ratio to curl is how far Node itself can go.
//     Beside them, the ceiling of the first ratio for a Node.js client: the
//     curl script's time over curl's PUT plus `node -e 0` (timed once a
//     round), a program that would do nothing but start and send the PUT as
//     fast as curl.
// (b) Memory: the client's peak RSS uploading the big file against a 10 MB
//     one (GNU time's %M when present); goal: at most 16 MB more.
// (c) The same over TLS: against `vidpub emulator --tls` (its API and its
//     storage origin on HTTPS, certificates from its own CA), vidpub trusting
//     the CA file (VIDPUB_CA_FILE) and curl given it with --cacert: the PUT
//     ratio, the whole-command ratio and the peak RSS, the same goals.
//
// The big file is the service's maximum, 1 GB (1,000,000,000 bytes: a 1 GiB
// file would be refused before any request). It is sparse, an MP4 ftyp box
// then zeros: the page cache serves it to both clients alike, so the figure
// compares the HTTP paths, not the disk. Everything lives in a temp dir,
// deleted at the end. Set VIDPUB_BENCH_ROOT to bench another build (a dir
// with bin/vidpub.js and dist/), VIDPUB_BENCH_RUNS for the runs (default 9: one run of
// each spreads by ±10 % on a shared 2-core machine, where the emulator itself
// takes most of a core; see docs/performance.md).
import { envNote } from './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, openSync, closeSync, writeSync, ftruncateSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const BIG = 1_000_000_000;
const SMALL = 10_000_000;
const RUNS = Number(process.env.VIDPUB_BENCH_RUNS ?? 9);
if (RUNS < 9) console.log(`note: ${RUNS} rounds (VIDPUB_BENCH_RUNS); the goals are judged on 9 or more`);
const RATIO_GOAL = 0.95;
const RSS_GOAL_MB = 16;
const FLOOR = fileURLToPath(new URL('put-floor.mjs', import.meta.url));
const mark = (ok) => (ok ? 'met' : 'missed');

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-upload-'));
const configDir = join(dir, 'config');

function videoFile(name, size) {
  const p = join(dir, name);
  const fd = openSync(p, 'w');
  // ftyp box: size 24, "ftyp", brand isom, minor 0x200, compatible isom + mp41
  const ftyp = Buffer.from('00000018667479706973 6f6d0000020069736f6d6d703431'.replace(/ /g, ''), 'hex');
  writeSync(fd, ftyp, 0, ftyp.length, 0);
  ftruncateSync(fd, size);
  closeSync(fd);
  return p;
}

/** Reads the page cache in once so the first timed run is not the one that pays for it. */
function warm(path) {
  spawnSync('cat', [path], { stdio: ['ignore', 'ignore', 'ignore'] });
}

/** Runs a command; resolves with wall time (ms), exit code, stdout and stderr. */
function timed(cmd, args, env) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code, stdout, stderr }));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The emulator being measured: its test controls, and the CA file its certificates chain to over TLS. */
let link;

/** A fresh emulator state before each timed upload: the per-minute write allowance must not pace the bench. */
function resetEmulator() {
  const url = new URL(`${link.adminUrl}/reset`);
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: 'POST', ...(link.ca ? { ca: link.ca } : {}) }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`emulator reset: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

// The client's peak RSS: GNU time's %M (the kernel's count, teardown included) when there is one,
// else what the process reports of itself as it exits.
const GNU_TIME = ['/usr/bin/time', '/bin/time'].find((p) => spawnSync(p, ['-f', '%M', 'true'], { stdio: 'ignore' }).status === 0);
const rssProbe = join(dir, 'rss-probe.mjs');
// The CPU a client's processes used (user + system, GNU time's %U and %S), and the emulator's in the same span
// (its /proc stat): the wall ratios move with the machine's load, the CPU much less.
const CPU_FORMAT = 'VIDPUB_BENCH_MAXRSS_KB=%M VIDPUB_BENCH_CPU=%U+%S';
const cpuOf = (stderr) => {
  const m = /VIDPUB_BENCH_CPU=([\d.]+)\+([\d.]+)/.exec(stderr);
  return m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN;
};
const TICK_MS = 1000 / (Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100);
/** The emulator's CPU so far, ms (NaN where /proc is not there). */
function serverCpuMs() {
  try {
    const f = readFileSync(`/proc/${link.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}
/** Runs `cmd` under GNU time when there is one: its result with the client's CPU and the emulator's in that span. */
async function timedCpu(cmd, args, env) {
  const s0 = serverCpuMs();
  const r = GNU_TIME ? await timed(GNU_TIME, ['-f', CPU_FORMAT, cmd, ...args], env) : await timed(cmd, args, env);
  return { ...r, cpuMs: cpuOf(r.stderr), serverCpuMs: serverCpuMs() - s0 };
}
writeFileSync(rssProbe, "process.on('exit', () => process.stderr.write(`\\nVIDPUB_BENCH_MAXRSS_KB=${process.resourceUsage().maxRSS}\\n`));\n");

/** `vidpub upload FILE --no-wait`: wall time, the PUT's own time (from --debug), peak RSS (KB). */
async function vidpubUpload(env, file, { debug = false } = {}) {
  await resetEmulator();
  const args = [BIN, 'upload', file, '--no-wait', debug ? '--debug' : '--quiet'];
  const r = GNU_TIME ? await timedCpu(process.execPath, args, env) : await timed(process.execPath, ['--import', rssProbe, ...args], env);
  if (r.code !== 0) throw new Error(`vidpub upload exited ${r.code}: ${r.stderr}`);
  const rssKb = Number(/VIDPUB_BENCH_MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1]);
  const putMs = debug ? Number(/← 200 PUT \S+ \((\d+) ms\)/.exec(r.stderr)?.[1]) : undefined;
  if (debug && !Number.isFinite(putMs)) throw new Error(`no PUT timing in vidpub --debug output:\n${r.stderr}`);
  return { ms: r.ms, putMs, rssKb, cpuMs: r.cpuMs, serverCpuMs: r.serverCpuMs };
}

/**
 * What a script would do with curl: create the upload, PUT the file to the
 * signed URL with the headers returned, complete. The JSON is read with sed
 * (no jq: one process less, so the faster baseline). Prints curl's
 * time_total of the PUT on the last line.
 */
const curlScript = join(dir, 'upload.sh');
writeFileSync(
  curlScript,
  `#!/bin/sh
set -e
file=$1 size=$2
# Over TLS, curl trusts the emulator's CA file as vidpub does.
c() { if [ -n "$CACERT" ]; then curl --cacert "$CACERT" "$@"; else curl "$@"; fi; }
r=$(c -sS -f -X POST "$BASE/media/uploads" -H "authorization: Bearer $KEY" -H 'content-type: application/json' \\
  -d "{\\"filename\\":\\"bench.mp4\\",\\"size_bytes\\":$size,\\"content_type\\":\\"video/mp4\\"}")
id=$(printf '%s' "$r" | grep -o '"id":"med_[^"]*"' | head -n 1 | cut -d '"' -f 4)
url=$(printf '%s' "$r" | grep -o '"url":"[^"]*"' | head -n 1 | cut -d '"' -f 4)
len=$(printf '%s' "$r" | grep -o '"X-Upload-Length":"[^"]*"' | cut -d '"' -f 4)
put=$(c -sS -f -o /dev/null -w '%{time_total}' -T "$file" -H 'Content-Type: video/mp4' -H "X-Upload-Length: $len" "$url")
c -sS -f -o /dev/null -X POST "$BASE/media/$id/complete" -H "authorization: Bearer $KEY"
echo "$put"
`,
);
chmodSync(curlScript, 0o755);

/** The curl script: wall time of the whole script, and curl's own time of the PUT. */
async function curlUpload(file, size) {
  await resetEmulator();
  const r = await timedCpu(curlScript, [file, String(size)], { BASE: link.baseUrl, KEY: link.key, CACERT: link.caFile ?? '' });
  if (r.code !== 0) throw new Error(`the curl script exited ${r.code}: ${r.stderr}`);
  return { ms: r.ms, putMs: Number(r.stdout.trim().split('\n').pop()) * 1000, cpuMs: r.cpuMs, serverCpuMs: r.serverCpuMs };
}

/** POST /media/uploads for `size` bytes: the signed link and its headers. */
function createUpload(size) {
  const url = new URL(`${link.baseUrl}/media/uploads`);
  const lib = url.protocol === 'https:' ? https : http;
  const body = JSON.stringify({ filename: 'bench.mp4', size_bytes: size, content_type: 'video/mp4' });
  const headers = { authorization: `Bearer ${link.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: 'POST', headers, ...(link.ca ? { ca: link.ca } : {}) }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 201 || res.statusCode === 200 ? resolve(JSON.parse(text).upload) : reject(new Error(`create upload: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** bench/put-floor.mjs: the PUT alone, from a bare Node.js program; its own time of the PUT. */
async function floorUpload(file, size) {
  await resetEmulator();
  const up = await createUpload(size);
  const headers = Object.entries(up.headers).map(([k, v]) => `${k}: ${v}`);
  const r = await timedCpu(process.execPath, [FLOOR, up.url, file, '', ...headers], link.caFile ? { VIDPUB_CA_FILE: link.caFile } : {});
  if (r.code !== 0) throw new Error(`put-floor exited ${r.code}: ${r.stderr}`);
  return { ms: r.ms, putMs: JSON.parse(r.stdout).ms, cpuMs: r.cpuMs, serverCpuMs: r.serverCpuMs };
}

/** Starts `vidpub emulator` (with `args`) as the link measured; returns its child process. */
async function startLink(args) {
  const { child, info } = await startEmulator(BIN, { args: ['--processing-ms', '0', ...args], env: { ...process.env, VIDPUB_CONFIG_DIR: configDir } });
  const key = info.keys.find((k) => k.access === 'read_write').key;
  const caFile = info.ca_file;
  link = { pid: child.pid, adminUrl: info.admin_url, baseUrl: info.base_url, key, caFile, ca: caFile ? readFileSync(caFile, 'utf8') : undefined };
  return child;
}

async function stopLink(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // The emulator writes into the temp dir until it exits.
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** (a) and (b) against the link started: the runs, and the peak RSS for the big file and the small one. */
async function measure(big, small) {
  const env = { VIDPUB_BASE_URL: link.baseUrl, VIDPUB_API_KEY: link.key, VIDPUB_CONFIG_DIR: configDir, VIDPUB_NO_INPUT: '1', ...(link.caFile ? { VIDPUB_CA_FILE: link.caFile } : {}) };
  // (a) throughput, alternating which goes first; `node -e 0` once per round (the floor of any Node client's start-up)
  await vidpubUpload(env, small); // warm-up: first-request costs of the emulator and the OS
  const runs = { vidpub: [], curl: [], floor: [], node: [], load: [] };
  const run = { vidpub: () => vidpubUpload(env, big, { debug: true }), curl: () => curlUpload(big, BIG), floor: () => floorUpload(big, BIG) };
  const orders = [['vidpub', 'curl', 'floor'], ['curl', 'floor', 'vidpub'], ['floor', 'vidpub', 'curl'], ['curl', 'vidpub', 'floor']];
  for (let i = 0; i < RUNS; i++) {
    runs.load.push(loadavg()[0]);
    for (const who of orders[i % orders.length]) runs[who].push(await run[who]());
    runs.node.push(await timed(process.execPath, ['-e', '0'], {}));
  }
  // (b) memory: the client's peak RSS, 1 GB against 10 MB
  const bigRss = [];
  const smallRss = [];
  for (let i = 0; i < 3; i++) {
    bigRss.push((await vidpubUpload(env, big)).rssKb);
    smallRss.push((await vidpubUpload(env, small)).rssKb);
  }
  return { runs, bigPeakMb: Math.max(...bigRss) / 1024, smallPeakMb: Math.max(...smallRss) / 1024 };
}

/** The median of `xs`, its quartiles and extremes, as text. */
function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (f) => s[Math.min(s.length - 1, Math.round(f * (s.length - 1)))];
  return `${median(s).toFixed(3)} (quartiles ${q(0.25).toFixed(3)}-${q(0.75).toFixed(3)}, range ${s[0].toFixed(3)}-${s[s.length - 1].toFixed(3)})`;
}

/** Prints one link's figures; true when its goals are met. */
function report(title, curlName, { runs, bigPeakMb, smallPeakMb }) {
  const med = (who, field) => median(runs[who].map((r) => r[field]));
  const list = (who, field) => runs[who].map((r) => r[field].toFixed(0)).join(', ');
  // Paired, round by round (each round's clients ran back to back): curl's time over the client's.
  const paired = (who, field) => runs[who].map((v, i) => runs.curl[i][field] / v[field]);
  const putRatios = paired('vidpub', 'putMs');
  const ratio = median(putRatios);
  const wallRatio = median(paired('vidpub', 'ms'));
  const mbps = (ms) => (BIG / 1e6 / (ms / 1000)).toFixed(0);
  // The best whole-command ratio a Node.js program could reach with a PUT as fast as curl's: one that did
  // nothing else but start (`node -e 0`). Below the goal, the goal is out of a Node client's reach here.
  const ceilingPaired = median(runs.curl.map((c, i) => c.ms / (c.putMs + runs.node[i].ms)));
  const diffMb = bigPeakMb - smallPeakMb;
  const load = [...runs.load].sort((a, b) => a - b);
  console.log(`${title}: ${RUNS} rounds, vidpub, curl and the Node.js floor interleaved (order turned each round); load average ${load[0].toFixed(1)} to ${load[load.length - 1].toFixed(1)} (median ${median(load).toFixed(1)})`);
  console.log(`  vidpub PUT (its --debug timing):  ${med('vidpub', 'putMs').toFixed(0)} ms (${mbps(med('vidpub', 'putMs'))} MB/s)  runs: ${list('vidpub', 'putMs')}`);
  console.log(`  ${curlName} (its time_total): `.padEnd(36) + `${med('curl', 'putMs').toFixed(0)} ms (${mbps(med('curl', 'putMs'))} MB/s)  runs: ${list('curl', 'putMs')}`);
  console.log(`  Node.js floor (bench/put-floor.mjs): ${med('floor', 'putMs').toFixed(0)} ms (${mbps(med('floor', 'putMs'))} MB/s)  runs: ${list('floor', 'putMs')}`);
  console.log(`  PUT, curl / vidpub, paired: ${spread(putRatios)}  goal >= ${RATIO_GOAL}: ${mark(ratio >= RATIO_GOAL)}`);
  console.log(`  PUT, curl / the Node.js floor, paired: ${spread(paired('floor', 'putMs'))}  (what Node itself reaches; vidpub / floor: ${median(runs.vidpub.map((v, i) => runs.floor[i].putMs / v.putMs)).toFixed(3)})`);
  console.log(`  whole command, curl script / vidpub upload --no-wait, paired: ${spread(paired('vidpub', 'ms'))}  goal >= ${RATIO_GOAL}: ${mark(wallRatio >= RATIO_GOAL)}`);
  console.log(`    vidpub ${med('vidpub', 'ms').toFixed(0)} ms, the curl script ${med('curl', 'ms').toFixed(0)} ms; outside the PUT: vidpub ${(med('vidpub', 'ms') - med('vidpub', 'putMs')).toFixed(0)} ms, the curl script ${(med('curl', 'ms') - med('curl', 'putMs')).toFixed(0)} ms, node -e 0 alone ${med('node', 'ms').toFixed(0)} ms`);
  console.log(`    ceiling for a Node.js client with curl's PUT (curl script / (curl PUT + node -e 0)), paired: ${ceilingPaired.toFixed(3)}${ceilingPaired < RATIO_GOAL ? `: below ${RATIO_GOAL}, the whole-command goal is out of reach of any Node.js process on this bench` : ''}`);
  const cpu = (who, field) => med(who, field).toFixed(0);
  console.log(`  CPU ms, medians (GNU time: user + system of the client's processes; the emulator's in the same span):`);
  console.log(`    vidpub upload ${cpu('vidpub', 'cpuMs')} (emulator ${cpu('vidpub', 'serverCpuMs')}), the curl script ${cpu('curl', 'cpuMs')} (emulator ${cpu('curl', 'serverCpuMs')}), the Node.js floor ${cpu('floor', 'cpuMs')} (emulator ${cpu('floor', 'serverCpuMs')})`);
  console.log(`  peak RSS of the client (${GNU_TIME ? 'GNU time %M' : 'process.resourceUsage().maxRSS'}): ${bigPeakMb.toFixed(1)} MB for 1 GB, ${smallPeakMb.toFixed(1)} MB for 10 MB (the baseline)`);
  console.log(`    difference: ${diffMb.toFixed(1)} MB  goal <= ${RSS_GOAL_MB} MB: ${mark(diffMb <= RSS_GOAL_MB)}`);
  return ratio >= RATIO_GOAL && wallRatio >= RATIO_GOAL && diffMb <= RSS_GOAL_MB;
}

const loadAtStart = loadavg()[0].toFixed(2);
let child;
try {
  const big = videoFile('big.mp4', BIG);
  const small = videoFile('small.mp4', SMALL);
  warm(big);
  child = await startLink([]);
  const plain = await measure(big, small);
  await stopLink(child);
  child = undefined;
  // (c) the same over TLS, on the emulator's API and storage origins
  child = await startLink(['--tls']);
  const tls = await measure(big, small);

  console.log(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadAtStart} at the start, ${loadavg()[0].toFixed(2)} at the end`);
  console.log(envNote());
  const plainOk = report(`upload of ${BIG.toLocaleString('en-US')} bytes to the emulator over http`, 'curl -T', plain);
  const tlsOk = report(`the same over TLS (emulator --tls; vidpub with VIDPUB_CA_FILE, curl with --cacert)`, 'curl --cacert -T', tls);
  process.exitCode = plainOk && tlsOk ? 0 : 1;
} finally {
  if (child) await stopLink(child);
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

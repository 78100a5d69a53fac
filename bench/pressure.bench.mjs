// Under pressure: memory and time against hostile answers and hanging uploads (npm run bench -- pressure).
//
// (a) `vidpub me --timeout 2s` against a local server answering GET /v1/me with 50 MB of JSON
//     (announced by Content-Length, and chunked without one), against the same server answering
//     a record of a few hundred bytes, measured in the same run: wall time and peak RSS (GNU
//     time's %M, else what the process reports as it exits). Goals: exit 1 naming the size,
//     within 3 s, peak RSS under 200 MB.
// (b) The emulator (`vidpub emulator`, a child process) while 24 uploads of 64 MiB each have sent
//     all but their last byte and hang there, against the same emulator idle: its RSS
//     (/proc/PID/status), then again once the clients went away. Goal: under 400 MB.
//
// Env: VIDPUB_BENCH_ROOT, VIDPUB_BENCH_UPLOADS (default 24). Exit code 1 if a goal is missed.
/* global fetch */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const UPLOADS = Number(process.env.VIDPUB_BENCH_UPLOADS ?? 24);
const UPLOAD_BYTES = 64 * 1024 * 1024;
const ANSWER_BYTES = 50_000_000;
const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-pressure-'));
let failed = false;
const goal = (ok, text) => {
  console.log(`  ${ok ? 'ok  ' : 'MISS'} ${text}`);
  if (!ok) failed = true;
};

// ------------------------------------------------------------------ (a) a 50 MB answer
const GNU_TIME = ['/usr/bin/time', '/bin/time'].find((p) => spawnSync(p, ['-f', '%M', 'true'], { stdio: 'ignore' }).status === 0);
const probe = join(dir, 'rss-probe.mjs');
writeFileSync(probe, "process.on('exit', () => process.stderr.write(`\\nVIDPUB_BENCH_MAXRSS_KB=${process.resourceUsage().maxRSS}\\n`));\n");

const CHUNK = Buffer.alloc(64 * 1024, 'x');
let mode = 'small';
const hostile = http.createServer((_req, res) => {
  if (mode === 'small') {
    const body = JSON.stringify({ key: { prefix: 'vp_live_', last4: 'abcd', access: 'read_write' }, workspace: { id: 'ws_1', name: 'Bench' }, plan: { name: 'standard' } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    return res.end(body);
  }
  res.writeHead(200, { 'content-type': 'application/json', ...(mode === 'announced' ? { 'content-length': ANSWER_BYTES } : {}) });
  res.write('{"workspace":{"name":"');
  let sent = 0;
  const write = () => {
    while (sent < ANSWER_BYTES && !res.destroyed) {
      sent += CHUNK.length;
      if (!res.write(CHUNK)) return res.once('drain', write);
    }
    if (!res.destroyed) res.end();
  };
  write();
});
await new Promise((r) => hostile.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${hostile.address().port}/v1`;

function me() {
  return new Promise((resolve) => {
    const env = { ...process.env, HOME: dir, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_API_KEY: 'vp_live_0123456789abcdefABCDEFgh', VIDPUB_BASE_URL: base };
    const args = ['me', '--timeout', '2s'];
    const [cmd, argv] = GNU_TIME
      ? [GNU_TIME, ['-f', 'VIDPUB_BENCH_MAXRSS_KB=%M', process.execPath, BIN, ...args]]
      : [process.execPath, ['--import', probe, BIN, ...args]];
    const started = process.hrtime.bigint();
    const child = spawn(cmd, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const kb = Number(/VIDPUB_BENCH_MAXRSS_KB=(\d+)/.exec(stderr)?.[1] ?? NaN);
      resolve({ code, ms, mb: kb / 1024, said: stderr.split('\n').find((l) => l.startsWith('Error:')) ?? '' });
    });
  });
}

console.log(`(a) vidpub me --timeout 2s against a 50 MB answer (peak RSS by ${GNU_TIME ? 'GNU time' : 'process.resourceUsage'})`);
const rows = [];
for (const m of ['small', 'announced', 'chunked', 'small', 'announced', 'chunked']) {
  mode = m;
  rows.push({ mode: m, ...(await me()) });
}
hostile.close();
const best = (m, k) => Math.min(...rows.filter((r) => r.mode === m).map((r) => r[k]));
const baseline = { ms: best('small', 'ms'), mb: best('small', 'mb') };
console.log(`  baseline (a ${rows[0].mode} record): ${baseline.ms.toFixed(0)} ms, ${baseline.mb.toFixed(0)} MB`);
for (const m of ['announced', 'chunked']) {
  const r = rows.filter((x) => x.mode === m);
  const ms = best(m, 'ms');
  const mb = best(m, 'mb');
  console.log(`  50 MB ${m === 'announced' ? 'with Content-Length' : 'chunked'}: ${ms.toFixed(0)} ms (${(ms / baseline.ms).toFixed(2)}x), ${mb.toFixed(0)} MB (${(mb / baseline.mb).toFixed(2)}x); ${r[0].said}`);
  goal(r.every((x) => x.code === 1 && /cut off: it is .*MB/.test(x.said)), `${m}: exit 1 naming the size`);
  goal(Math.max(...r.map((x) => x.ms)) < 3000, `${m}: within 3 s`);
  goal(Math.max(...r.map((x) => x.mb)) < 200, `${m}: peak RSS under 200 MB`);
}

// ------------------------------------------------------------------ (b) 24 uploads of 64 MiB held one byte short
const rssOf = (pid) => {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
};
const { child, info } = await startEmulator(BIN, { args: ['--processing-ms', '0'] });
try {
  const studio = info.keys.find((k) => k.workspace === 'Studio' && k.access === 'read_write');
  const idle = rssOf(child.pid);
  console.log(`(b) the emulator with ${UPLOADS} uploads of 64 MiB held one byte short`);
  console.log(`  idle: RSS ${idle.rss.toFixed(0)} MB`);
  const sockets = [];
  const ids = [];
  for (let i = 0; i < UPLOADS; i++) {
    const res = await fetch(`${info.base_url}/media/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${studio.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: `hang${i}.webm`, size_bytes: UPLOAD_BYTES, content_type: 'video/webm' }),
    });
    const up = await res.json();
    if (res.status !== 201) throw new Error(`upload ${i}: ${res.status} ${JSON.stringify(up)}`);
    ids.push(up.media.id);
    const url = new URL(up.upload.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    sockets.push(socket);
    await new Promise((r) => socket.once('connect', r));
    socket.write(`PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: video/webm\r\nX-Upload-Length: ${UPLOAD_BYTES}\r\nContent-Length: ${UPLOAD_BYTES}\r\n\r\n`);
    let left = UPLOAD_BYTES - 1;
    await new Promise((resolve) => {
      const write = () => {
        while (left > 0) {
          const part = CHUNK.subarray(0, Math.min(CHUNK.length, left));
          left -= part.length;
          if (!socket.write(part)) return socket.once('drain', write);
        }
        resolve();
      };
      write();
    });
  }
  // Every byte but the last counted (each video's progress at 99%).
  for (;;) {
    const percents = await Promise.all(ids.map(async (id) => (await (await fetch(`${info.base_url}/media/${id}`, { headers: { authorization: `Bearer ${studio.key}` } })).json()).progress?.percent));
    if (percents.every((p) => p === 99)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const held = rssOf(child.pid);
  console.log(`  ${UPLOADS} held: RSS ${held.rss.toFixed(0)} MB (${(held.rss / idle.rss).toFixed(2)}x idle), peak ${held.peak.toFixed(0)} MB`);
  goal(held.peak < 400, `peak RSS under 400 MB with ${UPLOADS} x 64 MiB in flight`);
  for (const s of sockets) s.destroy();
  await new Promise((r) => setTimeout(r, 2000));
  const after = rssOf(child.pid);
  console.log(`  clients gone: RSS ${after.rss.toFixed(0)} MB`);
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;

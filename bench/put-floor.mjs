// The floor of a Node.js PUT: the least a Node.js program does to send a file
// to a URL with node:http or node:https, with none of vidpub's work (no
// retries, progress, time limits or file checks). The file is read
// synchronously into one reused buffer and written until the socket asks to
// wait ('drain'); once 'drain' has come, every byte written has gone to the
// kernel, so the buffer may be read into again. docs/performance.md says what
// it shows.
//
//   node bench/put-floor.mjs URL FILE [chunk bytes] [header: value ...]
//
// Trusts the CA file in VIDPUB_CA_FILE (as vidpub does). Prints, as JSON on
// stdout, the wall time of the PUT (connection included, as curl's
// time_total) and the process's CPU time in it.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const [url, file, chunkArg, ...headerArgs] = process.argv.slice(2);
const chunk = Number(chunkArg || 64 * 1024);
const target = new URL(url);
const secure = target.protocol === 'https:';
const fd = openSync(file, 'r');
const size = fstatSync(fd).size;
const headers = { 'content-length': String(size) };
for (const h of headerArgs) headers[h.slice(0, h.indexOf(':')).trim().toLowerCase()] = h.slice(h.indexOf(':') + 1).trim();
const ca = process.env.VIDPUB_CA_FILE ? readFileSync(process.env.VIDPUB_CA_FILE, 'utf8') : undefined;

const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const req = (secure ? https : http).request(target, { method: 'PUT', headers, agent: false, ...(ca ? { ca } : {}) });
const buf = Buffer.allocUnsafe(Math.min(chunk, Math.max(1, size)));
let position = 0;
function pump() {
  while (position < size) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - position), position);
    if (n === 0) throw new Error(`${file} shrank`);
    position += n;
    if (!req.write(n === buf.length ? buf : buf.subarray(0, n))) return void req.once('drain', pump);
  }
  req.end();
}
req.on('error', (err) => {
  console.error(err.message);
  process.exitCode = 1;
});
req.on('response', (res) => {
  res.resume();
  res.on('end', () => {
    const c = process.cpuUsage(cpu0);
    closeSync(fd);
    if (res.statusCode !== 200) process.exitCode = 1;
    console.log(JSON.stringify({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: (c.user + c.system) / 1000, userMs: c.user / 1000, sysMs: c.system / 1000 }));
  });
});
pump();

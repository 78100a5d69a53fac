// `node bench/shared-key.bench.mjs [scenario...]` (also one of `npm run bench`'s, all four scenarios, ~10 min
// of wall time): many `vidpub post` runs on one Standard key (20 writes a minute, 3 a post),
// started together against an emulator with its default timings, each with --timeout 120s
// (issue 52). test/posts/key-queue.test.ts and test/reliability/live-run-settle.test.ts are the
// small cases. Scenarios:
//   different40   40 different posts, one state directory (one machine)
//   different100  100 different posts, one machine
//   machines3x4   4 processes on each of 3 "machines" (separate state directories)
//   identical50   50 identical runs, one machine
// Prints, per scenario: posts made, against the allowance's ceiling over a run's --timeout (the
// baseline: 20 writes a minute for 120 s make 13 posts), exit codes, 429 answers, upload sessions
// left without a post, writes replayed, and for identical runs how long after the first run's end
// the last ended.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from './emulator.mjs';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'vidpub.js');
const clipBytes = readFileSync(join(root, 'test', 'fixtures', 'clip.mp4'));
const clipDir = mkdtempSync(join(tmpdir(), 'vidpub-shared-key-clips-'));
/**
 * A video of its own for each caption: the test clip with a `free` box of its caption appended (valid
 * MP4, other bytes), so that "different posts" are different videos (not refused as the same video
 * posted again, nor reusing one upload by its content).
 */
const clips = new Map();
function clipFor(caption) {
  const name = join(clipDir, `${caption.replace(/[^A-Za-z0-9]+/g, '-')}.mp4`);
  // Written once: identical runs share one file (written again under a run reading it, it would be another video).
  if (clips.has(name)) return name;
  clips.set(name, true);
  const tag = Buffer.from(caption, 'utf8');
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + tag.length, 0);
  head.write('free', 4, 'latin1');
  writeFileSync(name, Buffer.concat([clipBytes, head, tag]));
  return name;
}
const { child, info } = await startEmulator(bin);
const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write')?.key ?? info.keys[0].key;

async function admin(method, path) {
  const res = await globalThis.fetch(info.admin_url + path, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
  return res.status === 204 ? undefined : res.json();
}

function machine() {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-shared-key-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_CACHE_DIR: join(base, 'cache') };
}

/** One run of the bin: resolves with its exit code and when it ended (ms since the scenario's start). */
function post(caption, dirs, t0) {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH, HOME: dirs.VIDPUB_CONFIG_DIR, ...dirs, VIDPUB_API_KEY: key, VIDPUB_BASE_URL: info.base_url, TZ: 'UTC', NO_COLOR: '1' };
    const p = spawn(process.execPath, [bin, 'post', clipFor(caption), '--to', 'linkedin', '--caption', caption, '--no-input', '--timeout', '120s'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (b) => (stderr += b));
    p.on('close', (code) => resolve({ code, at: Date.now() - t0, caption, stderr }));
  });
}

async function scenario(name, runs) {
  await admin('POST', '/reset');
  await admin('DELETE', '/requests').catch(() => undefined);
  const t0 = Date.now();
  const ended = await Promise.all(runs.map(({ caption, dirs }) => post(caption, dirs, t0)));
  const log = (await admin('GET', '/requests')).filter((q) => q.path.startsWith('/v1/'));
  const made = (path) => log.filter((q) => q.method === 'POST' && q.path === path && q.status === 201 && !q.replayed).length;
  const codes = {};
  for (const e of ended) codes[e.code] = (codes[e.code] ?? 0) + 1;
  const posts = made('/v1/posts');
  const uploads = made('/v1/media/uploads');
  const out = {
    scenario: name,
    runs: runs.length,
    posts,
    // 13 for a Standard key over 120 s; fewer runs than that, all of them.
    ceiling: Math.min(name.startsWith('identical') ? 1 : runs.length, Math.floor((20 * 120) / 60 / 3)),
    exit_codes: codes,
    answers_429: log.filter((q) => q.status === 429).length,
    answers_429_read: log.filter((q) => q.status === 429 && q.method === 'GET').length,
    uploads_without_post: uploads - posts,
    writes_replayed: log.filter((q) => q.method === 'POST' && q.replayed).length,
    wall_s: Math.round((Date.now() - t0) / 100) / 10,
  };
  out.ratio = Math.round((posts / out.ceiling) * 100) / 100;
  if (name.startsWith('identical')) {
    const times = ended.map((e) => e.at).sort((a, b) => a - b);
    out.last_end_after_first_s = Math.round((times.at(-1) - times[0]) / 100) / 10;
  }
  console.log(JSON.stringify(out));
  // SHARED_KEY_LOG=dir: each run's stderr and the request log, to see where a run spent its time.
  const dir = process.env.SHARED_KEY_LOG;
  if (dir) {
    writeFileSync(join(dir, `${name}.runs.json`), JSON.stringify(ended, null, 1));
    writeFileSync(join(dir, `${name}.requests.json`), JSON.stringify(log, null, 1));
  }
}

const wanted = process.argv.slice(2);
const all = {
  different40: () => {
    const m = machine();
    return Array.from({ length: 40 }, (_, i) => ({ caption: `Different ${i + 1}`, dirs: m }));
  },
  different100: () => {
    const m = machine();
    return Array.from({ length: 100 }, (_, i) => ({ caption: `Different ${i + 1}`, dirs: m }));
  },
  machines3x4: () => {
    const ms = [machine(), machine(), machine()];
    return Array.from({ length: 12 }, (_, i) => ({ caption: `Machine ${(i % 3) + 1} run ${i + 1}`, dirs: ms[i % 3] }));
  },
  identical50: () => {
    const m = machine();
    return Array.from({ length: 50 }, () => ({ caption: 'Identical', dirs: m }));
  },
};
try {
  for (const name of wanted.length > 0 ? wanted : Object.keys(all)) await scenario(name, all[name]());
} finally {
  child.kill();
}

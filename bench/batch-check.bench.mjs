// Batch check of 100,000 items (npm run bench -- batch-check): `vidpub batch
// --dry-run` over a 100,000-row CSV manifest (every item checked: its file,
// destinations, options, caption, time and key; the plan printed), against
// the emulator. Prints each run's peak RSS (the whole process, from
// /usr/bin/time -v, or the child's own getrusage through an env hook where
// that is missing) and wall time, against baselines measured in the same
// run: `node -e 0`, and the same check of 1,000 items. Goal: <= 256 MB peak
// RSS, a few seconds. Two manifests: one destination a row, and three with
// an option (as rich a row as fits the 10 MB manifest limit at 100,000 rows).
// The YAML manifest is measured at 10,000 items: the YAML parser holds the
// whole document, so a YAML manifest that size is the guidance (docs/batch.md).
import './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const CLIP = fileURLToPath(new URL('../test/fixtures/clip.mp4', import.meta.url));
const ITEMS = 100_000;
const RSS_GOAL_MB = 256;
const TIME = '/usr/bin/time';
const hasTime = existsSync(TIME) && spawnSync(TIME, ['-v', 'true']).status === 0;

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-batch-check-'));
copyFileSync(CLIP, join(dir, 'a.mp4'));

function manifest(name, n, row) {
  writeFileSync(join(dir, name), Array.from({ length: n }, (_, i) => row(i + 1)).join(''));
  return name;
}
const plain = (header) => (i) => (i === 1 ? header : '') + `a.mp4,linkedin,Caption number ${i},true\n`;
const rich = (header) => (i) => (i === 1 ? header : '') + `a.mp4,tiktok;youtube;linkedin,"Day ${i}: with a comma, and words #tag${i % 50}",true,SELF_ONLY\n`;
const PLAIN = 'file,to,caption,draft\n';
const RICH = 'file,to,caption,draft,option:tiktok:privacy\n';
const yamlRow = (i) => (i === 1 ? 'items:\n' : '') + `  - file: a.mp4\n    to: linkedin\n    caption: "Caption number ${i}"\n    draft: true\n`;

const { child: emulator, info } = await startEmulator(BIN, { env: { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'emu') } });
const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
const env = { ...process.env, VIDPUB_BASE_URL: info.base_url, VIDPUB_API_KEY: key, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_INPUT: '1', NO_COLOR: '1', TZ: 'UTC' };

/** One process: its exit code, wall time (ms) and peak RSS (MB) of the whole process. */
function measure(args) {
  return new Promise((resolve) => {
    const rusage = join(dir, 'rusage.json');
    // Without /usr/bin/time, the child reports its own getrusage() as it exits (whole process).
    const hook = `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(rusage)}, JSON.stringify(process.resourceUsage())))`;
    const [cmd, argv] = hasTime ? [TIME, ['-v', process.execPath, ...args]] : [process.execPath, ['--require', writeHook(hook), ...args]];
    const started = process.hrtime.bigint();
    const child = spawn(cmd, argv, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const kb = hasTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]) : JSON.parse(readFileSync(rusage, 'utf8')).maxRSS;
      const status = hasTime ? Number(/Exit status: (\d+)/.exec(stderr)?.[1] ?? code) : code;
      resolve({ code: status, ms, mb: kb / 1024, stderr });
    });
  });
}

function writeHook(text) {
  const file = join(dir, 'rusage-hook.cjs');
  writeFileSync(file, text);
  return file;
}

const line = (label, r, base) =>
  console.log(`  ${label.padEnd(34)} ${r.mb.toFixed(0).padStart(5)} MB peak RSS ${(r.ms / 1000).toFixed(2).padStart(6)} s${base ? `  (${(r.mb / base.mb).toFixed(1)}x the RSS, ${(r.ms / base.ms).toFixed(1)}x the time of ${base.label})` : ''}`);

try {
  const nodeZero = { ...(await measure(['-e', '0'])), label: 'node -e 0' };
  const check = async (name) => {
    const r = await measure([BIN, 'batch', name, '--dry-run']);
    if (r.code !== 0) throw new Error(`vidpub batch ${name} --dry-run exited ${r.code}\n${r.stderr.slice(0, 2000)}`);
    return r;
  };
  const small = { ...(await check(manifest('small.csv', 1_000, plain(PLAIN)))), label: '1,000 items' };
  const big = await check(manifest('big.csv', ITEMS, plain(PLAIN)));
  const richer = await check(manifest('rich.csv', ITEMS, rich(RICH)));
  const yaml = await check(manifest('ten.yaml', 10_000, yamlRow));
  console.log(`batch --dry-run, peak RSS (${hasTime ? '/usr/bin/time -v' : 'the process\'s own getrusage'}) and wall time; goal <= ${RSS_GOAL_MB} MB, a few seconds`);
  line('node -e 0', nodeZero);
  line('CSV, 1,000 items', small, nodeZero);
  const n = ITEMS.toLocaleString('en-US');
  line(`CSV, ${n} items, 1 destination`, big, small);
  line(`CSV, ${n} items, 3 + an option`, richer, small);
  line('YAML, 10,000 items', yaml, small);
  const worst = Math.max(big.mb, richer.mb);
  console.log(`  ${n} items: ${worst.toFixed(0)} MB at most (goal <= ${RSS_GOAL_MB} MB) ${worst <= RSS_GOAL_MB ? 'OK' : 'MISSED'}`);
} finally {
  emulator.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

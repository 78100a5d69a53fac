// Start-up of the single executable (npm run bench -- sea, or: node bench/sea-startup.bench.mjs):
// dist/sea/vidpub-linux-<arch> (npm run build:sea; built first when missing) against
// `node bin/vidpub.js`, for `--version` and for `me` against a running emulator (the key in the
// stored profile, the same for both). Goal: the executable within 10% of node bin/vidpub.js.
//
// Wall time (a SEA takes no --require hook to read its CPU time), paired: the two run
// interleaved, round by round (the order reversed every other round), and the figure is the
// median of the per-round ratios executable / node, so that a busy moment slows both sides of a
// pair alike. bin/vidpub.js runs with its V8 code cache warm (bin/compile-cache.js), the
// executable with the one built into it (useCodeCache in sea-config.json).
//
// Env: VIDPUB_BENCH_RUNS (default 20). Exit code 1 if the goal is missed.
import { envNote } from './node-env.mjs'; // first: sets the environment every measured process inherits
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from './emulator.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const SEA = join(ROOT, 'dist', 'sea', `vidpub-linux-${process.arch}`);
const RUNS = Number(process.env.VIDPUB_BENCH_RUNS ?? 20);
const GOAL = 1.1;

for (const [missing, script] of [[join(ROOT, 'dist', 'main.js'), 'build.mjs'], [SEA, 'build-sea.mjs']]) {
  if (existsSync(missing)) continue;
  console.log(`${missing} is missing: building it (scripts/${script}).`);
  if (spawnSync(process.execPath, [join(ROOT, 'scripts', script)], { stdio: 'inherit' }).status !== 0) throw new Error('the build failed');
}

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-sea-'));
const env = { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' };
for (const k of ['VIDPUB_API_KEY', 'VIDPUB_BASE_URL', 'VIDPUB_PROFILE', 'VIDPUB_NO_COMPILE_CACHE', 'VIDPUB_CACHE_DIR']) delete env[k];

function time(command, args, input) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { env, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { child, info } = await startEmulator(BIN, { env });
let missed = 0;
try {
  const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
  time(process.execPath, [BIN, 'login', '--base-url', info.base_url, '--with-key'], key);
  console.log(`${RUNS} paired runs; ${envNote()}`);
  for (const args of [['--version'], ['me']]) {
    const node = () => time(process.execPath, [BIN, ...args]);
    const sea = () => time(SEA, args);
    // Warm-up: the code cache, the disk cache.
    for (let i = 0; i < 3; i++) {
      node();
      sea();
    }
    const rounds = [];
    for (let i = 0; i < RUNS; i++) {
      const pair = i % 2 ? [sea(), node()].reverse() : [node(), sea()];
      rounds.push({ node: pair[0], sea: pair[1] });
    }
    const ratio = median(rounds.map((r) => r.sea / r.node));
    const ok = ratio <= GOAL;
    if (!ok) missed++;
    console.log(
      `vidpub ${args.join(' ').padEnd(9)} node bin/vidpub.js ${median(rounds.map((r) => r.node)).toFixed(1)} ms, ` +
        `executable ${median(rounds.map((r) => r.sea)).toFixed(1)} ms: ratio ${ratio.toFixed(2)} (goal <= ${GOAL}) ${ok ? 'ok' : 'MISSED'}`,
    );
  }
} finally {
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = missed ? 1 : 0;

// Start-up of the single executable (npm run bench -- sea, or: node bench/sea-startup.bench.mjs):
// dist/sea/vidpub-linux-<arch> (npm run build:sea; built first when missing) against
// `node bin/vidpub.js`, for `--version`, `--help` and `me` against a running emulator (the key in
// the stored profile, the same for both). Goal: the executable within 10% of node bin/vidpub.js.
//
// CPU time (user + system, which a busy machine disturbs much less than wall time; both are
// printed), paired: the two run interleaved, round by round (the order reversed every other
// round), and the figure is the median of the per-round ratios executable / node, so that a busy
// moment slows both sides of a pair alike. Both run with their V8 code caches warm (the warm-up
// runs write them): bin/compile-cache.js's for bin/vidpub.js, scripts/sea/loader.cjs's for the
// executable's assets.
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

/**
 * One run: its wall time and its CPU time (user + system, ms), which a busy machine disturbs much
 * less. A SEA takes no --require hook, so bash's `times` reads the child's CPU time.
 */
function time(command, args, input) {
  const t0 = process.hrtime.bigint();
  const script = '"$@" >/dev/null 2>/tmp/.vidpub-bench-err <&0; s=$?; times; exit $s';
  const r = spawnSync('bash', ['-c', script.replace('/tmp/.vidpub-bench-err', join(dir, 'stderr')), 'bash', command, ...args], {
    env,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}`);
  // times: the shell's user and system time, then its children's: "0m0.012s 0m0.004s".
  const children = String(r.stdout).trim().split('\n').pop().split(' ');
  const cpu = children.map((t) => Number(/(\d+)m([\d.]+)s/.exec(t)[1]) * 60e3 + Number(/(\d+)m([\d.]+)s/.exec(t)[2]) * 1e3).reduce((a, b) => a + b);
  return { wall, cpu };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { child, info } = await startEmulator(BIN, { env });
let missed = 0;
try {
  const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
  time(process.execPath, [BIN, 'login', '--base-url', info.base_url, '--with-key'], key);
  console.log(`${RUNS} paired runs; ${envNote()}`);
  for (const args of [['--version'], ['--help'], ['me']]) {
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
    const ratio = median(rounds.map((r) => r.sea.cpu / r.node.cpu));
    const wallRatio = median(rounds.map((r) => r.sea.wall / r.node.wall));
    const ok = ratio <= GOAL;
    if (!ok) missed++;
    const ms = (side, what) => median(rounds.map((r) => r[side][what])).toFixed(1);
    console.log(
      `vidpub ${args.join(' ').padEnd(9)} CPU: node bin/vidpub.js ${ms('node', 'cpu')} ms, executable ${ms('sea', 'cpu')} ms, ` +
        `ratio ${ratio.toFixed(2)} (goal <= ${GOAL}) ${ok ? 'ok' : 'MISSED'}; wall: ${ms('node', 'wall')} ms, ${ms('sea', 'wall')} ms, ratio ${wallRatio.toFixed(2)}`,
    );
  }
} finally {
  // The emulator gone before its directory goes (it may still be writing its state).
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = missed ? 1 : 0;

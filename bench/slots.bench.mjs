// The slot planner (npm run bench -- slots): 10,000 items given times by --slots, planned
// in-process by src/batch/post-times.ts (bundled here with esbuild, as the build does) around
// 200 posts already scheduled, with the Standard plan's 30 posts a day: its wall time and
// the growth of the process's peak RSS, against a baseline measured in the same run (the same
// 10,000 items with --every 30m, a rule that needs no wall-clock reading). Then the whole
// `vidpub batch --dry-run --slots` of 10,000 items against the emulator, beside the same
// dry-run without --slots. Goal: the plan of 10,000 items in <= 2 s and <= 150 MB.
import './node-env.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startEmulator } from './emulator.mjs';

const ROOT = process.env.VIDPUB_BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'vidpub.js');
const ITEMS = 10_000;
const GOAL_S = 2;
const GOAL_MB = 150;
const TIME = '/usr/bin/time';
const hasTime = existsSync(TIME) && spawnSync(TIME, ['-v', 'true']).status === 0;

const dir = mkdtempSync(join(tmpdir(), 'vidpub-bench-slots-'));
const out = join(dir, 'post-times.mjs');
await build({ entryPoints: [join(ROOT, 'src/batch/post-times.ts')], bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'error' });
const entry = join(dir, 'entry.mjs');
await build({ stdin: { contents: `export * from '${join(ROOT, 'src/time/slot-rule.ts')}';`, resolveDir: ROOT, loader: 'ts' }, bundle: true, format: 'esm', platform: 'node', outfile: entry, logLevel: 'error' });
const { planPostTimes } = await import(out);
const { parseSlotRule } = await import(entry);

const NOW = Date.parse('2027-03-20T12:00:00Z');
const items = Array.from({ length: ITEMS }, (_, i) => ({ n: i + 1, destinations: [i % 3 === 0 ? 'dst_a' : 'dst_b'] }));
const scheduled = Array.from({ length: 200 }, (_, i) => ({ ms: NOW + 86_400_000 + i * 3_600_000, destinations: ['dst_a'] }));

function plan(rule) {
  globalThis.gc?.();
  const rss0 = process.memoryUsage().rss;
  const started = process.hrtime.bigint();
  const r = planPostTimes({ rule: parseSlotRule(rule), from: NOW, now: NOW, zone: 'Europe/Berlin', perSlot: 1, dailyLimit: 30, items, scheduled });
  const s = Number(process.hrtime.bigint() - started) / 1e9;
  const mb = Math.max(0, process.resourceUsage().maxRSS * 1024 - rss0) / 1024 / 1024;
  if (r.times.length !== ITEMS) throw new Error(`planned ${r.times.length} of ${ITEMS}`);
  return { s, mb };
}

console.log(`slot planner, ${ITEMS.toLocaleString('en-US')} items, 30 posts a day; goal <= ${GOAL_S} s, <= ${GOAL_MB} MB`);
const base = plan({ every: '30m' });
console.log(`  --every 30m (baseline)               ${base.s.toFixed(2).padStart(6)} s  +${base.mb.toFixed(0)} MB peak RSS`);
let missed = false;
for (const slots of ['daily 00:00,00:30,01:00,01:30,02:00,02:30,03:00,03:30,04:00,04:30,05:00,05:30,06:00,06:30,07:00,07:30,08:00,08:30,09:00,09:30,10:00,10:30,11:00,11:30,12:00,12:30,13:00,13:30,14:00,14:30,15:00,15:30', 'mon-fri 09:00,17:00']) {
  let r;
  try {
    r = plan({ slots });
  } catch (err) {
    // Two slots a weekday hold fewer than 10,000 posts within the 365 days the service schedules ahead.
    console.log(`  --slots "${slots.slice(0, 30)}…"  ${err.message.slice(0, 100)}`);
    continue;
  }
  const ok = r.s <= GOAL_S && r.mb <= GOAL_MB;
  missed ||= !ok;
  console.log(`  --slots "${slots.slice(0, 24)}…"   ${r.s.toFixed(2).padStart(6)} s  +${r.mb.toFixed(0)} MB peak RSS  (${(r.s / base.s).toFixed(1)}x the baseline's time) ${ok ? 'OK' : 'MISSED'}`);
}

// The whole dry-run, through the built bin.
const { child: emulator, info } = await startEmulator(BIN, { env: { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'emu') } });
const key = info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key;
const env = { ...process.env, VIDPUB_BASE_URL: info.base_url, VIDPUB_API_KEY: key, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_INPUT: '1', NO_COLOR: '1', TZ: 'Europe/Berlin' };
writeFileSync(join(dir, 'backlog.csv'), 'media,to,caption\n' + Array.from({ length: ITEMS }, (_, i) => `med_demo_sample,linkedin,Episode ${i + 1}\n`).join(''));
function run(extra) {
  const args = [BIN, 'batch', 'backlog.csv', '--dry-run', '--wait-for-quota', ...extra];
  const started = process.hrtime.bigint();
  const r = hasTime ? spawnSync(TIME, ['-v', process.execPath, ...args], { cwd: dir, env, encoding: 'utf8', maxBuffer: 1 << 30 }) : spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const s = Number(process.hrtime.bigint() - started) / 1e9;
  const mb = hasTime ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]) / 1024 : NaN;
  return { s, mb, code: hasTime ? Number(/Exit status: (\d+)/.exec(r.stderr)?.[1]) : r.status };
}
const plain = run([]);
const slotted = run(['--slots', 'daily 00:00,00:30,01:00,01:30,02:00,02:30,03:00,03:30,04:00,04:30,05:00,05:30,06:00,06:30,07:00,07:30,08:00,08:30,09:00,09:30,10:00,10:30,11:00,11:30,12:00,12:30,13:00,13:30,14:00,14:30', '--from', 'tomorrow 0:00']);
console.log(`batch --dry-run of ${ITEMS.toLocaleString('en-US')} items (whole process${hasTime ? ', /usr/bin/time -v' : ''})`);
console.log(`  without --slots (baseline)  exit ${plain.code}  ${plain.s.toFixed(2)} s  ${plain.mb.toFixed(0)} MB peak RSS`);
console.log(`  with --slots                exit ${slotted.code}  ${slotted.s.toFixed(2)} s  ${slotted.mb.toFixed(0)} MB peak RSS  (${(slotted.s / plain.s).toFixed(2)}x the time, ${(slotted.mb / plain.mb).toFixed(2)}x the RSS)`);
emulator.kill();
if (missed || slotted.code !== 0) process.exitCode = 1;

// The environment of every process a benchmark starts (imported first by each
// bench, it edits this process's env, which the children inherit).
//
// NODE_EXTRA_CA_CERTS names a file of certificates that Node reads and parses
// in every process, before any code runs, whatever the program (`node -e 0`
// included) and whether it makes a TLS connection or not. Where a machine sets
// it (some sandboxes and corporate setups point it at the whole system bundle,
// ~150 certificates), it adds tens of ms of CPU to every process: it would
// inflate the `node -e 0` baseline that the start-up ratios divide by, hiding
// vidpub's own start-up cost, and count against vidpub beside curl, which does
// not read it. So the benchmarks run without it, and say so with what it
// costs here (envNote). VIDPUB_BENCH_KEEP_ENV=1 keeps the environment as it is.
import { spawnSync } from 'node:child_process';

const SET_ASIDE = ['NODE_EXTRA_CA_CERTS'];

/** What was taken out of the environment: name → value. */
export const setAside = {};
if (process.env.VIDPUB_BENCH_KEEP_ENV !== '1') {
  for (const name of SET_ASIDE) {
    if (process.env[name] !== undefined) {
      setAside[name] = process.env[name];
      delete process.env[name];
    }
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Wall time (ms) of one `node -e 0` with the given env. */
function nodeStart(env) {
  const t0 = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/**
 * One line on the environment: what was set aside and what it costs a Node
 * process here (`node -e 0` with and without it, `runs` interleaved runs
 * each), or that nothing was.
 */
export function envNote(runs = 7) {
  const names = Object.keys(setAside);
  if (process.env.VIDPUB_BENCH_KEEP_ENV === '1') return 'environment: kept as it is (VIDPUB_BENCH_KEEP_ENV=1)';
  if (names.length === 0) return `environment: no ${SET_ASIDE.join(', ')} to set aside`;
  const withIt = { ...process.env, ...setAside };
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
    a.push(nodeStart(withIt));
    b.push(nodeStart(process.env));
  }
  return `environment: ${names.join(', ')} set aside for every process measured (node -e 0: ${median(a).toFixed(0)} ms with it, ${median(b).toFixed(0)} ms without; see bench/node-env.mjs; VIDPUB_BENCH_KEEP_ENV=1 keeps it)`;
}

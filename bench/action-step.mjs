// `node bench/action-step.mjs`: the GitHub Action's two steps (action.yml: set up, post) timed as
// whole processes with /usr/bin/time, on copies of this checkout as a runner downloads them:
//   - "release ref": the sources with the prebuilt dist/ a release carries (run `npm run build`
//     first); the setup step finds it fresh and does nothing;
//   - "other ref": the sources without dist/ or node_modules; the setup step runs `npm ci`
//     (which builds) with an empty npm cache, as a fresh runner has.
// Both post the same clip to one destination of an emulator started here. Not part of
// `npm run bench`: the second case downloads the dependencies from the npm registry.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from './emulator.mjs';
import { SOURCES } from '../scripts/action/bundle.mjs';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'vidpub.js');
const work = mkdtempSync(join(tmpdir(), 'vidpub-action-step-'));
// The service's own processing and publishing take no time here: what is timed is the step's.
const { child, info } = await startEmulator(bin, { args: ['--processing-ms', '0', '--publish-ms', '0'] });

/** A copy of the checkout as a ref of the action: the sources, bin/, scripts/, action.yml, and dist/ when asked. */
function checkout(name, withDist) {
  const dir = join(work, name);
  for (const p of [...SOURCES, 'bin', 'scripts', 'action.yml', ...(withDist ? ['dist'] : [])]) {
    cpSync(join(root, p), join(dir, p), { recursive: true });
  }
  return dir;
}

/** action.yml's steps, each as a bash script run as the runner would (inputs in INPUT_*). */
function stepScripts(actionPath) {
  const steps = {
    setup: `if ! node "${actionPath}/scripts/action/bundle.mjs" check; then cd "${actionPath}" && npm ci --no-audit --no-fund --cache "${actionPath}.npm-cache" >/dev/null; fi`,
    post: `node "${actionPath}/scripts/action/run.mjs" > /dev/null`,
  };
  return Object.entries(steps).map(([name, line]) => {
    const script = `${actionPath}-${name}.sh`;
    writeFileSync(script, `set -eo pipefail\n${line}\n`);
    return [name, script];
  });
}

function timed(name, actionPath) {
  const home = join(work, `${name}-home`);
  mkdirSync(home);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    INPUT_FILE: join(root, 'test', 'fixtures', 'clip.mp4'),
    INPUT_TO: 'youtube',
    INPUT_CAPTION: 'Timed',
    'INPUT_API-KEY': info.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write').key,
    'INPUT_BASE-URL': info.base_url,
  };
  for (const [step, script] of stepScripts(actionPath)) {
    const r = spawnSync('/usr/bin/time', ['-f', '%e s wall, %U s user, %S s system, %M KB max RSS', 'bash', script], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${name}: the ${step} step failed (${r.status}):\n${r.stdout}${r.stderr}`);
    const figures = r.stderr.trim().split('\n').pop();
    console.log(`${name.padEnd(12)} ${step.padEnd(6)} ${figures}`);
  }
}

try {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  timed('release ref', checkout('release', true));
  timed('other ref', checkout('other', false));
} finally {
  child.kill();
  rmSync(work, { recursive: true, force: true });
}

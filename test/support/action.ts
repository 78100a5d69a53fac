/**
 * action.yml run as the runner runs a composite action: each step's `run` in bash with its `env`,
 * the ${{ }} expressions of action.yml filled in (inputs with their defaults, github.action_path,
 * steps.<id>.outputs), a GITHUB_OUTPUT and a GITHUB_STEP_SUMMARY file per step, and the action's
 * outputs read back through its `outputs:` map (the runner's own parser of GITHUB_OUTPUT:
 * name=value and name<<DELIMITER).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { afterAll, expect } from 'vitest';
import { ROOT, runAsync } from './build.js';
// @ts-expect-error -- plain JavaScript run by the runner, without types
import { staleBundle } from '../../scripts/action/bundle.mjs';

/** action.yml's step that builds vidpub when the checkout's dist/ is not built from its sources. */
const SET_UP = 'Set up vidpub';

interface Step {
  name?: string;
  id?: string;
  shell: string;
  env?: Record<string, string>;
  run: string;
}
export interface ActionYml {
  inputs: Record<string, { default?: string; required?: boolean; description: string }>;
  outputs: Record<string, { value: string; description: string }>;
  runs: { using: string; steps: Step[] };
}

export function readActionYml(root = ROOT): ActionYml {
  return parse(readFileSync(join(root, 'action.yml'), 'utf8')) as ActionYml;
}

/** GITHUB_OUTPUT's lines: name=value, or name<<DELIMITER ... DELIMITER. */
export function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`GITHUB_OUTPUT: no end of ${heredoc[1]}`);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i]!.includes('=')) {
      const at = lines[i]!.indexOf('=');
      out[lines[i]!.slice(0, at)] = lines[i]!.slice(at + 1);
    }
  }
  return out;
}

export interface ActionRun {
  code: number;
  log: string;
  outputs: Record<string, string>;
  summary: string;
  /** Whole-process wall time of the steps, ms. */
  ms: number;
}

export interface RunOptions {
  /** GITHUB_* variables over the defaults. */
  github?: Record<string, string>;
  /** The action's checkout (github.action_path); default, this repository. */
  actionPath?: string;
  /** PATH for the steps. */
  path?: string;
  /**
   * The step `node "${{ github.action_path }}/scripts/action/run.mjs"` run in this process: that
   * script's own runAction (imported from the action's checkout), given what the runner would give
   * the node process (the step's environment, its working directory for vidpub; what it prints is
   * the log, what it returns the step's exit code). A node start saved per run; the other steps, and
   * vidpub, still run as processes. A file runs at least one post through the whole step (bash, node).
   */
  inProcess?: boolean;
}

/** The run of the step action.yml's `inProcess` replaces: nothing but node on the action's script. */
const RUN_SCRIPT = /^node "(.+)\/scripts\/action\/run\.mjs"\n?$/;

interface StepScript {
  runAction(env: Record<string, string | undefined>, opts: { actionPath: string; out: (text: string) => void; cwd?: string }): Promise<number>;
}

/** The step's script run in this process (see RunOptions.inProcess): its log and exit code. */
async function runScriptInProcess(script: string, actionPath: string, env: Record<string, string | undefined>, cwd: string): Promise<{ status: number; log: string }> {
  const node = RUN_SCRIPT.exec(script);
  if (!node || node[1] !== actionPath) throw new Error(`action.yml: the step that runs in-process is not \`node "${actionPath}/scripts/action/run.mjs"\`:\n${script}`);
  const { runAction } = (await import(pathToFileURL(join(actionPath, 'scripts', 'action', 'run.mjs')).href)) as StepScript;
  let log = '';
  const status = await runAction(env, { actionPath, out: (text) => (log += text), cwd });
  return { status, log };
}

/**
 * A runner: a temporary directory per run, removed after the file's tests. With `setUpOnce`, the
 * set-up step runs in the first run of each checkout whose `vidpub` input is empty, and later such
 * runs leave it out: it does the same thing each time (node scripts/action/bundle.mjs check, which
 * passes, so no npm ci) for a file whose tests change neither dist/ nor src/, and it is a node
 * start per run. Not for a file that makes a checkout's dist/ stale between runs.
 */
export function actionRunner(opts: { setUpOnce?: boolean } = {}): (inputs: Record<string, string>, opts?: RunOptions) => Promise<ActionRun> {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-action-'));
  let runs = 0;
  const setUp = new Set<string>();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return async (inputs, runOpts = {}) => {
    const actionPath = runOpts.actionPath ?? ROOT;
    // The set-up step runs `npm ci` in the action's checkout when its dist/ is not built from its sources: here that
    // would be this checkout, its node_modules taken away under every test running beside this one. Refused instead
    // (the step's own check, bundle.mjs's staleBundle, asked here in this process), when the step is to run its check:
    // not with the `vidpub` input, nor once `setUpOnce` has run it.
    const settingUp = !inputs.vidpub && !(opts.setUpOnce && setUp.has(actionPath));
    if (actionPath === ROOT && settingUp && (staleBundle as (root: string) => string | undefined)(ROOT) !== undefined) {
      throw new Error('dist/ is not built from src/ (the Action would run npm ci in this checkout): run `npm run build` before the tests');
    }
    const action = readActionYml(actionPath);
    const run = join(dir, `run-${++runs}`);
    const home = join(run, 'home'); // a fresh runner: no state from an earlier attempt
    mkdirSync(home, { recursive: true });
    const steps: Record<string, Record<string, string>> = {};
    const expr = (text: string): string =>
      text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, e: string) => {
        const input = /^inputs\.([\w-]+)$/.exec(e);
        if (input) return inputs[input[1]!] ?? action.inputs[input[1]!]?.default ?? '';
        if (e === 'github.action_path') return actionPath;
        const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
        if (output) return steps[output[1]!]?.[output[2]!] ?? '';
        throw new Error(`action.yml: this test does not evaluate \${{ ${e} }}`);
      });
    const base = {
      PATH: runOpts.path ?? process.env.PATH,
      HOME: home,
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'octo/videos',
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_JOB: 'publish',
      GITHUB_ACTION: 'release-video',
      ...runOpts.github,
    };
    let log = '';
    let summary = '';
    const started = performance.now();
    expect(action.runs.steps.map((s) => s.name)).toContain(SET_UP);
    for (const [i, step] of action.runs.steps.entries()) {
      expect(step.shell).toBe('bash');
      if (step.name === SET_UP && opts.setUpOnce && !inputs.vidpub && setUp.has(actionPath)) continue;
      const files = { GITHUB_OUTPUT: join(run, `output-${i}`), GITHUB_STEP_SUMMARY: join(run, `summary-${i}`) };
      for (const f of Object.values(files)) writeFileSync(f, '');
      const env = { ...base, ...files, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expr(String(v))])) };
      const text = expr(step.run);
      let r: { status: number | null; log: string };
      if (runOpts.inProcess && step.id === 'post') {
        r = await runScriptInProcess(text, actionPath, env, run);
      } else {
        const script = join(run, `step-${i}.sh`);
        writeFileSync(script, text);
        const ran = await runAsync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { env, cwd: run, timeoutMs: 120_000 });
        r = { status: ran.status, log: ran.stdout + ran.stderr };
      }
      log += r.log;
      summary += readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
      if (step.id) steps[step.id] = readOutputs(files.GITHUB_OUTPUT);
      if (step.name === SET_UP && r.status === 0 && !inputs.vidpub) setUp.add(actionPath);
      if (r.status !== 0) {
        const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, o]) => [name, expr(o.value)]));
        return { code: r.status ?? -1, log, outputs, summary, ms: performance.now() - started };
      }
    }
    const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, o]) => [name, expr(o.value)]));
    return { code: 0, log, outputs, summary, ms: performance.now() - started };
  };
}

/**
 * The workflow commands the runner would act on in a log, as it reads them: a line starting
 * with `::` after blanks, none between `::stop-commands::TOKEN` and `::TOKEN::`.
 */
export function commandsRead(log: string): string[] {
  const read: string[] = [];
  let stopped: string | undefined;
  for (const raw of log.split('\n')) {
    const line = raw.trimStart();
    if (stopped !== undefined) {
      if (line === `::${stopped}::`) stopped = undefined;
      continue;
    }
    if (!line.startsWith('::')) continue;
    read.push(line);
    const stop = /^::stop-commands::(.*)$/.exec(line);
    if (stop) stopped = stop[1];
  }
  return read;
}

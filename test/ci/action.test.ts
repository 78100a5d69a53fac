/**
 * action.yml run as the runner runs a composite action: each step's `run` in bash with its `env`,
 * the ${{ }} expressions of action.yml filled in (inputs with their defaults, github.action_path,
 * steps.<id>.outputs), a GITHUB_OUTPUT and a GITHUB_STEP_SUMMARY file per step, and the action's
 * outputs read back through its `outputs:` map. Against the emulator, with the built checkout
 * (node bin/vidpub.js) as the action's vidpub.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';

interface Step {
  id?: string;
  shell: string;
  env?: Record<string, string>;
  run: string;
}
interface ActionYml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;
const emu = useEmulator();
const dir = mkdtempSync(join(tmpdir(), 'vidpub-action-'));
let runs = 0;

beforeAll(() => ensureBuilt());
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** GITHUB_OUTPUT's lines: name=value, or name<<DELIMITER ... DELIMITER. */
function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i]!.includes('=')) {
      const at = lines[i]!.indexOf('=');
      out[lines[i]!.slice(0, at)] = lines[i]!.slice(at + 1);
    }
  }
  return out;
}

interface ActionRun {
  code: number;
  log: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Runs action.yml's steps in order, as the runner does; stops at the first that fails. */
async function runAction(inputs: Record<string, string>, github: Record<string, string> = {}): Promise<ActionRun> {
  const run = join(dir, `run-${++runs}`);
  const home = join(run, 'home'); // a fresh runner: no state from an earlier attempt
  mkdirSync(home, { recursive: true });
  const steps: Record<string, Record<string, string>> = {};
  const expr = (text: string): string =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, e: string) => {
      const input = /^inputs\.([\w-]+)$/.exec(e);
      if (input) return inputs[input[1]!] ?? action.inputs[input[1]!]?.default ?? '';
      if (e === 'github.action_path') return ROOT;
      const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
      if (output) return steps[output[1]!]?.[output[2]!] ?? '';
      throw new Error(`action.yml: this test does not evaluate \${{ ${e} }}`);
    });
  const base = {
    PATH: process.env.PATH,
    HOME: home,
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'octo/videos',
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'publish',
    GITHUB_ACTION: 'release-video',
    ...github,
  };
  let log = '';
  let summary = '';
  for (const [i, step] of action.runs.steps.entries()) {
    expect(step.shell).toBe('bash');
    const files = { GITHUB_OUTPUT: join(run, `output-${i}`), GITHUB_STEP_SUMMARY: join(run, `summary-${i}`) };
    for (const f of Object.values(files)) writeFileSync(f, '');
    const env = { ...base, ...files, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expr(String(v))])) };
    const script = join(run, `step-${i}.sh`);
    writeFileSync(script, expr(step.run));
    const r = await runAsync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { env, cwd: run, timeoutMs: 60_000 });
    log += r.stdout + r.stderr;
    summary += readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    if (step.id) steps[step.id] = readOutputs(files.GITHUB_OUTPUT);
    if (r.status !== 0) return { code: r.status ?? -1, log, outputs: {}, summary };
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, o]) => [name, expr(o.value)]));
  return { code: 0, log, outputs, summary };
}

const clip = join(ROOT, 'test', 'fixtures', 'clip.mp4');
const basics = (): Record<string, string> => ({ file: clip, to: 'youtube,linkedin', caption: 'Release 1.2', 'api-key': emu.key(), 'base-url': emu.baseUrl });

/** The posts the emulator made (not replays). */
async function postsMade(): Promise<number> {
  return (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts' && r.status === 201 && !r.replayed).length;
}

describe('action.yml', () => {
  it('is a composite action whose inputs are the documented ones', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual(
      ['api-key', 'at', 'base-url', 'caption', 'draft', 'file', 'idempotency-key', 'media', 'options', 'timeout', 'to', 'url', 'vidpub', 'wait'],
    );
    expect(Object.keys(action.outputs).sort()).toEqual(['media-id', 'post-id', 'status', 'urls']);
  });

  it('posts, masks the key, sets the outputs and writes the summary table', async () => {
    const r = await runAction(basics());
    expect(r.code, r.log).toBe(0);
    expect(r.log.split('\n')[0]).toBe(`::add-mask::${emu.key()}`);
    expect(r.log.split(emu.key()).length).toBe(2); // the mask line only
    expect(r.outputs['post-id']).toMatch(/^post_\w+$/);
    expect(r.outputs['media-id']).toMatch(/^med_\w+$/);
    expect(r.outputs.status).toBe('completed');
    const urls = JSON.parse(r.outputs.urls!) as string[];
    expect(urls).toHaveLength(2);
    for (const u of urls) expect(u).toMatch(/\/_emulator\/published\/post_\w+\/dst_demo_(youtube|linkedin)$/);
    expect(r.summary).toContain(`### vidpub: post ${r.outputs['post-id']} (completed)`);
    expect(r.summary).toContain('| Destination | Status | URL | Note |');
    expect(r.summary).toMatch(/\| dst_demo_youtube \| published \| http:\/\/\S+ \|/);
    expect(r.summary).toMatch(/\| dst_demo_linkedin \| published \| http:\/\/\S+ \|/);
  });

  it('replays the first post when the same run is re-run, and posts anew in another run', async () => {
    const first = await runAction(basics());
    expect(first.code, first.log).toBe(0);
    const again = await runAction(basics(), { GITHUB_RUN_ATTEMPT: '2' });
    expect(again.code, again.log).toBe(0);
    expect(again.outputs['post-id']).toBe(first.outputs['post-id']);
    expect(await postsMade()).toBe(1);
    const other = await runAction(basics(), { GITHUB_RUN_ID: '4243' });
    expect(other.code, other.log).toBe(0);
    expect(other.outputs['post-id']).not.toBe(first.outputs['post-id']);
    expect(await postsMade()).toBe(2);
  });

  it('passes draft, wait, options and an idempotency-key of its own through', async () => {
    const r = await runAction({ ...basics(), to: 'tiktok', options: 'privacy=SELF_ONLY', draft: 'true', 'idempotency-key': 'release-1.2' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.status).toBe('draft');
    expect(r.outputs.urls).toBe('[]');
    const posted = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts');
    // vidpub derives each request's key from the one given (release-1.2:post for the post).
    expect(posted.map((q) => q.idempotency_key)).toEqual([expect.stringMatching(/^release-1\.2\b/)]);
  });

  it('fails the step with vidpub\'s exit code and its message as an ::error:: line', async () => {
    const r = await runAction({ ...basics(), to: '@nobody-here' });
    expect(r.code).toBe(2);
    expect(r.log).toMatch(/^::error title=vidpub \(exit 2\)::.*@nobody-here/m);
    expect(r.outputs).toEqual({});
  });

  it('fails with exit 3 when the key is refused, the key still masked', async () => {
    const r = await runAction({ ...basics(), 'api-key': 'vp_live_nope_0000000000000000' });
    expect(r.code).toBe(3);
    expect(r.log.split('\n')[0]).toBe('::add-mask::vp_live_nope_0000000000000000');
    expect(r.log).toMatch(/^::error title=vidpub \(exit 3\)::.*key/im);
  });

  it('fails with exit 2 before running vidpub when not exactly one of file, url and media is given', async () => {
    const r = await runAction({ ...basics(), media: 'med_demo_sample' });
    expect(r.code).toBe(2);
    expect(r.log).toContain('::error title=vidpub (exit 2)::give exactly one of the inputs file, url and media (given: file, media)');
    expect(await emu.requests()).toEqual([]);
  });
});

// The step of the GitHub Action (action.yml at the root of the repository): posts a video with
// `vidpub post ... --no-input --json` and hands the result to the workflow.
//
// - Inputs come as INPUT_<NAME> variables, the name upper-cased with its hyphens kept
//   (INPUT_IDEMPOTENCY-KEY), as the runner names them; action.yml passes each one on.
// - The API key is masked (::add-mask::) before anything else is printed, and reaches vidpub
//   through VIDPUB_API_KEY only: never on a command line.
// - Without an idempotency-key input, the key is a hash of the repository, the run id, the job,
//   the step, the video and the destinations: re-running a failed job (a new GITHUB_RUN_ATTEMPT,
//   left out on purpose) sends the same key, so the service replays the first post instead of
//   making a second one. The caption is left out too (it may carry a time stamp).
// - Outputs (GITHUB_OUTPUT): post-id, media-id, status, urls (a JSON array of the published
//   links); a table of the destinations in the job summary (GITHUB_STEP_SUMMARY).
// - vidpub's exit code is the step's: on a failure, its message and hint become an ::error::
//   annotation naming the exit code. A post that exists but did not go out everywhere (exit 6,
//   7) still sets the outputs and the summary.
//
// vidpub itself: the executable named by the `vidpub` input, else the single executable built
// in the action's checkout (dist/sea/), else `node bin/vidpub.js` there (action.yml's first step
// builds it when it is missing).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** An input as the runner passes it (INPUT_ + the name upper-cased, hyphens kept), trimmed. */
export function input(env, name) {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** A workflow command's data, escaped as the runner expects (% and line breaks). */
function escapeData(text) {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** The default Idempotency-Key: the same for every attempt of one job's step on one video. */
export function defaultIdempotencyKey(env, source, to) {
  const parts = [env.GITHUB_REPOSITORY, env.GITHUB_RUN_ID, env.GITHUB_JOB, env.GITHUB_ACTION, source, to];
  if (!env.GITHUB_RUN_ID || !env.GITHUB_JOB) return undefined;
  return `gha-${createHash('sha256').update(parts.map((p) => p ?? '').join('\n')).digest('hex').slice(0, 32)}`;
}

/** The arguments of `vidpub post` for the inputs, or a message naming the input that is wrong. */
export function postArgs(env) {
  const sources = ['file', 'url', 'media'].filter((name) => input(env, name));
  if (sources.length !== 1) return { problem: `give exactly one of the inputs file, url and media (given: ${sources.join(', ') || 'none'})` };
  const to = input(env, 'to');
  if (!to) return { problem: 'the input "to" is required: the destinations to post to (ids, @handles or platforms, comma-separated)' };
  const [kind] = sources;
  const source = input(env, kind);
  const args = ['post', ...(kind === 'media' ? ['--media', source] : [source]), '--to', to];
  if (input(env, 'caption')) args.push('--caption', input(env, 'caption'));
  for (const line of input(env, 'options').split('\n')) if (line.trim()) args.push('--option', line.trim());
  if (input(env, 'at')) args.push('--at', input(env, 'at'));
  if (input(env, 'draft') === 'true') args.push('--draft');
  if (input(env, 'wait') === 'false') args.push('--no-wait');
  if (input(env, 'timeout')) args.push('--timeout', input(env, 'timeout'));
  const key = input(env, 'idempotency-key') || defaultIdempotencyKey(env, `${kind}:${source}`, to);
  if (key) args.push('--idempotency-key', key);
  return { args: [...args, '--no-input', '--json'] };
}

/** How to run vidpub: [command, ...arguments before the command's own]. */
export function vidpubCommand(env, actionPath) {
  const given = input(env, 'vidpub');
  if (given) return [given];
  const sea = join(actionPath, 'dist', 'sea', `vidpub-linux-${process.arch}`);
  if (existsSync(sea)) return [sea];
  return [process.execPath, join(actionPath, 'bin', 'vidpub.js')];
}

function summaryTable(post) {
  const rows = (post.destinations ?? []).map((d) => {
    const note = d.failure?.message ?? d.warning ?? '';
    return `| ${d.destination_id} | ${d.status} | ${d.url ?? ''} | ${note.replace(/\|/g, '\\|')} |`;
  });
  return [`### vidpub: post ${post.id} (${post.status})`, '', '| Destination | Status | URL | Note |', '|---|---|---|---|', ...rows, ''].join('\n');
}

function setOutputs(env, post) {
  const urls = (post.destinations ?? []).map((d) => d.url).filter(Boolean);
  const lines = [`post-id=${post.id}`, `media-id=${post.media_id ?? ''}`, `status=${post.status}`, `urls=${JSON.stringify(urls)}`];
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, lines.join('\n') + '\n');
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summaryTable(post) + '\n');
}

/** vidpub's error (the JSON object --json prints on stderr), else its stderr as it is. */
function failureMessage(stderr, code) {
  const last = stderr.trim().split('\n').pop() ?? '';
  try {
    const { error } = JSON.parse(last);
    return `${error.message}${error.hint ? `\n${error.hint}` : ''}`;
  } catch {
    return stderr.trim() || `vidpub exited with ${code}`;
  }
}

/** Runs the step; returns the exit code for the step. `out` receives workflow commands and logs. */
export function runAction(env, { actionPath, out }) {
  const apiKey = input(env, 'api-key');
  if (apiKey) out(`::add-mask::${apiKey}\n`);
  const { args, problem } = postArgs(env);
  if (problem) {
    out(`::error title=vidpub (exit 2)::${escapeData(problem)}\n`);
    return 2;
  }
  const childEnv = { ...env, VIDPUB_NO_INPUT: '1' };
  if (apiKey) childEnv.VIDPUB_API_KEY = apiKey;
  if (input(env, 'base-url')) childEnv.VIDPUB_BASE_URL = input(env, 'base-url');
  const [command, ...before] = vidpubCommand(env, actionPath);
  const run = spawnSync(command, [...before, ...args], { env: childEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  if (run.error) {
    out(`::error title=vidpub::${escapeData(`could not run ${command}: ${run.error.message}`)}\n`);
    return 1;
  }
  out(run.stderr);
  const code = run.status ?? 1;
  let post;
  try {
    post = JSON.parse(run.stdout);
  } catch {
    post = undefined;
  }
  if (post?.id) setOutputs(env, post);
  if (code !== 0) out(`::error title=vidpub (exit ${code})::${escapeData(failureMessage(run.stderr, code))}\n`);
  return code;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const actionPath = join(import.meta.dirname, '..', '..');
  process.exitCode = runAction(process.env, { actionPath, out: (text) => process.stdout.write(text) });
}

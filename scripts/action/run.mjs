// The step of the GitHub Action (action.yml at the root of the repository): posts a video with
// `vidpub post ... --no-input --json` and hands the result to the workflow.
//
// - Inputs come as INPUT_<NAME> variables, the name upper-cased with its hyphens kept
//   (INPUT_IDEMPOTENCY-KEY), as the runner names them; action.yml passes each one on.
// - The API key is masked (::add-mask::) before anything else is printed, and reaches vidpub
//   through VIDPUB_API_KEY only: never on a command line.
// - The log: only this script writes workflow commands. What vidpub prints (file names, captions,
//   the service's messages inside) is copied between `::stop-commands::TOKEN` and `::TOKEN::`,
//   TOKEN fresh and random for each run, so the runner reads none of it as a command, and each
//   of its lines that would look like one (`::` at its start, `##[` anywhere) is escaped too
//   (logLine), so no line of it starts with `::`. Control characters are shown escaped.
// - Without an idempotency-key input, the key is a hash of the repository, the run id, the job,
//   the step, the video and the destinations: re-running a failed job (a new GITHUB_RUN_ATTEMPT,
//   left out on purpose) sends the same key, so the service replays the first post instead of
//   making a second one. The caption is left out too (it may carry a time stamp).
// - Outputs (GITHUB_OUTPUT, each in the heredoc form with a random delimiter): post-id, media-id,
//   status (vidpub's word for the post: postState below), urls (a JSON array of the published
//   links); a table of the destinations in the job summary (GITHUB_STEP_SUMMARY). Built from
//   vidpub's --json record whatever shape its fields have (a warning as an object, a string or
//   missing): a record this script cannot read costs a ::warning::, never the step.
// - vidpub's exit code is the step's: on a failure, its message and hint become an ::error::
//   annotation naming the exit code, with vidpub's flags named as the action's inputs. A post
//   that exists but did not go out everywhere (exit 6, 7) still sets the outputs and the summary.
//
// - With the input manifest, the step runs `vidpub batch MANIFEST --yes --no-input --json` instead
//   (with --shard SHARD and --report FILE when those inputs are given: a matrix job posts its
//   shard and leaves its report for a later job's `vidpub batch report`); the summary counts the
//   items by status. The post inputs (file, url, media, to, caption...) are refused beside it.
//
// vidpub itself: the executable named by the `vidpub` input, else the single executable built
// in the action's checkout (dist/sea/), else `node bin/vidpub.js` there (the prebuilt dist/ of a
// release, or the one action.yml's first step builds: scripts/action/bundle.mjs).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
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

/**
 * One line of text this script did not write, made safe for the log: control characters shown
 * escaped (\e, \x07, ...: no terminal sequence reaches the log viewer), and a line the runner
 * would read as a workflow command (`::` at its start after blanks, `##[` anywhere) shown with
 * a backslash in it (`\::error::...`).
 */
export function logLine(line) {
  // eslint-disable-next-line no-control-regex -- the control characters are what is looked for
  const shown = line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (ch) =>
    ch === '\u001b' ? '\\e' : `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return shown.replace(/^(\s*):/, '$1\\:').replace(/##\[/g, '#\\#[');
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
  const caption = input(env, 'caption');
  const noCaption = input(env, 'no-caption') === 'true';
  if (caption && noCaption) return { problem: 'give the input "caption" or "no-caption: true", not both' };
  if (!caption && !noCaption) {
    return { problem: 'the input "caption" is empty: give the caption (caption: TEXT),\nor "no-caption: true" to post without one' };
  }
  const [kind] = sources;
  const source = input(env, kind);
  const args = ['post', ...(kind === 'media' ? ['--media', source] : [source]), '--to', to, '--caption', caption];
  for (const line of input(env, 'options').split('\n')) if (line.trim()) args.push('--option', line.trim());
  if (input(env, 'at')) args.push('--at', input(env, 'at'));
  if (input(env, 'draft') === 'true') args.push('--draft');
  if (input(env, 'wait') === 'false') args.push('--no-wait');
  if (input(env, 'timeout')) args.push('--timeout', input(env, 'timeout'));
  const key = input(env, 'idempotency-key') || defaultIdempotencyKey(env, `${kind}:${source}`, to);
  if (key) args.push('--idempotency-key', key);
  return { args: [...args, '--no-input', '--json'] };
}

/** The post inputs, which a batch (the manifest input) does not take. */
const POST_ONLY = ['file', 'url', 'media', 'to', 'caption', 'options', 'at', 'idempotency-key'];

/**
 * The arguments of `vidpub batch` for the manifest input (with shard and report), or a message
 * naming the input that is wrong. Each item's key comes from the manifest and the item (batch's
 * own), the same on any runner: a job run again replays what it posted.
 */
export function batchArgs(env) {
  const manifest = input(env, 'manifest');
  const extra = POST_ONLY.filter((name) => input(env, name));
  if (extra.length) return { problem: `the input "manifest" runs a batch: its items say what to post; leave out ${extra.join(', ')}` };
  // A manifest named "-" would wait for stdin, which a step does not have; a path starting with "-" is not a flag.
  const args = ['batch', manifest.startsWith('-') ? `./${manifest}` : manifest];
  if (input(env, 'shard')) args.push('--shard', input(env, 'shard'));
  if (input(env, 'report')) args.push('--report', input(env, 'report'));
  if (input(env, 'wait') === 'false') args.push('--no-wait');
  if (input(env, 'timeout')) args.push('--timeout', input(env, 'timeout'));
  return { args: [...args, '--yes', '--no-input', '--json'] };
}

/** The step's summary of a batch: the items by status. */
function batchSummary(doc, env) {
  const items = Array.isArray(doc?.items) ? doc.items.filter((it) => it && typeof it === 'object') : [];
  const counts = new Map();
  for (const it of items) counts.set(str(it.status) || 'unknown', (counts.get(str(it.status) || 'unknown') ?? 0) + 1);
  const shard = input(env, 'shard');
  const rows = [...counts].map(([status, n]) => `| ${cell(status)} | ${n} |`);
  return [`### vidpub batch: ${cell(input(env, 'manifest'))}${shard ? ` (shard ${cell(shard)})` : ''}`, '', '| Status | Items |', '|---|---:|', ...rows, ''].join('\n');
}

/** How to run vidpub: [command, ...arguments before the command's own]. */
export function vidpubCommand(env, actionPath) {
  const given = input(env, 'vidpub');
  if (given) return [given];
  const sea = join(actionPath, 'dist', 'sea', `vidpub-linux-${process.arch}`);
  if (existsSync(sea)) return [sea];
  return [process.execPath, join(actionPath, 'bin', 'vidpub.js')];
}

const TERMINAL = new Set(['published', 'failed', 'cancelled']);

/**
 * The post's word as vidpub shows it (history, status, post): its status, but `failed` once it
 * is over with a destination failed or cancelled, and `completed` once every destination is
 * published (src/journal/post-fold.ts stateOf; test/ci/action.test.ts holds the two together).
 */
export function postState(post) {
  const dests = Array.isArray(post?.destinations) ? post.destinations.filter((d) => d && typeof d === 'object') : [];
  const status = typeof post?.status === 'string' ? post.status : '';
  const all = dests.length > 0 && dests.every((d) => typeof d.status === 'string' && TERMINAL.has(d.status));
  const bad = dests.some((d) => d.status === 'failed' || d.status === 'cancelled');
  if ((status === 'completed' || all) && bad) return 'failed';
  if (all) return 'completed';
  return status;
}

/** A warning or failure as text, whatever its shape: an object {code, message}, a string, a list of them, or nothing. */
export function noticeText(n) {
  if (n === null || n === undefined || n === false) return '';
  if (typeof n === 'string') return n;
  if (typeof n === 'number' || typeof n === 'boolean') return String(n);
  if (Array.isArray(n)) return n.map(noticeText).filter(Boolean).join('; ');
  if (typeof n === 'object') {
    const message = noticeText(n.message);
    const code = typeof n.code === 'string' ? n.code : '';
    if (message || code) return message && code ? `${message} (${code})` : message || code;
    try {
      return JSON.stringify(n);
    } catch {
      return '';
    }
  }
  return '';
}

/** A string field of a record, or '' (a missing or odd field never throws). */
const str = (v) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** Text from the service in a Markdown table cell: one line, no HTML, no Markdown of its own. */
function cell(text) {
  if (/^[\w.-]*$/.test(text)) return text; // an id, a status: nothing to escape
  return logLine(text)
    .replace(/[\r\n\t\u2028\u2029]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+!|~>]/g, '\\$&')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;');
}

/** A link the summary can show as one: http(s), nothing that ends it early. */
function linkCell(url) {
  return /^https?:\/\/[^\s<>"'`|\\]+$/.test(url) ? `<${url}>` : cell(url);
}

function destinationsOf(post) {
  return Array.isArray(post.destinations) ? post.destinations.filter((d) => d && typeof d === 'object') : [];
}

function summaryTable(post) {
  const rows = destinationsOf(post).map((d) => {
    const note = [noticeText(d.failure), noticeText(d.warning)].filter(Boolean).join('; ');
    return `| ${cell(str(d.destination_id))} | ${cell(str(d.status))} | ${linkCell(str(d.url))} | ${cell(note)} |`;
  });
  return [`### vidpub: post ${cell(str(post.id))} (${cell(postState(post))})`, '', '| Destination | Status | URL | Note |', '|---|---|---|---|', ...rows, ''].join('\n');
}

/** name<<DELIMITER, the value, DELIMITER: a value can hold no line that sets another output. */
function outputLines(name, value) {
  let delimiter;
  do delimiter = `ghadelimiter_${randomBytes(16).toString('hex')}`;
  while (value.includes(delimiter));
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

function setOutputs(env, post) {
  const urls = destinationsOf(post).map((d) => str(d.url)).filter(Boolean);
  const outputs = { 'post-id': str(post.id), 'media-id': str(post.media_id), status: postState(post), urls: JSON.stringify(urls) };
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, Object.entries(outputs).map(([k, v]) => outputLines(k, v)).join(''));
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summaryTable(post) + '\n');
}

/** vidpub's flags that are this action's inputs: its messages name the input instead. */
const FLAG_INPUTS = [
  [/--caption(?![\w-])/g, 'caption:'],
  [/--option ([^\s"]+)/g, 'options: $1'],
  [/--option(?![\w-])/g, 'options:'],
  [/--idempotency-key(?![\w-])/g, 'idempotency-key:'],
  [/--timeout(?![\w-])/g, 'timeout:'],
  [/--at(?![\w-])/g, 'at:'],
  [/--to(?![\w-])/g, 'to:'],
  [/--media(?![\w-])/g, 'media:'],
  [/--shard(?![\w-])/g, 'shard:'],
  [/--report(?![\w-])/g, 'report:'],
];

/** A message of vidpub with its flags named as the action's inputs. */
export function inInputs(text) {
  return FLAG_INPUTS.reduce((t, [re, to]) => t.replace(re, to), text);
}

/** vidpub's error (the JSON object --json prints on stderr), else its stderr as it is. */
function failureMessage(stderr, code) {
  const last = stderr.trim().split('\n').pop() ?? '';
  try {
    const { error } = JSON.parse(last);
    const text = `${noticeText(error.message)}${typeof error.hint === 'string' && error.hint ? `\n${error.hint}` : ''}`;
    if (text) return inInputs(text);
  } catch {
    // not vidpub's JSON error: the text as it is
  }
  return inInputs(stderr.trim()) || `vidpub exited with ${code}`;
}

/** Runs vidpub (in `cwd`, this process's own when undefined); its stderr goes to the log line by line, fenced and escaped, as it comes. */
function runVidpub(command, args, env, cwd, out) {
  return new Promise((resolve) => {
    const token = randomBytes(16).toString('hex');
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    let fenced = false;
    const fence = () => {
      if (!fenced) out(`::stop-commands::${token}\n`);
      fenced = true;
    };
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr += c;
      const lines = (partial + c).split('\n');
      partial = lines.pop() ?? '';
      if (lines.length === 0) return;
      fence();
      out(lines.map((l) => logLine(l.replace(/\r$/, '')) + '\n').join(''));
    });
    child.on('error', (error) => resolve({ error }));
    child.on('close', (status, signal) => {
      if (partial) {
        fence();
        out(logLine(partial) + '\n');
      }
      if (fenced) out(`::${token}::\n`);
      resolve({ status: status ?? (signal ? 128 + (signalNumber(signal) ?? 0) : 1), stdout, stderr });
    });
  });
}

function signalNumber(name) {
  return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[name];
}

/**
 * Runs the step; resolves to the exit code for the step. `out` receives workflow commands and logs;
 * vidpub runs in `cwd` (the step's working directory; this process's own when undefined, as in a step).
 */
export async function runAction(env, { actionPath, out, cwd }) {
  const apiKey = input(env, 'api-key');
  if (apiKey) out(`::add-mask::${apiKey}\n`);
  const batch = input(env, 'manifest') !== '';
  const { args, problem } = batch ? batchArgs(env) : postArgs(env);
  if (problem) {
    out(`::error title=vidpub (exit 2)::${escapeData(problem)}\n`);
    return 2;
  }
  const childEnv = { ...env, VIDPUB_NO_INPUT: '1' };
  if (apiKey) childEnv.VIDPUB_API_KEY = apiKey;
  if (input(env, 'base-url')) childEnv.VIDPUB_BASE_URL = input(env, 'base-url');
  const [command, ...before] = vidpubCommand(env, actionPath);
  const run = await runVidpub(command, [...before, ...args], childEnv, cwd, out);
  if (run.error) {
    out(`::error title=vidpub::${escapeData(logLine(`could not run ${command}: ${run.error.message}`))}\n`);
    return 1;
  }
  const code = run.status;
  let post;
  try {
    post = JSON.parse(run.stdout);
  } catch {
    post = undefined;
  }
  if (batch && post && typeof post === 'object' && env.GITHUB_STEP_SUMMARY) {
    try {
      appendFileSync(env.GITHUB_STEP_SUMMARY, batchSummary(post, env) + '\n');
    } catch (err) {
      out(`::warning title=vidpub::${escapeData(logLine(`the summary could not be written (${err?.message ?? err}); the step's result is vidpub's (exit ${code})`))}\n`);
    }
  } else if (post && typeof post === 'object' && typeof post.id === 'string') {
    try {
      setOutputs(env, post);
    } catch (err) {
      out(`::warning title=vidpub::${escapeData(logLine(`the outputs and summary could not be written (${err?.message ?? err}); the step's result is vidpub's (exit ${code})`))}\n`);
    }
  }
  if (code !== 0) out(`::error title=vidpub (exit ${code})::${escapeData(logLine(failureMessage(run.stderr, code)))}\n`);
  return code;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const actionPath = join(import.meta.dirname, '..', '..');
  process.exitCode = await runAction(process.env, { actionPath, out: (text) => process.stdout.write(text) });
}

/**
 * The one place an error becomes output and an exit code: the error line (or
 * one JSON object on stderr with --json), the hint, the data an error carries,
 * and for an unknown outcome the rerun line that settles it.
 */
import {
  AuthError,
  BlockedError,
  CancelledError,
  ConflictError,
  DeadlineReached,
  ExitCode,
  InterruptedError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitError,
  ServiceError,
  TimeoutError,
  UsageError,
  VidpubError,
  WorkFailedError,
  exitCodeOf,
  sanitize,
} from '../errors.js';
import { colorLevel, makeColors } from '../ui/color.js';
import { shellLine } from '../util/shell.js';
import { truthy } from '../util/env.js';
import { commandNameOf, splitJsonFields } from './argv.js';
import type { CommandPrinters, Invocation } from './command.js';
import { findCommand } from './commands/index.js';
import type { Context } from './context.js';
import { GLOBAL_FLAGS, anyFlags } from './flags.js';
import { printData } from './json-output.js';

const ERROR_TYPES: [new (...a: never[]) => VidpubError, string][] = [
  [UsageError, 'usage'],
  [AuthError, 'auth'],
  [RateLimitError, 'rate_limited'],
  [NotFoundError, 'not_found'],
  [WorkFailedError, 'failed'],
  [TimeoutError, 'timeout'],
  [BlockedError, 'blocked'],
  [ConflictError, 'conflict'],
  [OutcomeUnknownError, 'outcome_unknown'],
  [CancelledError, 'cancelled'],
  [InterruptedError, 'interrupted'],
  [ServiceError, 'service'],
];

const UNEXPECTED_HINT = 'Run again with --debug for details; if it keeps happening, please report it.';

/** The one JSON object an error becomes on stderr with --json: {"error":{type, code, message, exit_code, hint[, problems]}}. */
export function errorJson(error: unknown, exitCode: number, argv: string[] = []): string {
  const known = error instanceof VidpubError;
  const type = known ? (ERROR_TYPES.find(([cls]) => error instanceof cls)?.[1] ?? 'error') : 'unexpected';
  const code = known ? ((error as { code?: string }).code ?? error.http?.code ?? null) : null;
  const message = error instanceof Error ? error.message : String(error);
  const hint = known ? (error.hint ?? null) : UNEXPECTED_HINT;
  // A list of problems found at once (batch's manifest checks), one object each.
  const problems = known ? (error as { problems?: unknown }).problems : undefined;
  return JSON.stringify({ error: { type, code, message: sanitize(message), exit_code: exitCode, hint, ...(Array.isArray(problems) ? { problems } : {}), ...continuing(error, argv) } });
}

/** What a refusal that knows the run to continue adds to its JSON: the key and the line that continues it. */
function continuing(error: unknown, argv: string[]): Record<string, string> {
  if (!(error instanceof VidpubError) || error.continueKey === undefined) return {};
  return { idempotency_key: error.continueKey, rerun: rerunCommand(argv, error.continueKey, error.continueFlags) };
}

/**
 * The command line that reruns `argv` with `key` as its --idempotency-key (any
 * other one dropped; none added without a key), and each flag of `values` with the value given there in
 * place of the one typed (the time a relative --at resolved to). Which words
 * are flags and which are values is read as the parser reads them, from the
 * registry: the word after a flag that takes a value is its value whatever it
 * looks like (`--caption --at` is the caption "--at").
 */
export function rerunCommand(argv: string[], key: string | undefined, values: Record<string, string> = {}): string {
  const entry = findCommand(commandNameOf(splitJsonFields(argv).args) ?? '');
  const flags = anyFlags([...GLOBAL_FLAGS, ...(entry?.flags ?? [])]).filter((f) => f.value !== undefined);
  const long = new Set(flags.map((f) => `--${f.name}`));
  const short = new Set(flags.filter((f) => f.short !== undefined).map((f) => f.short!));
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      kept.push(...argv.slice(i));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const flag = eq < 0 ? a : a.slice(0, eq);
      if (!long.has(flag)) {
        kept.push(a);
        continue;
      }
      // `--flag=value` is one word; else the next word is the value.
      const typed = eq < 0 ? argv.slice(i + 1, i + 2) : [];
      i += typed.length;
      if (flag === '--idempotency-key') continue;
      if (values[flag] !== undefined) kept.push(flag, values[flag]);
      else kept.push(a, ...typed);
      continue;
    }
    kept.push(a);
    // -qy: switches; a one-letter flag that takes a value takes the rest of the word, or the next word.
    if (a.length > 1 && a.startsWith('-')) {
      const at = [...a.slice(1)].findIndex((c) => short.has(c));
      if (at >= 0 && at === a.length - 2 && i + 1 < argv.length) kept.push(argv[++i]!);
    }
  }
  const at = kept.indexOf('--');
  const keyFlag = key === undefined ? [] : ['--idempotency-key', key];
  const args = at < 0 ? [...kept, ...keyFlag] : [...kept.slice(0, at), ...keyFlag, ...kept.slice(at)];
  return shellLine(['vidpub', ...args]);
}

/** What report() writes with: the context, the invocation (when the flags were parsed) and the command line. */
interface Reporting {
  ctx: Context;
  inv: Invocation | undefined;
  argv: string[];
  json: boolean;
  debug: boolean;
  red: (s: string) => string;
  dim: (s: string) => string;
  write: (line: string) => void;
}

/**
 * An unknown outcome: what is known goes to stdout (the ids, or a JSON
 * document with --json), the rerun command that settles it to stderr.
 * `stdout` false: the command printed its own data (batch: every item, the unknown ones included).
 */
function reportUnknown(error: OutcomeUnknownError, r: Reporting, write: (line: string) => void, stdout: boolean): void {
  const rerun = error.idempotencyKey !== undefined || error.rerunAsTyped ? rerunCommand(r.argv, error.idempotencyKey, error.rerunFlags) : undefined;
  const out = (line: string) => r.ctx.io.stdout.write(line + '\n');
  if (stdout && r.inv?.globals.json) {
    out(JSON.stringify({ outcome: 'unknown', request: error.request, reason: error.reason, ...error.known, idempotency_key: error.idempotencyKey ?? null, rerun: rerun ?? null }, null, 2));
  } else if (stdout) {
    for (const id of Object.values(error.known)) out(id);
  }
  if (rerun) write(`Rerun to settle it (nothing is done twice): ${rerun}`);
}

/** A library's abort error that escaped a flow is the --timeout (the deadline's reason says so) or the interrupt. */
function explained(err: unknown, ctx: Context): unknown {
  if (err instanceof DeadlineReached || (err as { cause?: unknown } | undefined)?.cause instanceof DeadlineReached) {
    return new TimeoutError('Stopped: the --timeout of the command was reached.', { cause: err });
  }
  if (!(err instanceof VidpubError) && ctx.signal.aborted) return new InterruptedError('Interrupted.');
  return err;
}

async function reportVidpubError(error: VidpubError, r: Reporting, spec: CommandPrinters | undefined): Promise<number> {
  const code = exitCodeOf(error, r.ctx.signal);
  // An error that carries the command's data (batch: every item's outcome) prints it as the
  // command would have, an unknown outcome too; else an unknown outcome prints what it knows
  // (with --json a document that holds the rerun command too), the rerun command after the error line.
  const unknown = error instanceof OutcomeUnknownError ? error : undefined;
  const inv = r.inv;
  const printsData = error.data !== undefined && spec !== undefined && inv !== undefined;
  if (printsData) {
    try {
      await printData(spec, error.data, inv);
    } catch {
      // the error line below still says what happened
    }
  }
  if (r.json) {
    if (unknown) reportUnknown(unknown, r, () => {}, !printsData);
    r.write(errorJson(error, code, r.argv));
    return code;
  }
  // A person saying no (a declined confirmation) is said plainly, not as an error.
  r.write(error instanceof CancelledError ? sanitize(error.message) : `${r.red('Error:')} ${sanitize(error.message)}`);
  if (unknown) reportUnknown(unknown, r, r.write, !printsData);
  // Stopped by a signal once a write went out: the same command with the run's key continues it.
  if (error instanceof InterruptedError && error.idempotencyKey !== undefined) r.write(`Rerun to continue it (nothing is done twice): ${rerunCommand(r.argv, error.idempotencyKey, error.rerunFlags)}`);
  else if (error.continueKey !== undefined) r.write(`Rerun to continue it (nothing is done twice): ${rerunCommand(r.argv, error.continueKey, error.continueFlags)}`);
  // A hint may name what came from elsewhere (an id, a link of the service): sanitized line by line, indents kept.
  if (error.hint) r.write(r.dim(error.hint.split('\n').map((line) => /^\s*/.exec(line)![0] + sanitize(line)).join('\n')));
  if (r.debug && error.stack) r.write(r.dim(error.stack));
  return code;
}

function reportUnexpected(error: unknown, r: Reporting): number {
  const stack = r.debug && error instanceof Error ? error.stack : undefined;
  if (r.json) {
    r.write(errorJson(error, ExitCode.ERROR));
    if (stack) r.write(r.dim(stack));
    return ExitCode.ERROR;
  }
  const message = error instanceof Error ? error.message : String(error);
  r.write(`${r.red('Error:')} unexpected: ${sanitize(message)}`);
  r.write(r.dim(stack || UNEXPECTED_HINT));
  return ExitCode.ERROR;
}

/**
 * Reports `err` of the command line `argv` (as typed: the rerun line of an unknown outcome keeps
 * --json FIELDS) and returns the exit code. `inv` and `spec` are there once the flags were parsed
 * and the command loaded.
 */
export async function report(err: unknown, ctx: Context, argv: string[], inv?: Invocation, spec?: CommandPrinters): Promise<number> {
  const error = explained(err, ctx);
  const r: Reporting = {
    ctx,
    inv,
    argv,
    // --json (or --jq): errors too are one JSON object on stderr, even when the flags could not be parsed.
    json: inv?.globals.json === true || argv.some((a) => a === '--json' || a.startsWith('--json=') || a === '--jq'),
    debug: inv?.globals.debug ?? truthy(ctx.env.VIDPUB_DEBUG),
    red: inv?.colors.stderr.red ?? ((s: string) => s),
    dim: inv?.colors.stderr.dim ?? ((s: string) => s),
    write: (line: string) => ctx.io.stderr.write(line + '\n'),
  };
  return error instanceof VidpubError ? reportVidpubError(error, r, spec) : reportUnexpected(error, r);
}

/**
 * Commander's own errors (unknown option, missing argument) in vidpub's one
 * style: `Error: unknown option '--tx' (Did you mean --to?)` and a hint; with
 * --json, the same JSON object as any other error.
 */
export function parserErrorWriter(ctx: Context, args: string[], json: boolean, color: boolean) {
  return (str: string, write: (s: string) => void) => {
    const message = str.trim().replace(/^error:\s*/i, '').replace(/\s*\n\s*/g, ' ');
    const name = commandNameOf(args);
    const hint = `Run "vidpub ${name && findCommand(name) ? `${name} ` : ''}--help" for usage.`;
    if (json) {
      write(JSON.stringify({ error: { type: 'usage', code: null, message, exit_code: ExitCode.USAGE, hint } }) + '\n');
      return;
    }
    const c = makeColors(colorLevel({ isTTY: ctx.io.stderrIsTTY, flag: color, env: ctx.env }));
    write(`${c.red('Error:')} ${message}\n${c.dim(hint)}\n`);
  };
}

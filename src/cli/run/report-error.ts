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
} from '../../errors.js';
import { colorLevel, makeColors } from '../../ui/color.js';
import { truthy } from '../../util/env.js';
import type { CommandLine } from '../line/command-line.js';
import { renderLine, type LineEdits } from '../line/render.js';
import type { CommandPrinters, Invocation } from './command.js';
import type { Context } from './context.js';
import { jsonText, printData } from '../output/json-output.js';

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
export function errorJson(error: unknown, exitCode: number, line?: CommandLine): string {
  const known = error instanceof VidpubError;
  const type = known ? (ERROR_TYPES.find(([cls]) => error instanceof cls)?.[1] ?? 'error') : 'unexpected';
  const code = known ? ((error as { code?: string }).code ?? error.http?.code ?? (error instanceof UsageError ? 'usage' : null)) : null;
  const message = error instanceof Error ? error.message : String(error);
  const hint = known ? (error.hint ?? null) : UNEXPECTED_HINT;
  // A list of problems found at once (batch's manifest checks), one object each.
  const problems = known ? (error as { problems?: unknown }).problems : undefined;
  return jsonText({ error: { type, code, message: sanitize(message), exit_code: exitCode, hint, ...(Array.isArray(problems) ? { problems } : {}), ...continuing(error, line) } }, true);
}

/** What a refusal that knows the run to continue adds to its JSON: the key and the line that continues it. */
function continuing(error: unknown, line: CommandLine | undefined): Record<string, string> {
  if (!(error instanceof VidpubError) || error.continueKey === undefined || !line) return {};
  return { idempotency_key: error.continueKey, rerun: rerunLine(line, error.continueKey, error.continueFlags) };
}

/**
 * The command line that reruns `line` with `key` as its --idempotency-key (the one typed
 * dropped; none added without a key), and each flag of `values` with the value given there
 * in place of the one typed (the time a relative --at resolved to).
 */
function rerunLine(line: CommandLine, key: string | undefined, values: Record<string, string>): string {
  return renderLine(line, { ...(values as LineEdits), '--idempotency-key': key });
}

/** What report() writes with: the context, the invocation (when the flags were parsed) and the command line. */
interface Reporting {
  ctx: Context;
  inv: Invocation | undefined;
  /** The command line as read; none when the parser could not read it. */
  line: CommandLine | undefined;
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
  const rerun = r.line && (error.idempotencyKey !== undefined || error.rerunAsTyped) ? rerunLine(r.line, error.idempotencyKey, error.rerunFlags) : undefined;
  const out = (line: string) => r.ctx.io.stdout.write(line + '\n');
  if (stdout && r.inv?.globals.json) {
    out(jsonText({ outcome: 'unknown', request: error.request, reason: error.reason, ...error.known, idempotency_key: error.idempotencyKey ?? null, rerun: rerun ?? null }));
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
    r.write(errorJson(error, code, r.line));
    return code;
  }
  // A person saying no (a declined confirmation) is said plainly, not as an error.
  r.write(error instanceof CancelledError ? sanitize(error.message) : `${r.red('Error:')} ${sanitize(error.message)}`);
  if (unknown) reportUnknown(unknown, r, r.write, !printsData);
  // Stopped by a signal once a write went out: the same command with the run's key continues it.
  if (r.line && error instanceof InterruptedError && error.idempotencyKey !== undefined) r.write(`Rerun to continue it (nothing is done twice): ${rerunLine(r.line, error.idempotencyKey, error.rerunFlags)}`);
  else if (r.line && error.continueKey !== undefined) r.write(`Rerun to continue it (nothing is done twice): ${rerunLine(r.line, error.continueKey, error.continueFlags)}`);
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
 * Reports `err` of the command line `line` (as read: the rerun line of an unknown outcome keeps
 * --json FIELDS) and returns the exit code. `line` is there once the parser read it, `inv` and
 * `spec` once the flags were read and the command loaded.
 */
export async function report(err: unknown, ctx: Context, line?: CommandLine, inv?: Invocation, spec?: CommandPrinters): Promise<number> {
  const error = explained(err, ctx);
  const r: Reporting = {
    ctx,
    inv,
    line,
    // --json (or --jq): errors too are one JSON object on stderr, even when the flags could not be read.
    json: inv?.globals.json === true || line?.optsWithGlobals.json === true || line?.optsWithGlobals.jq !== undefined,
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
export function parserErrorWriter(ctx: Context, read: () => { command?: string; json?: unknown; jq?: unknown; color?: unknown }) {
  return (str: string, write: (s: string) => void) => {
    const message = str.trim().replace(/^error:\s*/i, '').replace(/\s*\n\s*/g, ' ');
    // What the parser had read when it stopped: the command named, and the global flags.
    const { command, json, jq, color } = read();
    const hint = `Run "vidpub ${command ? `${command} ` : ''}--help" for usage.`;
    if (json === true || jq !== undefined) {
      write(jsonText({ error: { type: 'usage', code: 'usage', message, exit_code: ExitCode.USAGE, hint } }, true) + '\n');
      return;
    }
    const c = makeColors(colorLevel({ isTTY: ctx.io.stderrIsTTY, flag: color !== false, env: ctx.env }));
    write(`${c.red('Error:')} ${message}\n${c.dim(hint)}\n`);
  };
}

import { Command, CommanderError } from 'commander';
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
import type { ApiClient, ClientSettings } from '../api/client.js';
import { colorLevel, makeColors } from '../ui/color.js';
import { parseBoundedDuration } from '../time/duration.js';
import { shellLine } from '../util/shell.js';
import { wrapCommand } from '../ui/wrap.js';
import type { CommandSpec, GlobalOptions, Invocation, Logger } from './command.js';
import { COMMANDS, COMMAND_TIMEOUT, commandTerm, findCommand, type CommandEntry } from './commands/index.js';
import { parseTimeout } from '../session/wait-flags.js';
import { loadCommand } from './commands/load.js';
import { lazyJournal } from './journal-session.js';
import type { Context } from './context.js';
import { addFlags } from './declare.js';
import { checkFields, checkJq, printJson } from './json-output.js';
import { DEFAULT_MAX_WAIT, GLOBAL_FLAGS, GLOBAL_VALUE_FLAGS, HELP_FLAG, VERSION_FLAG, flagTerm } from './flags.js';
import { ROOT_DESCRIPTION, examplesText, helpWidth, renderRootHelp } from './root-help.js';
import { truthy } from '../util/env.js';

export type { Context } from './context.js';

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The first word of argv that is not a global flag or a global flag's value. */
export function commandNameOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1];
    if (a.startsWith('-')) {
      if (GLOBAL_VALUE_FLAGS.has(a)) i++;
      continue;
    }
    return a;
  }
  return undefined;
}

function addGlobalOptions(program: Command): void {
  addFlags(program, GLOBAL_FLAGS);
}

/** A field list after --json (`--json id,status`): lower-case names, dots for nesting, commas between; never a command name. */
const FIELD_LIST = /^[a-z_]+(?:\.[a-z_]+)*(?:,[a-z_]+(?:\.[a-z_]+)*)*$/;

/**
 * Takes `--json FIELDS` / `--json=FIELDS` out of argv (commander sees a plain
 * --json). The word after --json is a field list when it looks like one
 * (lower-case letters, "_", "." and ",", no digits: ids such as post_123 and
 * file names are not) and is not a command name where the command is still to
 * come (`vidpub --json status ID`; after it, `vidpub status ID --json status`
 * is the field).
 */
export function splitJsonFields(argv: string[]): { args: string[]; fields?: string[] } {
  const args: string[] = [];
  let fields: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i));
      break;
    }
    if (a.startsWith('--json=')) {
      const list = a.slice('--json='.length).split(',').map((f) => f.trim()).filter(Boolean);
      // `--json=` (an empty "$FIELDS" in a script) is the whole record, as --json is.
      fields = list.length > 0 ? list : undefined;
      args.push('--json');
      continue;
    }
    args.push(a);
    const next = argv[i + 1];
    if (a === '--json' && next !== undefined && FIELD_LIST.test(next) && (!findCommand(next) || commandNameOf(args.slice(0, -1)) !== undefined)) {
      fields = next.split(',');
      i++;
    }
  }
  return { args, fields };
}

function resolveGlobals(all: Record<string, unknown>, ctx: Context, given: (option: string) => boolean): GlobalOptions {
  const profile = (all.profile as string | undefined) ?? ctx.env.VIDPUB_PROFILE ?? 'default';
  if (!PROFILE_NAME.test(profile)) {
    const from = all.profile !== undefined ? '--profile' : 'VIDPUB_PROFILE';
    throw new UsageError(`invalid profile name "${sanitize(profile)}" (from ${from}): use letters, digits, "-" and "_" (at most 64)`);
  }
  const jq = all.jq as string | undefined;
  // `--workspace "$WS"` with WS unset: the check of the workspace is not silently turned off.
  if (typeof all.workspace === 'string' && all.workspace.trim() === '') {
    throw new UsageError('--workspace is empty: give the name of the workspace writes must go to, or leave the flag out');
  }
  if (typeof all.apiKeyFile === 'string' && all.apiKeyFile.trim() === '') {
    throw new UsageError('--api-key-file is empty: give the path of a file that holds only the key');
  }
  return {
    json: all.json === true || jq !== undefined,
    jq,
    quiet: all.quiet === true,
    input: all.input !== false && !truthy(ctx.env.VIDPUB_NO_INPUT),
    color: all.color !== false,
    profile,
    baseUrl: all.baseUrl as string | undefined,
    apiKeyFile: all.apiKeyFile as string | undefined,
    workspace: (all.workspace as string | undefined) ?? (ctx.env.VIDPUB_WORKSPACE || undefined),
    debug: all.debug === true || truthy(ctx.env.VIDPUB_DEBUG),
    maxWaitMs: parseBoundedDuration(String(all.maxWait ?? DEFAULT_MAX_WAIT), '--max-wait'),
    maxWaitGiven: given('maxWait'),
    waitForQuota: all.waitForQuota === true,
    journal: all.journal !== false && !truthy(ctx.env.VIDPUB_NO_JOURNAL),
    cache: all.cache !== false && !truthy(ctx.env.VIDPUB_NO_CACHE),
  };
}

export function makeInvocation(ctx: Context, globals: GlobalOptions): Invocation {
  const { io, env } = ctx;
  const colors = {
    stdout: makeColors(colorLevel({ isTTY: io.stdoutIsTTY, flag: globals.color, env })),
    stderr: makeColors(colorLevel({ isTTY: io.stderrIsTTY, flag: globals.color, env })),
  };
  const log: Logger = {
    info: (line) => {
      if (!globals.quiet) io.stderr.write(line + '\n');
    },
    warn: (line) => {
      io.stderr.write(colors.stderr.yellow('!') + ' ' + line + '\n');
    },
    debug: (line) => {
      if (globals.debug) io.stderr.write(colors.stderr.dim(line) + '\n');
    },
  };
  const clientSettings: ClientSettings = {
    profile: globals.profile,
    baseUrl: globals.baseUrl,
    apiKeyFile: globals.apiKeyFile,
    workspace: globals.workspace,
    debug: globals.debug,
    maxWaitMs: globals.maxWaitMs,
    timeoutMs: globals.commandTimeoutMs,
    waitForQuota: globals.waitForQuota,
    quiet: globals.quiet,
    cache: globals.cache,
  };
  let client: Promise<ApiClient> | undefined;
  const print = (line = '') => {
    io.stdout.write(line + '\n');
  };
  const interactive = globals.input && io.stdinIsTTY && io.stderrIsTTY;
  // The client once made: one still being made when the command ends (a key file that is a pipe, its wait cut
  // short by --timeout) has nothing to close, and is not waited for.
  let made: ApiClient | undefined;
  const getClient = () => (client ??= ctx.createClient(clientSettings).then((c) => (made = c)));
  const inv: Invocation = {
    ctx,
    globals,
    interactive,
    colors,
    log,
    print,
    out: { print, tty: io.stdoutIsTTY, colors: colors.stdout },
    session: {
      client: getClient,
      clock: ctx.clock,
      signal: ctx.signal,
      log,
      quiet: globals.quiet,
      interactive,
      prompter: () => ctx.prompter(),
      progress: async () => (await import('../ui/progress.js')).createProgress({ io, quiet: globals.quiet, clock: ctx.clock }),
      screen: {
        write: (text) => {
          io.stderr.write(text);
        },
        tty: io.stderrIsTTY,
        columns: io.columns,
        colors: colors.stderr,
      },
      debugOut: globals.debug ? io.stderr : undefined,
      journal:
        globals.journal === false
          ? undefined
          : lazyJournal({ env, profile: globals.profile, client: getClient, clock: ctx.clock, signal: ctx.signal, warn: log.warn }),
    },
    clientSettings,
    client: getClient,
    rerun: (argv, subCtx) => main(argv, subCtx),
  };
  disposers.set(inv, async () => {
    await made?.close();
  });
  return inv;
}

/** Closes what an invocation opened (the client's sockets), if anything. */
const disposers = new WeakMap<Invocation, () => Promise<void>>();

/** The usage error of a --json field the document does not have. */
async function emit<D>(spec: CommandSpec<unknown, D>, data: D, inv: Invocation): Promise<void> {
  if (inv.globals.json) {
    const doc = spec.json ? spec.json(data) : data;
    if (doc !== undefined) await printJson(doc, inv, { known: spec.fields });
    return;
  }
  if (spec.print) spec.print(data, inv);
  else if (data !== undefined) inv.print(JSON.stringify(data, null, 2));
}

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

/** The one JSON object an error becomes on stderr with --json: {"error":{type, code, message, exit_code, hint[, problems]}}. */
export function errorJson(error: unknown, exitCode: number): string {
  const known = error instanceof VidpubError;
  const type = known ? (ERROR_TYPES.find(([cls]) => error instanceof cls)?.[1] ?? 'error') : 'unexpected';
  const code = known ? ((error as { code?: string }).code ?? error.http?.code ?? null) : null;
  const message = error instanceof Error ? error.message : String(error);
  const hint = known ? (error.hint ?? null) : 'Run again with --debug for details; if it keeps happening, please report it.';
  // A list of problems found at once (batch's manifest checks), one object each.
  const problems = known ? (error as { problems?: unknown }).problems : undefined;
  return JSON.stringify({ error: { type, code, message: sanitize(message), exit_code: exitCode, hint, ...(Array.isArray(problems) ? { problems } : {}) } });
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
  const flags = [...GLOBAL_FLAGS, ...(entry?.flags ?? [])].filter((f) => f.value !== undefined);
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

/**
 * An unknown outcome: what is known goes to stdout (the ids, or a JSON
 * document with --json), the rerun command that settles it to stderr.
 */
function reportUnknown(error: OutcomeUnknownError, ctx: Context, inv: Invocation | undefined, argv: string[], write: (line: string) => void, stdout = true): void {
  const rerun = error.idempotencyKey !== undefined || error.rerunAsTyped ? rerunCommand(argv, error.idempotencyKey, error.rerunFlags) : undefined;
  const out = (line: string) => ctx.io.stdout.write(line + '\n');
  if (!stdout) {
    // the command printed its own data (batch: every item, the unknown ones included)
  } else if (inv?.globals.json) {
    out(JSON.stringify({ outcome: 'unknown', request: error.request, reason: error.reason, ...error.known, idempotency_key: error.idempotencyKey ?? null, rerun: rerun ?? null }, null, 2));
  } else {
    for (const id of Object.values(error.known)) out(id);
  }
  if (rerun) write(`Rerun to settle it (nothing is done twice): ${rerun}`);
}

/** The one place an error becomes output and an exit code. */
async function report(err: unknown, ctx: Context, inv: Invocation | undefined, spec?: CommandSpec<unknown, unknown>, argv: string[] = []): Promise<number> {
  let error = err;
  // A library's abort error that escaped a flow: the deadline's reason says it was --timeout.
  if (error instanceof DeadlineReached || (error as { cause?: unknown } | undefined)?.cause instanceof DeadlineReached) {
    error = new TimeoutError('Stopped: the --timeout of the command was reached.', { cause: error });
  }
  if (!(error instanceof VidpubError) && ctx.signal.aborted) error = new InterruptedError('Interrupted.');
  // --json (or --jq): errors too are one JSON object on stderr, even when the flags could not be parsed.
  const json = inv?.globals.json === true || argv.some((a) => a === '--json' || a.startsWith('--json=') || a === '--jq');
  const debug = inv?.globals.debug ?? truthy(ctx.env.VIDPUB_DEBUG);
  const red = inv?.colors.stderr.red ?? ((s: string) => s);
  const dim = inv?.colors.stderr.dim ?? ((s: string) => s);
  const write = (line: string) => ctx.io.stderr.write(line + '\n');
  if (error instanceof VidpubError) {
    const code = exitCodeOf(error, ctx.signal);
    // An unknown outcome: what is known goes to stdout (with --json a document that holds the
    // rerun command too), the rerun command after the error line.
    // An error that carries the command's data (batch: every item's outcome) prints it as the
    // command would have, an unknown outcome too; else an unknown outcome prints what it knows.
    const unknown = error instanceof OutcomeUnknownError ? error : undefined;
    const printsData = error.data !== undefined && spec !== undefined && inv !== undefined;
    if (printsData) {
      try {
        await emit(spec, error.data, inv);
      } catch {
        // the error line below still says what happened
      }
    }
    if (json) {
      if (unknown) reportUnknown(unknown, ctx, inv, argv, () => {}, !printsData);
      write(errorJson(error, code));
      return code;
    }
    // A person saying no (a declined confirmation) is said plainly, not as an error.
    write(error instanceof CancelledError ? sanitize(error.message) : `${red('Error:')} ${sanitize(error.message)}`);
    if (unknown) reportUnknown(unknown, ctx, inv, argv, write, !printsData);
    if (error.hint) write(dim(error.hint));
    if (debug && error.stack) write(dim(error.stack));
    return code;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) {
    write(errorJson(error, ExitCode.ERROR));
    if (debug && error instanceof Error && error.stack) write(dim(error.stack));
    return ExitCode.ERROR;
  }
  write(`${red('Error:')} unexpected: ${sanitize(message)}`);
  if (debug && error instanceof Error && error.stack) write(dim(error.stack));
  else write(dim('Run again with --debug for details; if it keeps happening, please report it.'));
  return ExitCode.ERROR;
}

/**
 * Commander's own errors (unknown option, missing argument) in vidpub's one
 * style: `Error: unknown option '--tx' (Did you mean --to?)` and a hint; with
 * --json, the same JSON object as any other error.
 */
function parserErrorWriter(ctx: Context, args: string[], json: boolean, color: boolean) {
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

function buildProgram(ctx: Context, args: string[] = []): Command {
  const program = new Command('vidpub');
  program
    .description(ROOT_DESCRIPTION)
    .version(ctx.version, flagTerm(VERSION_FLAG), VERSION_FLAG.description)
    .helpOption(flagTerm(HELP_FLAG), HELP_FLAG.description)
    .exitOverride()
    .showSuggestionAfterError(true)
    // Descriptions wrap at word boundaries even in a narrow column (commander's default gives up below 40).
    .configureHelp({ showGlobalOptions: true, helpWidth: helpWidth(ctx.io.columns), minWidthToWrap: 20 })
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      outputError: parserErrorWriter(ctx, args, args.includes('--json') || args.some((a) => a.startsWith('--jq')), !args.includes('--no-color')),
    })
    .addHelpCommand(false);
  addGlobalOptions(program);
  // The root help is rendered without commander (see root-help.ts), so the
  // fast path (dist/fast.cjs, run by bin/vidpub.js) prints exactly this text.
  program.helpInformation = () => renderRootHelp(ctx.io.columns);
  return program;
}

function declare(program: Command, entry: CommandEntry): Command {
  const cmd = program.command(commandTerm(entry)).description(entry.summary);
  for (const alias of entry.aliases ?? []) cmd.alias(alias);
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => program.configureOutput().writeOut!(s),
    writeErr: (s) => program.configureOutput().writeErr!(s),
  });
  return cmd;
}

/**
 * Runs vidpub with `argv` (without node and script) in `ctx`; returns the exit
 * code. Never calls process.exit and never reads process.* directly.
 */
export async function main(argv: string[], ctx: Context): Promise<number> {
  let args = argv;
  // `vidpub help X` is `vidpub X --help`.
  if (args[0] === 'help') args = args.length > 1 ? [...args.slice(1), '--help'] : ['--help'];
  const split = splitJsonFields(args);
  args = split.args;
  const program = buildProgram(ctx, args);
  const name = commandNameOf(args);
  const target = name ? findCommand(name) : undefined;

  let exitCode: number = ExitCode.OK;
  // The other commands are declared only when no known command was named (the root help, an
  // unknown command's suggestion): once commander dispatches to the target, they play no part
  // in parsing, help or errors, and declaring them all costs every command ~1 ms of start-up.
  if (!target) for (const entry of COMMANDS) declare(program, entry);
  if (target) {
    const spec = await loadCommand(target.name);
    const cmd = declare(program, target);
    if (spec.description) cmd.description(spec.description);
    addFlags(cmd, target.flags);
    const width = helpWidth(ctx.io.columns) - 4;
    cmd.addHelpText('after', examplesText(spec.examples.map((e) => wrapCommand(e, width, 6).replace(/\n/g, '\n  '))));
    cmd.action(async (...actionArgs: unknown[]) => {
      const self = actionArgs[actionArgs.length - 1] as Command;
      const positional = actionArgs.slice(0, -2);
      let inv: Invocation | undefined;
      try {
        const given = (option: string) => {
          const source = self.getOptionValueSourceWithGlobals(option);
          return source !== undefined && source !== 'default';
        };
        // login, me, destinations, options: --timeout is a budget for all of the client's requests.
        const commandTimeoutMs = target.flags?.includes(COMMAND_TIMEOUT) ? parseTimeout(self.opts()) : undefined;
        inv = makeInvocation(ctx, { ...resolveGlobals(self.optsWithGlobals(), ctx, given), jsonFields: split.fields, commandTimeoutMs });
        // A mistake in --json FIELDS or --jq is found before anything is sent, not after a write.
        if (split.fields && spec.fields) checkFields(split.fields, spec.fields);
        if (inv.globals.jq !== undefined) await checkJq(inv.globals.jq);
        const opts = await spec.parse(positional, self.opts(), inv);
        const data = await spec.run(opts, inv);
        await emit(spec, data, inv);
        exitCode = ExitCode.OK;
      } catch (err) {
        // argv as typed: the rerun line of an unknown outcome keeps --json FIELDS.
        exitCode = await report(err, ctx, inv, spec, argv);
      } finally {
        if (inv) await closeClient(inv);
      }
    });
  }

  if (args.length === 0) {
    ctx.io.stdout.write(program.helpInformation());
    return ExitCode.OK;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return ExitCode.OK;
      return ExitCode.USAGE;
    }
    return report(err, ctx, undefined, undefined, args);
  }
  return exitCode;
}

async function closeClient(inv: Invocation): Promise<void> {
  await disposers.get(inv)?.().catch(() => undefined);
}

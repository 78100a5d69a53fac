import { Command, CommanderError } from 'commander';
import { DeadlineReached, ExitCode, InterruptedError, OutcomeUnknownError, TimeoutError, UsageError, VidpubError, exitCodeOf, sanitize } from '../errors.js';
import type { ApiClient, ClientSettings } from '../api/client.js';
import { colorLevel, makeColors } from '../ui/color.js';
import { parseDuration } from '../util/duration.js';
import type { CommandSpec, GlobalOptions, Invocation, Logger } from './command.js';
import { COMMANDS, findCommand, type CommandEntry } from './commands/index.js';
import type { Context } from './context.js';
import {
  DEFAULT_MAX_WAIT,
  GLOBAL_OPTIONS,
  GLOBAL_VALUE_FLAGS,
  HELP_DESCRIPTION,
  HELP_FLAGS,
  ROOT_DESCRIPTION,
  VERSION_DESCRIPTION,
  VERSION_FLAGS,
  examplesText,
  helpWidth,
  renderRootHelp,
} from './root-help.js';

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

function truthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function addGlobalOptions(program: Command): void {
  for (const o of GLOBAL_OPTIONS) program.option(o.flags, o.description, o.default);
}

function resolveGlobals(all: Record<string, unknown>, ctx: Context, given: (option: string) => boolean): GlobalOptions {
  const profile = (all.profile as string | undefined) ?? ctx.env.VIDPUB_PROFILE ?? 'default';
  if (!PROFILE_NAME.test(profile)) {
    throw new UsageError(`invalid profile name "${sanitize(profile)}": use letters, digits, "-" and "_" (at most 64)`);
  }
  return {
    json: all.json === true,
    quiet: all.quiet === true,
    input: all.input !== false && !truthy(ctx.env.VIDPUB_NO_INPUT),
    color: all.color !== false,
    profile,
    baseUrl: all.baseUrl as string | undefined,
    apiKeyFile: all.apiKeyFile as string | undefined,
    workspace: (all.workspace as string | undefined) ?? (ctx.env.VIDPUB_WORKSPACE || undefined),
    debug: all.debug === true || truthy(ctx.env.VIDPUB_DEBUG),
    maxWaitMs: parseDuration(String(all.maxWait ?? DEFAULT_MAX_WAIT), '--max-wait'),
    maxWaitGiven: given('maxWait'),
    waitForQuota: all.waitForQuota === true,
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
    waitForQuota: globals.waitForQuota,
    quiet: globals.quiet,
  };
  let client: Promise<ApiClient> | undefined;
  const print = (line = '') => {
    io.stdout.write(line + '\n');
  };
  const interactive = globals.input && io.stdinIsTTY && io.stderrIsTTY;
  const getClient = () => (client ??= ctx.createClient(clientSettings));
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
    },
    clientSettings,
    client: getClient,
  };
  disposers.set(inv, async () => {
    if (client) await (await client.catch(() => undefined))?.close();
  });
  return inv;
}

/** Closes what an invocation opened (the client's sockets), if anything. */
const disposers = new WeakMap<Invocation, () => Promise<void>>();

function emit<D>(spec: CommandSpec<unknown, D>, data: D, inv: Invocation): void {
  if (inv.globals.json) {
    const doc = spec.json ? spec.json(data) : data;
    if (doc !== undefined) inv.print(JSON.stringify(doc, null, 2));
    return;
  }
  if (spec.print) spec.print(data, inv);
  else if (data !== undefined) inv.print(JSON.stringify(data, null, 2));
}

/** An argument as a POSIX shell reads it back. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command line that reruns `argv` with `key` as its --idempotency-key (any other one dropped). */
export function rerunCommand(argv: string[], key: string): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      kept.push(...argv.slice(i));
      break;
    }
    if (a === '--idempotency-key') {
      i++;
      continue;
    }
    if (a.startsWith('--idempotency-key=')) continue;
    kept.push(a);
  }
  const at = kept.indexOf('--');
  const args = at < 0 ? [...kept, '--idempotency-key', key] : [...kept.slice(0, at), '--idempotency-key', key, ...kept.slice(at)];
  return ['vidpub', ...args].map(shellQuote).join(' ');
}

/**
 * An unknown outcome: what is known goes to stdout (the ids, or a JSON
 * document with --json), the rerun command that settles it to stderr.
 */
function reportUnknown(error: OutcomeUnknownError, ctx: Context, inv: Invocation | undefined, argv: string[], write: (line: string) => void): void {
  const rerun = error.idempotencyKey !== undefined ? rerunCommand(argv, error.idempotencyKey) : undefined;
  const out = (line: string) => ctx.io.stdout.write(line + '\n');
  if (inv?.globals.json) {
    out(JSON.stringify({ outcome: 'unknown', request: error.request, reason: error.reason, ...error.known, idempotency_key: error.idempotencyKey ?? null, rerun: rerun ?? null }, null, 2));
  } else {
    for (const id of Object.values(error.known)) out(id);
  }
  if (rerun) write(`Rerun to settle it (nothing is done twice): ${rerun}`);
}

/** The one place an error becomes output and an exit code. */
function report(err: unknown, ctx: Context, inv: Invocation | undefined, spec?: CommandSpec<unknown, unknown>, argv: string[] = []): number {
  let error = err;
  // A library's abort error that escaped a flow: the deadline's reason says it was --timeout.
  if (error instanceof DeadlineReached || (error as { cause?: unknown } | undefined)?.cause instanceof DeadlineReached) {
    error = new TimeoutError('Stopped: the --timeout of the command was reached.', { cause: error });
  }
  if (!(error instanceof VidpubError) && ctx.signal.aborted) error = new InterruptedError('Interrupted.');
  const debug = inv?.globals.debug ?? truthy(ctx.env.VIDPUB_DEBUG);
  const red = inv?.colors.stderr.red ?? ((s: string) => s);
  const dim = inv?.colors.stderr.dim ?? ((s: string) => s);
  const write = (line: string) => ctx.io.stderr.write(line + '\n');
  if (error instanceof OutcomeUnknownError) {
    write(`${red('Error:')} ${sanitize(error.message)}`);
    reportUnknown(error, ctx, inv, argv, write);
    if (error.hint) write(dim(error.hint));
    if (debug && error.stack) write(dim(error.stack));
    return exitCodeOf(error, ctx.signal);
  }
  if (error instanceof VidpubError) {
    if (error.data !== undefined && spec && inv) {
      try {
        emit(spec, error.data, inv);
      } catch {
        // the error line below still says what happened
      }
    }
    write(`${red('Error:')} ${sanitize(error.message)}`);
    if (error.hint) write(dim(error.hint));
    if (debug && error.stack) write(dim(error.stack));
    return exitCodeOf(error, ctx.signal);
  }
  const message = error instanceof Error ? error.message : String(error);
  write(`${red('Error:')} unexpected: ${sanitize(message)}`);
  if (debug && error instanceof Error && error.stack) write(dim(error.stack));
  else write(dim('Run again with --debug for details; if it keeps happening, please report it.'));
  return ExitCode.ERROR;
}

function buildProgram(ctx: Context): Command {
  const program = new Command('vidpub');
  program
    .description(ROOT_DESCRIPTION)
    .version(ctx.version, VERSION_FLAGS, VERSION_DESCRIPTION)
    .helpOption(HELP_FLAGS, HELP_DESCRIPTION)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, helpWidth: helpWidth(ctx.io.columns) })
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .addHelpCommand(false);
  addGlobalOptions(program);
  // The root help is rendered without commander (see root-help.ts), so the
  // fast path (dist/fast.cjs, run by bin/vidpub.js) prints exactly this text.
  program.helpInformation = () => renderRootHelp(ctx.io.columns);
  return program;
}

function declare(program: Command, entry: CommandEntry): Command {
  const cmd = program.command(entry.args ? `${entry.name} ${entry.args}` : entry.name).description(entry.summary);
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
  const program = buildProgram(ctx);
  const name = commandNameOf(args);
  const target = name ? findCommand(name) : undefined;

  let exitCode: number = ExitCode.OK;
  for (const entry of COMMANDS) {
    if (entry === target) continue;
    declare(program, entry);
  }
  if (target) {
    const spec = (await target.load()).default;
    const cmd = declare(program, target);
    if (spec.description) cmd.description(spec.description);
    spec.configure?.(cmd);
    cmd.addHelpText('after', examplesText(spec.examples));
    cmd.action(async (...actionArgs: unknown[]) => {
      const self = actionArgs[actionArgs.length - 1] as Command;
      const positional = actionArgs.slice(0, -2);
      let inv: Invocation | undefined;
      try {
        const given = (option: string) => {
          const source = self.getOptionValueSourceWithGlobals(option);
          return source !== undefined && source !== 'default';
        };
        inv = makeInvocation(ctx, resolveGlobals(self.optsWithGlobals(), ctx, given));
        const opts = await spec.parse(positional, self.opts(), inv);
        const data = await spec.run(opts, inv);
        emit(spec, data, inv);
        exitCode = ExitCode.OK;
      } catch (err) {
        exitCode = report(err, ctx, inv, spec, args);
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
    return report(err, ctx, undefined);
  }
  return exitCode;
}

async function closeClient(inv: Invocation): Promise<void> {
  await disposers.get(inv)?.().catch(() => undefined);
}

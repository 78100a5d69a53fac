/**
 * The commander program and main(argv, ctx): the command named in argv is
 * loaded and declared with its flags from the registry, its flags read into an
 * Invocation (./invocation.ts), and what goes wrong reported (./report-error.ts).
 */
import { Command, CommanderError } from 'commander';
import { ExitCode } from '../errors.js';
import { wrapCommand } from '../ui/wrap.js';
import { parseTimeout } from '../session/wait-flags.js';
import { commandNameOf, splitJsonFields } from './argv.js';
import type { AnyCommandSpec, Invocation } from './command.js';
import { COMMANDS, COMMAND_TIMEOUT, commandTerm, findCommand, type CommandEntry } from './commands/index.js';
import { loadCommand } from './commands/load.js';
import type { Context } from './context.js';
import { addFlags, readArgs, readFlags } from './declare.js';
import { closeInvocation, makeInvocation, resolveGlobals } from './invocation.js';
import { checkFields, checkJq, printData } from './json-output.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG, flagTerm, type GlobalFlags } from './flags.js';
import { parserErrorWriter, report } from './report-error.js';
import { GLOBAL_FLAGS_LINE, ROOT_DESCRIPTION, examplesText, helpWidth, renderRootHelp } from './root-help.js';

export type { Context } from './context.js';

function buildProgram(ctx: Context, args: string[] = []): Command {
  const program = new Command('vidpub');
  program
    .description(ROOT_DESCRIPTION)
    .version(ctx.version, flagTerm(VERSION_FLAG), VERSION_FLAG.description)
    .helpOption(flagTerm(HELP_FLAG), HELP_FLAG.description)
    .exitOverride()
    .showSuggestionAfterError(true)
    // Descriptions wrap at word boundaries even in a narrow column (commander's default gives up below 40).
    .configureHelp({ helpWidth: helpWidth(ctx.io.columns), minWidthToWrap: 20 })
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      outputError: parserErrorWriter(ctx, args, args.includes('--json') || args.some((a) => a.startsWith('--jq')), !args.includes('--no-color')),
    })
    .addHelpCommand(false);
  addFlags(program, GLOBAL_FLAGS);
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

/** What one command's run needs from main(): the context, argv as typed, the --json fields taken out of it. */
interface Run {
  ctx: Context;
  argv: string[];
  jsonFields: string[] | undefined;
  entry: CommandEntry;
  spec: AnyCommandSpec;
}

/** The command's action: its flags read, checked and run, its data printed; returns the exit code. */
async function runCommand(run: Run, positional: unknown[], self: Command): Promise<number> {
  const { ctx, entry, spec } = run;
  let inv: Invocation | undefined;
  try {
    const given = (key: keyof GlobalFlags) => {
      const source = self.getOptionValueSourceWithGlobals(key);
      return source !== undefined && source !== 'default';
    };
    const flags = readFlags(entry.flags, self.opts());
    // login, me, destinations, options: --timeout is a budget for all of the client's requests.
    const commandTimeoutMs = entry.flags?.includes(COMMAND_TIMEOUT) ? parseTimeout(flags) : undefined;
    const globals = resolveGlobals(readFlags(GLOBAL_FLAGS, self.optsWithGlobals()), ctx, given);
    inv = makeInvocation(ctx, { ...globals, jsonFields: run.jsonFields, commandTimeoutMs }, main);
    // A mistake in --json FIELDS or --jq is found before anything is sent, not after a write.
    if (run.jsonFields && spec.fields) checkFields(run.jsonFields, spec.fields);
    if (inv.globals.jq !== undefined) await checkJq(inv.globals.jq);
    const opts = await spec.parse(readArgs(entry.args, positional), flags, inv);
    const data = await spec.run(opts, inv);
    await printData(spec, data, inv);
    return ExitCode.OK;
  } catch (err) {
    // argv as typed: the rerun line of an unknown outcome keeps --json FIELDS.
    return await report(err, ctx, run.argv, inv, spec);
  } finally {
    if (inv) await closeInvocation(inv);
  }
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
    cmd.addHelpText('after', examplesText(spec.examples.map((e) => wrapCommand(e, width, 6).replace(/\n/g, '\n  '))) + GLOBAL_FLAGS_LINE);
    const run: Run = { ctx, argv, jsonFields: split.fields, entry: target, spec };
    cmd.action(async (...actionArgs: unknown[]) => {
      exitCode = await runCommand(run, actionArgs.slice(0, -2), actionArgs[actionArgs.length - 1] as Command);
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
    return report(err, ctx, args);
  }
  return exitCode;
}

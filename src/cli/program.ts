/**
 * The commander program, for every command line ./quick-parse.ts does not
 * read on its own: help and --version, the root help and an unknown
 * command's suggestion, and every mistake commander words (an unknown flag,
 * a missing argument or value), besides `--` and grouped short flags. main()
 * imports this module only then: commander and the program it builds add
 * to every command's start-up (docs/performance.md).
 */
import { Command, CommanderError, Option } from 'commander';
import { ExitCode } from '../errors.js';
import { wrapCommand } from '../ui/wrap.js';
import type { AnyCommandSpec } from './command.js';
import { COMMANDS, commandTerm, type CommandEntry } from './commands/index.js';
import type { Context } from './context.js';
import type { ParsedLine } from './declare.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG, flagTerm, type FlagSpec } from './flags.js';
import { parserErrorWriter, report } from './report-error.js';
import { GLOBAL_FLAGS_LINE, ROOT_DESCRIPTION, examplesText, helpWidth, renderRootHelp } from './root-help.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function toOption(f: FlagSpec): Option {
  const o = new Option(flagTerm(f), f.description);
  // Shown as written, the way every default is: "(default: 2m)".
  if (f.default !== undefined) o.default(f.default, f.default);
  if (f.repeatable) o.argParser(collect);
  if (f.hidden) o.hideHelp();
  return o;
}

export function addFlags(cmd: Command, flags: readonly FlagSpec[] | undefined): void {
  for (const f of flags ?? []) cmd.addOption(toOption(f));
}

function buildProgram(ctx: Context, args: string[]): Command {
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

/** The command commander is to dispatch to, and what runs the line once commander has read it. */
export interface Target {
  entry: CommandEntry;
  spec: AnyCommandSpec;
  run(line: ParsedLine): Promise<number>;
}

/** The target's command declared with its flags, its help and the action that runs it. */
function declareTarget(program: Command, target: Target, ctx: Context, done: (code: number) => void): void {
  const { entry, spec } = target;
  const cmd = declare(program, entry);
  if (spec.description) cmd.description(spec.description);
  addFlags(cmd, entry.flags);
  const width = helpWidth(ctx.io.columns) - 4;
  cmd.addHelpText('after', examplesText(spec.examples.map((e) => wrapCommand(e, width, 6).replace(/\n/g, '\n  '))) + GLOBAL_FLAGS_LINE);
  cmd.action(async (...actionArgs: unknown[]) => {
    const self = actionArgs[actionArgs.length - 1] as Command;
    const given = (key: string) => {
      const source = self.getOptionValueSourceWithGlobals(key);
      return source !== undefined && source !== 'default';
    };
    done(await target.run({ positional: actionArgs.slice(0, -2), opts: self.opts(), optsWithGlobals: self.optsWithGlobals(), given }));
  });
}

/**
 * Reads `args` with commander and runs the target's command with what it read; without a
 * target (no known command named), the root help or commander's error and suggestion.
 * Returns the exit code.
 */
export async function runWithCommander(args: string[], ctx: Context, target?: Target): Promise<number> {
  const program = buildProgram(ctx, args);
  let exitCode: number = ExitCode.OK;
  // The other commands are declared only when no known command was named (the root help, an
  // unknown command's suggestion): once commander dispatches to the target, they play no part
  // in parsing, help or errors, and declaring them all would cost every command start-up.
  if (target) declareTarget(program, target, ctx, (code) => (exitCode = code));
  else for (const entry of COMMANDS) declare(program, entry);

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

/**
 * The command line read: the one parser (commander), driven by the registry.
 * Every command and flag is declared from its definition (../commands/index.ts,
 * ./flags.ts); what commander read becomes a CommandLine, which a command's
 * flags are read from (./read.ts) and which is written back as a shell line
 * (./render.ts). Help and --version, the root help, an unknown command's
 * suggestion and every mistake (an unknown flag, a missing argument or value)
 * are commander's, worded in vidpub's style (../run/report-error.ts).
 */
import { Command, CommanderError, Option } from 'commander';
import { ExitCode, UsageError } from '../../errors.js';
import { wrapCommand } from '../../ui/wrap.js';
import type { AnyCommandSpec } from '../run/command.js';
import { COMMANDS, commandTerm, findCommand, type CommandEntry } from '../commands/index.js';
import { describeCommand, leafName, parentOf, subcommandsOf } from '../commands/subcommands.js';
import type { Context } from '../run/context.js';
import type { CommandLine } from './command-line.js';
import { GLOBAL_FLAGS, GLOBAL_VALUE_FLAGS, HELP_FLAG, VERSION_FLAG, anyFlags, argsTerm, flagKey, flagTerm, type FlagSpec } from './flags.js';
import { parserErrorWriter, report } from '../run/report-error.js';
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

/** `flags` declared on `cmd`; each one typed on the line is added to `typed` (once, where first typed). */
export function addFlags(cmd: Command, flags: readonly FlagSpec[] | undefined, typed: FlagSpec[] = []): void {
  for (const f of flags ?? []) {
    const option = toOption(f);
    cmd.addOption(option);
    cmd.on(`option:${option.name()}`, () => {
      if (!typed.includes(f)) typed.push(f);
    });
  }
}

/**
 * A word such as -1h is a value (a negative duration: `emulator clock -1h`), not a flag: no flag
 * starts with a digit. Commander takes only a plain negative number for a value, so such a word
 * is marked before it reads the line, and unmarked in what it read (valueOf).
 */
const NEGATIVE = /^-\d/;
const MARK = '\u0000';

function valueOf(v: unknown): unknown {
  if (typeof v === 'string') return v.startsWith(MARK) ? v.slice(MARK.length) : v;
  return Array.isArray(v) ? v.map(valueOf) : v;
}

function valuesOf(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, valueOf(v)]));
}

/** A field list after --json (`--json id,status`): lower-case names, dots for nesting, commas between; never a command name. */
const FIELD_LIST = /^[a-z_]+(?:\.[a-z_]+)*(?:,[a-z_]+(?:\.[a-z_]+)*)*$/;

/**
 * The words made ready for commander: `--json FIELDS` / `--json=FIELDS` taken out (commander sees
 * a plain --json), and each negative value marked (NEGATIVE). The word after --json is a field
 * list when it looks like one (lower-case letters, "_", "." and ",", no digits: ids such as
 * post_123 and file names are not) and is not a command name where the command is still to come
 * (`vidpub --json status ID`; after it, `vidpub status ID --json status` is the field), and,
 * once the command is known, when a word with a dot names only the command's fields (`isField`):
 * `vidpub post --json clip.webm --to …` posts clip.webm, `--json destinations.status` keeps a
 * nested field, and a plain word (`--json stauts`) is still a field list, refused with the
 * fields the command has. Commander's optional values cannot make
 * that choice, so it is made here, before it.
 */
function wordsForCommander(argv: readonly string[], isField: (name: string) => boolean = () => true): { args: string[]; fields?: string[]; command?: string } {
  const args: string[] = [];
  let fields: string[] | undefined;
  let named = false;
  let command: string | undefined;
  // Where the command's name is in `args`: a subcommand is the word right after it (`batch report`).
  let commandAt = -1;
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
    args.push(NEGATIVE.test(a) ? MARK + a : a);
    const next = argv[i + 1];
    if (a === '--json' && next !== undefined && FIELD_LIST.test(next) && (named || !findCommand(next)) && (!next.includes('.') || next.split(',').every((f) => isField(f.split('.')[0]!)))) {
      fields = next.split(',');
      i++;
    } else if (!a.startsWith('-')) {
      if (!named) [command, commandAt] = [a, args.length - 1];
      else if (commandAt === args.length - 2 && findCommand(`${command} ${a}`)) command = `${command} ${a}`;
      named = true;
    }
    else if (GLOBAL_VALUE_FLAGS.has(a) && next !== undefined) args.push(argv[++i]!);
  }
  return { args, fields, command };
}

/** `vidpub help X` is `vidpub X --help`; `vidpub help nope` is `vidpub nope` (exit 2, as gh), not the root help. */
function helpAsFlag(argv: readonly string[]): readonly string[] {
  if (argv[0] !== 'help') return argv;
  if (argv.length === 1) return ['--help'];
  // A subcommand by its path, as the reference names it (`vidpub help "batch report"`), too.
  return findCommand(argv[1]!) ? [...argv[1]!.split(' '), ...argv.slice(2), '--help'] : argv.slice(1);
}

/** What runs a command once its line is read; returns the exit code. */
export type RunLine = (line: CommandLine, spec: AnyCommandSpec) => Promise<number>;

/**
 * A command's module, loaded once the line names it (../commands/load.ts). Handed in by the
 * caller (main.ts) rather than imported: the command modules import what reports their errors,
 * which this parser uses too, so an import here would close a circle.
 */
export type LoadCommand = (name: string) => Promise<AnyCommandSpec>;

/** One reading of a command line: the flags typed so far, the command dispatched to, the run it started. */
interface Reading {
  ctx: Context;
  /** The words commander reads. */
  words: readonly string[];
  /** The command the words name, by its path: "batch report" (a subcommand is the word right after its command). */
  path: string | undefined;
  typed: FlagSpec[];
  jsonFields: string[] | undefined;
  entry?: CommandEntry;
  ran?: Promise<number>;
}

function buildProgram(reading: Reading): Command {
  const { ctx } = reading;
  const program = new Command('vidpub');
  const errorWriter = parserErrorWriter(ctx, () => ({ command: reading.entry?.name, ...program.opts() }));
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
      // The global flags read so far say how the mistake is written (--json, --no-color).
      outputError: (message, write) => errorWriter(message.replaceAll(MARK, ''), write),
    })
    .addHelpCommand(false);
  addFlags(program, GLOBAL_FLAGS, reading.typed);
  // The root help is rendered without commander (see root-help.ts), so the
  // fast path (dist/fast.cjs, run by bin/vidpub.js) prints exactly this text.
  program.helpInformation = () => renderRootHelp(ctx.io.columns);
  return program;
}

/** Command `entry` declared on `parent` (the program, or its parent command's): its usage, aliases and summary (its flags once it is dispatched to). */
function declare(parent: Command, program: Command, entry: CommandEntry): Command {
  const cmd = parent.command(commandTerm(entry, true), { hidden: parentOf(entry) !== undefined }).description(entry.summary);
  for (const alias of entry.aliases ?? []) cmd.alias(alias);
  cmd.exitOverride();
  cmd.addHelpCommand(false);
  cmd.configureOutput({
    writeOut: (s) => program.configureOutput().writeOut!(s),
    writeErr: (s) => program.configureOutput().writeErr!(s),
  });
  return cmd;
}

const GLOBAL_KEYS: ReadonlySet<string> = new Set(anyFlags(GLOBAL_FLAGS).map(flagKey));

/**
 * The command commander dispatched to, made whole: its flags, its description and examples, and
 * the action that runs it with the line read. Done only for that command: the others play no
 * part in parsing, help or errors once one is named.
 */
function prepare(cmd: Command, spec: AnyCommandSpec, reading: Reading, runLine: RunLine): void {
  const entry = reading.entry!;
  cmd.description(describeCommand(entry, spec.description ?? entry.summary));
  // Its subcommands are named in its description (as in its man page), not in a list of commander's.
  if (subcommandsOf(entry).length > 0) cmd.usage(`[options] ${argsTerm(entry.args)}`.trimEnd());
  addFlags(cmd, entry.flags, reading.typed);
  const width = helpWidth(reading.ctx.io.columns) - 4;
  cmd.addHelpText('after', examplesText(spec.examples.map((e) => wrapCommand(e, width, 6).replace(/\n/g, '\n  '))) + GLOBAL_FLAGS_LINE);
  cmd.action((...actionArgs: unknown[]) => {
    const self = actionArgs[actionArgs.length - 1] as Command;
    const { jsonFields } = reading;
    // Commander reads the global flags before the command's own: put them back in the order typed.
    const at = (f: FlagSpec) => reading.words.findIndex((w) => w === `--${f.name}` || w.startsWith(`--${f.name}=`) || (f.short !== undefined && w === `-${f.short}`));
    const typed = [...reading.typed].sort((a, b) => at(a) - at(b));
    const own = new Set(entry.flags ?? []);
    const given = (key: string) => GLOBAL_KEYS.has(key) && typed.some((f) => !own.has(f) && flagKey(f) === key);
    const positional = actionArgs.slice(0, -2).map(valueOf);
    const line: CommandLine = { entry, positional, opts: valuesOf(self.opts()), optsWithGlobals: valuesOf(self.optsWithGlobals()), given, typed, jsonFields };
    reading.ran = runLine(line, spec);
  });
}

/**
 * Reads `argv` (without node and the script) and runs the command it names with `runLine`;
 * help, --version and the parser's mistakes are answered here. Returns the exit code.
 */
export async function readCommandLine(argv: readonly string[], ctx: Context, runLine: RunLine, load: LoadCommand): Promise<number> {
  // `vidpub help environment`: a help topic (as gh's), not a command.
  if (argv[0] === 'help' && argv[1] === 'environment' && argv.length === 2) {
    const { environmentHelp } = await import('../io/environment.js');
    ctx.io.stdout.write(environmentHelp(helpWidth(ctx.io.columns)));
    return ExitCode.OK;
  }
  const words = helpAsFlag(argv);
  const first = wordsForCommander(words);
  let { args, fields } = first;
  // A field list with a dot may be a file name (clip.webm): the command's fields decide, from its module
  // (loaded here first, as it would be anyway). Any other line is read once.
  const entry = fields?.some((f) => f.includes('.')) && first.command !== undefined ? findCommand(first.command) : undefined;
  const known = entry ? (await load(entry.name)).fields : undefined;
  if (known) ({ args, fields } = wordsForCommander(words, (name) => known.includes(name)));
  const reading: Reading = { ctx, words: args, path: first.command, typed: [], jsonFields: fields };
  const program = buildProgram(reading);
  // Each command declared on its parent: the program, or (a subcommand, "batch report") its command's.
  const declared = new Map<CommandEntry, Command>();
  for (const entry of COMMANDS) {
    const parent = parentOf(entry);
    declared.set(entry, declare(parent ? declared.get(parent)! : program, program, entry));
  }
  const commands = new Map([...declared].map(([entry, cmd]) => [cmd, entry]));
  let prepared: CommandEntry | undefined;
  const dispatched = async (_parent: Command, cmd: Command) => {
    const entry = commands.get(cmd);
    if (!entry) return;
    // A subcommand's word after its command's own flags or arguments (`batch --dry-run report`): not read as one.
    if (prepared && prepared === parentOf(entry)) {
      throw new UsageError(`"${leafName(entry)}" comes right after "vidpub ${prepared.name}" to name its subcommand`, {
        hint: `Run vidpub ${entry.name} …, or give a file named ${leafName(entry)} as ./${leafName(entry)}.`,
      });
    }
    reading.entry = entry;
    // The line names a subcommand of this command: its own flags and action play no part.
    if (reading.path?.startsWith(`${entry.name} `)) return;
    prepared = entry;
    prepare(cmd, await load(entry.name), reading, runLine);
  };
  for (const cmd of [program, ...declared.values()]) cmd.hook('preSubcommand', dispatched);

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
    return report(err, ctx);
  }
  return (await reading.ran) ?? ExitCode.OK;
}

/**
 * The command reference as data, gathered from where help reads it: the
 * registry (names, arguments, flags, defaults), each command's module (its
 * description and examples), the root help (description, examples) and the
 * table of exit codes (src/exit-codes.ts). The Markdown pages and the man pages are both rendered from this,
 * so they and `vidpub help COMMAND` say the same.
 */
import { COMMANDS, type CommandEntry } from '../commands/index.js';
import { describeCommand } from '../commands/subcommands.js';
import { loadCommand } from '../commands/load.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG, anyFlags, argsTerm, flagTerm, type ArgSpec, type FlagSpec } from '../line/flags.js';
import { ROOT_DESCRIPTION, ROOT_EXAMPLES, optionDescription } from '../line/root-help.js';
import { commandExitCodes, exitCodeTable, type ExitCodeDoc } from './exit-codes.js';

export interface FlagDoc {
  /** As help writes it: "-y, --yes", "--to <dest>". */
  term: string;
  /** As help writes it, the default included: 'longest wait ... (default: "30m")'. */
  description: string;
  /** The description alone. */
  text: string;
  default?: string;
  repeatable: boolean;
}

export interface CommandDoc {
  /** By its path: "batch report" for a subcommand. */
  name: string;
  /** Its pages' name, the path's words joined by hyphens: vidpub-batch-report for batch report (its Markdown page and man page). */
  page: string;
  group: CommandEntry['group'];
  summary: string;
  description: string;
  /** "vidpub post [options] [file-or-url]", "vidpub history|posts [options]": help's usage line. */
  usage: string;
  args: readonly ArgSpec[];
  /** The command's own flags, then -h, --help: help's "Options:". */
  flags: FlagDoc[];
  examples: readonly string[];
  exitCodes: ExitCodeDoc[];
}

export interface Reference {
  version: string;
  description: string;
  examples: readonly string[];
  /** help's "Global Options:" of a command: -V, --version and the flags every command accepts. */
  globalFlags: FlagDoc[];
  exitCodes: ExitCodeDoc[];
  commands: CommandDoc[];
}

function flagDoc(f: FlagSpec): FlagDoc {
  return { term: flagTerm(f), description: optionDescription(f), text: f.description, default: f.default, repeatable: f.repeatable === true };
}

function flagDocs(flags: readonly FlagSpec[]): FlagDoc[] {
  return flags.filter((f) => !f.hidden).map(flagDoc);
}

async function commandDoc(entry: CommandEntry, table: readonly ExitCodeDoc[]): Promise<CommandDoc> {
  const spec = await loadCommand(entry.name);
  const args = argsTerm(entry.args);
  return {
    name: entry.name,
    page: `vidpub-${entry.name.replaceAll(' ', '-')}`,
    group: entry.group,
    summary: entry.summary,
    description: describeCommand(entry, spec.description ?? entry.summary),
    usage: `vidpub ${[entry.name, ...(entry.aliases ?? [])].join('|')} [options]${args ? ` ${args}` : ''}`,
    args: entry.args ?? [],
    flags: flagDocs([...(entry.flags ?? []), HELP_FLAG]),
    examples: spec.examples,
    exitCodes: commandExitCodes(entry.name, table),
  };
}

export async function gatherReference(version: string): Promise<Reference> {
  const table = exitCodeTable();
  const commands: CommandDoc[] = [];
  for (const entry of COMMANDS) commands.push(await commandDoc(entry, table));
  return {
    version,
    description: ROOT_DESCRIPTION,
    examples: ROOT_EXAMPLES,
    globalFlags: flagDocs(anyFlags([VERSION_FLAG, ...GLOBAL_FLAGS])),
    exitCodes: table,
    commands,
  };
}

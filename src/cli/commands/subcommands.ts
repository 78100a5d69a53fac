/**
 * Subcommands, as cobra's: an entry of the registry named by its path ("batch report") is the
 * subcommand `report` of `batch`: declared on its command by the parser (../line/parse.ts), the
 * word right after it; completed after it; its pages named by the path (vidpub-batch-report).
 */
import { COMMANDS, commandTerm, findCommand, type CommandEntry } from './index.js';

/** A command's parent: `batch` for `batch report`; undefined for a command of its own. */
export function parentOf(c: CommandEntry): CommandEntry | undefined {
  const at = c.name.lastIndexOf(' ');
  return at < 0 ? undefined : findCommand(c.name.slice(0, at));
}

/** The subcommands of `c` (`batch`: report, matrix), in registry order. */
export function subcommandsOf(c: CommandEntry): CommandEntry[] {
  return COMMANDS.filter((s) => parentOf(s) === c);
}

/** The last word of a command's path: `report` for `batch report`. */
export function leafName(c: CommandEntry): string {
  return c.name.slice(c.name.lastIndexOf(' ') + 1);
}

/**
 * A command's description as help, the reference and the man page give it: a command with
 * subcommands (batch) names each of them after its own text.
 */
export function describeCommand(c: CommandEntry, description: string): string {
  const subs = subcommandsOf(c);
  if (subs.length === 0) return description;
  return `${description} Subcommands: ${subs.map((s) => `"vidpub ${commandTerm(s)}": ${s.summary[0]!.toLowerCase()}${s.summary.slice(1)}`).join('; ')} (see their help).`;
}

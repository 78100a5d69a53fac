/**
 * The exit codes for the reference: the table of src/exit-codes.ts (what each
 * code means, which commands end with it), for docs/commands/exit-codes.md and
 * for each command's page and man page (EXIT STATUS).
 */
import { EXIT_CODES, usedBy, type ExitCodeRow } from '../../exit-codes.js';
import { COMMANDS } from '../commands/index.js';

export interface ExitCodeDoc {
  code: number;
  meaning: string;
  /** The commands that can end with it, in the registry's order (every command for 'every'). */
  commands: string[];
}

/** The table, in its order; throws when a row names a command the registry does not have. */
export function exitCodeTable(): ExitCodeDoc[] {
  const names = COMMANDS.map((c) => c.name);
  return EXIT_CODES.map((row: ExitCodeRow) => {
    const unknown = row.commands === 'every' ? [] : row.commands.filter((name) => !names.includes(name));
    if (unknown.length) throw new Error(`src/exit-codes.ts: exit code ${row.code} names ${unknown.join(', ')}, which the command registry does not have`);
    return { code: row.code, meaning: row.meaning, commands: names.filter((name) => usedBy(row, name)) };
  });
}

/** The exit codes `name` can end with, in the table's order. */
export function commandExitCodes(name: string, table: readonly ExitCodeDoc[]): ExitCodeDoc[] {
  return table.filter((e) => e.commands.includes(name));
}

/**
 * A command line as read (by ./parse.ts), in a file of its own so that what writes it back
 * (./render.ts) and what reports an error with it (../run/report-error.ts) need not import the
 * parser, which imports them.
 */
import type { CommandEntry } from '../commands/index.js';
import type { FlagSpec } from './flags.js';
import type { ParsedLine } from './read.js';

/** A command line as read: the command, what the parser read, and which flags were typed (in the order first typed). */
export interface CommandLine extends ParsedLine {
  entry: CommandEntry;
  /** The flags given on the line, global or the command's own, in the order they were first typed (defaults are not). */
  typed: readonly FlagSpec[];
  /** `--json FIELDS`: the fields to keep. */
  jsonFields?: string[];
}

/**
 * Which exit codes each command can end with, for its reference page and man
 * page (EXIT STATUS). What each code means is the root help's list
 * (exitCodesText in ../root-help.ts), read here so that both say the same.
 */
import { ExitCode } from '../../errors.js';
import type { CommandName } from '../commands/index.js';
import { exitCodesText } from '../root-help.js';

const { OK, ERROR, USAGE, AUTH, RATE_LIMITED, NOT_FOUND, FAILED, TIMEOUT, BLOCKED, OUTCOME_UNKNOWN, CONFLICT } = ExitCode;

/** Every command: done, its own trouble, a bad flag; stopped by a signal. */
const ALWAYS = [OK, ERROR, USAGE];
const SIGNALS = [ExitCode.INTERRUPTED, ExitCode.TERMINATED, ExitCode.HANGUP];
/** A command that reads from the service within a --timeout. */
const READS = [...ALWAYS, AUTH, RATE_LIMITED, TIMEOUT];
/** A command that writes and follows what it wrote. */
const WRITES = [...READS, FAILED, OUTCOME_UNKNOWN];

const BY_COMMAND: Record<CommandName, readonly number[]> = {
  login: READS,
  logout: ALWAYS,
  profiles: ALWAYS,
  me: READS,
  destinations: READS,
  options: READS,
  upload: WRITES,
  import: WRITES,
  post: [...WRITES, NOT_FOUND, BLOCKED],
  publish: [...WRITES, NOT_FOUND, BLOCKED, CONFLICT],
  batch: [...WRITES, BLOCKED],
  status: [...READS, NOT_FOUND, FAILED],
  open: [...READS, NOT_FOUND],
  history: READS,
  retry: [...WRITES, NOT_FOUND, BLOCKED],
  version: ALWAYS,
  emulator: ALWAYS,
  demo: [...WRITES, BLOCKED],
  completion: ALWAYS,
  mcp: ALWAYS,
};

export interface ExitCodeDoc {
  code: number;
  meaning: string;
}

/** The codes and meanings of the root help's "Exit codes:" ("0 ok · 1 error · ..."), in its order. */
export function exitCodeTable(): ExitCodeDoc[] {
  const table: ExitCodeDoc[] = [];
  for (const line of exitCodesText().split('\n').slice(2)) {
    for (const part of line.trim().split(' · ')) {
      const m = /^(\d+) (.+)$/.exec(part);
      if (m) table.push({ code: Number(m[1]), meaning: m[2]! });
    }
  }
  const missing = Object.values(ExitCode).filter((code) => !table.some((e) => e.code === code));
  if (missing.length) throw new Error(`the root help's exit codes (exitCodesText) do not name ${missing.join(', ')}`);
  return table;
}

/** The exit codes `name` can end with, in the table's order. */
export function commandExitCodes(name: string, table: readonly ExitCodeDoc[]): ExitCodeDoc[] {
  const codes = (BY_COMMAND as Record<string, readonly number[] | undefined>)[name];
  if (!codes) throw new Error(`no exit codes for command "${name}": add it to BY_COMMAND in src/cli/reference/exit-codes.ts`);
  const applies = new Set([...codes, ...SIGNALS]);
  return table.filter((e) => applies.has(e.code));
}

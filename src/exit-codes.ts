/**
 * The exit codes of vidpub: the one table of them (code, name, meaning, the
 * commands that can end with it). Everything else takes them from here:
 *
 * - the error classes (src/errors.ts: ExitCode, exitCodeOf);
 * - the root help's "Exit codes:" (src/cli/line/root-help.ts), which the
 *   --help fast path prints too (so this file stays data: it is in dist/fast.cjs);
 * - the reference, docs/commands/exit-codes.md and each command's page and man
 *   page (src/cli/reference/, written by `npm run docs:gen`).
 *
 * test/docs/exit-codes.test.ts checks against it what cannot be rendered from it:
 * docs/reliability.md's table (its codes and meanings, in this order; the examples
 * are the guide's own) and the signal codes of bin/vidpub.js.
 *
 * A new code is one row here (its place is its place in help and the docs), a
 * row in docs/reliability.md's table, then `npm run docs:gen`.
 */

/** The commands that send requests to the service within a --timeout (and so meet its refusals). */
const ASKING = ['login', 'me', 'destinations', 'options', 'status', 'open', 'history', 'schedule'] as const;
/** The commands that send a write and follow what it became. */
const WRITING = ['upload', 'import', 'post', 'publish', 'batch', 'retry', 'demo'] as const;

export interface ExitCodeRow {
  readonly code: number;
  /** Its name in code: ExitCode.NAME. */
  readonly name: string;
  /** What it means, in a few words: help, the reference, man pages and docs/reliability.md say this. */
  readonly meaning: string;
  /** The commands that can end with it, by their registry names; 'every' for every command. */
  readonly commands: 'every' | readonly string[];
  /** The process signal it says stopped the command (bin/vidpub.js exits with it on a second one). */
  readonly signal?: 'SIGINT' | 'SIGTERM' | 'SIGHUP';
}

/** The exit codes, in the order help and the docs list them. */
export const EXIT_CODES = [
  { code: 0, name: 'OK', meaning: 'ok', commands: 'every' },
  { code: 1, name: 'ERROR', meaning: 'unexpected or service error', commands: 'every' },
  { code: 2, name: 'USAGE', meaning: 'usage or invalid input', commands: 'every' },
  { code: 3, name: 'AUTH', meaning: 'authentication or permission', commands: [...ASKING, ...WRITING] },
  { code: 4, name: 'RATE_LIMITED', meaning: 'rate limited and not waited out', commands: [...ASKING, ...WRITING] },
  { code: 5, name: 'NOT_FOUND', meaning: 'not found', commands: ['post', 'publish', 'status', 'open', 'retry'] },
  { code: 6, name: 'FAILED', meaning: 'finished but failed', commands: [...WRITING, 'status', 'batch report'] },
  { code: 7, name: 'TIMEOUT', meaning: 'stopped waiting (--timeout)', commands: [...ASKING, ...WRITING] },
  { code: 8, name: 'BLOCKED', meaning: 'blocked by issues of severity error', commands: ['post', 'publish', 'batch', 'retry', 'demo'] },
  { code: 9, name: 'OUTCOME_UNKNOWN', meaning: 'outcome unknown', commands: WRITING },
  { code: 10, name: 'CONFLICT', meaning: "the post's state does not allow it", commands: ['publish'] },
  { code: 130, name: 'INTERRUPTED', meaning: 'interrupted (SIGINT)', commands: 'every', signal: 'SIGINT' },
  { code: 143, name: 'TERMINATED', meaning: 'terminated (SIGTERM)', commands: 'every', signal: 'SIGTERM' },
  { code: 129, name: 'HANGUP', meaning: 'hung up (SIGHUP)', commands: 'every', signal: 'SIGHUP' },
] as const satisfies readonly ExitCodeRow[];

type Row = (typeof EXIT_CODES)[number];

/** The codes by name (ExitCode.USAGE is 2), made from the table. */
export const ExitCode = /* @__PURE__ */ Object.fromEntries(/* @__PURE__ */ EXIT_CODES.map((r) => [r.name, r.code])) as {
  readonly [R in Row as R['name']]: R['code'];
};
export type ExitCodeValue = Row['code'];

/** The code that says `signal` stopped the command (143 for SIGTERM), if it is one of the table's. */
export function signalExitCode(signal: string | undefined): ExitCodeValue | undefined {
  return EXIT_CODES.find((r: ExitCodeRow) => r.signal !== undefined && r.signal === signal)?.code;
}

/** Whether the command named `command` can end with the row's code. */
export function usedBy(row: ExitCodeRow, command: string): boolean {
  return row.commands === 'every' || row.commands.includes(command);
}

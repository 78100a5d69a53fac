import type { ApiClient, ClientSettings } from '../../api/client.js';
import type { ArgsFor, CommandName, FlagsFor } from '../commands/index.js';
import type { Context } from './context.js';
import type { Logger } from '../../core/log.js';
import type { FlagSpec, FlagsOf } from '../line/flags.js';
import type { LineEdits } from '../line/render.js';
import type { Session } from '../../session/session.js';
import type { Colors } from '../../ui/color.js';
import type { DataOut } from '../../ui/output.js';

/** Flags every command accepts (their definitions: GLOBAL_FLAGS in flags.ts; read by invocation.ts). */
export interface GlobalOptions {
  json: boolean;
  /** `--json id,status`: the fields to keep. */
  jsonFields?: string[];
  /** `--jq EXPR`: a jq filter over the JSON document (implies --json). */
  jq?: string;
  quiet: boolean;
  /** false with --no-input or VIDPUB_NO_INPUT=1. */
  input: boolean;
  /** false with --no-color. */
  color: boolean;
  profile: string;
  baseUrl?: string;
  apiKeyFile?: string;
  /** --ca-file. */
  caFile?: string;
  workspace?: string;
  debug: boolean;
  maxWaitMs: number;
  /** --max-wait was given on the command line (not its default): a command that caps waits must honour it. */
  maxWaitGiven?: boolean;
  /** --unanswered-timeout in ms: the longest stretch of no answer a wait rides out. */
  unansweredMs?: number;
  waitForQuota: boolean;
  /** false with --no-journal or VIDPUB_NO_JOURNAL=1. */
  journal?: boolean;
  /** --timeout of a command that is only requests (COMMAND_TIMEOUT): the client's budget, in ms. */
  commandTimeoutMs?: number;
  /** false with --no-cache or VIDPUB_NO_CACHE=1. */
  cache?: boolean;
}

export type { Logger } from '../../core/log.js';

/** One run of one command: the injected Context plus what the global flags decided. */
export interface Invocation {
  ctx: Context;
  globals: GlobalOptions;
  /** Prompts allowed: stdin and stderr are TTYs and neither --no-input nor VIDPUB_NO_INPUT. */
  interactive: boolean;
  /** Colours for stdout and stderr, each off unless that stream is a TTY (NO_COLOR / FORCE_COLOR honoured). */
  colors: { stdout: Colors; stderr: Colors };
  log: Logger;
  /** Writes one line of data to stdout. */
  print(line?: string): void;
  /** stdout for printers: print, whether it is a terminal, its colours. */
  out: DataOut;
  /** What the flows run with (client, clock, signal, log, prompts, progress, stderr). */
  session: Session;
  /** Settings handed to the client factory. */
  clientSettings: ClientSettings;
  /** The API client, built once per invocation. */
  client(): Promise<ApiClient>;
  /** Runs another vidpub command line in-process with its own Context (the demo's steps): main(), injected. */
  rerun(argv: string[], ctx: Context): Promise<number>;
  /**
   * This command's line as read, written back for a shell with `edits` (and `args` in place of
   * its arguments): the command a hint or a rerun line suggests (../line/render.ts).
   */
  commandLine(edits?: LineEdits, args?: readonly string[]): string;
}

/**
 * A command: flags, validation up front, then run() that does the work and
 * returns data, then printers that turn the data into output.
 */
export interface CommandSpec<N extends CommandName = CommandName, O = unknown, D = unknown> {
  // Name, summary, positional arguments and flags are data in the registry
  // (src/cli/commands/index.ts): help, the fast path and completion read them
  // without loading the command's module.
  /** Longer text for `vidpub NAME --help` (defaults to the registry's summary). */
  description?: string;
  /** Shown under "Examples:" in `vidpub NAME --help`. */
  examples: string[];
  /**
   * Validates arguments and flags before any request; throws UsageError.
   * `args` are the positional values and `flags` the command's own flags, typed from its
   * registry entry (FlagsFor: `--no-wait` is `wait: boolean`, `--to` a list).
   */
  parse(args: ArgsFor<N>, flags: FlagsFor<N>, inv: Invocation): O | Promise<O>;
  /** Does the work, returns data. May throw a VidpubError carrying `data` to print. */
  run(opts: O, inv: Invocation): Promise<D>;
  /** Prints data for a person (stdout a TTY) or a pipe; defaults to JSON. */
  print?(data: D, inv: Invocation): void;
  /** The JSON document for --json (defaults to the data itself). */
  json?(data: D): unknown;
  /**
   * The top-level fields the JSON document (each record of a list) can have: `--json FIELDS`
   * naming another is refused before any request, and one the document lacks prints null.
   */
  fields?: readonly string[];
}

/** How a command prints its data (and the data an error carries). */
export type CommandPrinters<D = unknown> = Pick<CommandSpec<CommandName, unknown, D>, 'print' | 'json' | 'fields'>;

/** Command N of the registry: its parse() gets the flags and arguments of N's entry. */
export function defineCommand<N extends CommandName, O, D>(spec: CommandSpec<N, O, D>): CommandSpec<N, O, D> {
  return spec;
}

/**
 * A command whose name is known only at run time (main() loads it by name): its parse() takes
 * the values read from its registry entry (../line/read.ts readFlags, readArgs).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommandSpec = Omit<CommandSpec<CommandName, any, any>, 'parse'> & {
  parse(args: readonly (string | readonly string[] | undefined)[], flags: FlagsOf<readonly FlagSpec[]>, inv: Invocation): unknown;
};

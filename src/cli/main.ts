/**
 * main(argv, ctx): the command named in argv is loaded, its command line read
 * (./quick-parse.ts, or commander in ./program.ts for help, mistakes and the
 * rest), its flags read into an Invocation (./invocation.ts), and what goes
 * wrong reported (./report-error.ts).
 */
import { ExitCode } from '../errors.js';
import { parseTimeout } from '../session/wait-flags.js';
import { commandNameOf, splitJsonFields } from './argv.js';
import type { AnyCommandSpec, Invocation } from './command.js';
import { COMMAND_TIMEOUT, findCommand, type CommandEntry } from './commands/index.js';
import { loadCommand } from './commands/load.js';
import type { Context } from './context.js';
import { readArgs, readFlags, type ParsedLine } from './declare.js';
import { closeInvocation, makeInvocation, resolveGlobals } from './invocation.js';
import { checkFields, checkJq, printData } from './json-output.js';
import { GLOBAL_FLAGS } from './flags.js';
import { quickParse } from './quick-parse.js';
import { helpWidth } from './root-help.js';
import { report } from './report-error.js';

export type { Context } from './context.js';

/** What one command's run needs from main(): the context, argv as typed, the --json fields taken out of it. */
interface Run {
  ctx: Context;
  argv: string[];
  jsonFields: string[] | undefined;
  entry: CommandEntry;
  spec: AnyCommandSpec;
}

/** The command run on its command line as read: its flags read, checked and run, its data printed; returns the exit code. */
async function runCommand(run: Run, line: ParsedLine): Promise<number> {
  const { ctx, entry, spec } = run;
  let inv: Invocation | undefined;
  try {
    const flags = readFlags(entry.flags, line.opts);
    // login, me, destinations, options: --timeout is a budget for all of the client's requests.
    const commandTimeoutMs = entry.flags?.includes(COMMAND_TIMEOUT) ? parseTimeout(flags) : undefined;
    const globals = resolveGlobals(readFlags(GLOBAL_FLAGS, line.optsWithGlobals), ctx, line.given);
    inv = makeInvocation(ctx, { ...globals, jsonFields: run.jsonFields, commandTimeoutMs }, main);
    // A mistake in --json FIELDS or --jq is found before anything is sent, not after a write.
    if (run.jsonFields && spec.fields) checkFields(run.jsonFields, spec.fields);
    if (inv.globals.jq !== undefined) await checkJq(inv.globals.jq);
    const opts = await spec.parse(readArgs(entry.args, line.positional), flags, inv);
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
  // `vidpub help environment`: a help topic (as gh's), not a command.
  if (args[0] === 'help' && args[1] === 'environment' && args.length === 2) {
    const { environmentHelp } = await import('./environment.js');
    ctx.io.stdout.write(environmentHelp(helpWidth(ctx.io.columns)));
    return ExitCode.OK;
  }
  // `vidpub help X` is `vidpub X --help`; `vidpub help nope` is `vidpub nope` (exit 2, as gh), not the root help.
  if (args[0] === 'help') args = args.length === 1 ? ['--help'] : findCommand(args[1]!) ? [...args.slice(1), '--help'] : args.slice(1);
  const split = splitJsonFields(args);
  args = split.args;
  const name = commandNameOf(args);
  const entry = name ? findCommand(name) : undefined;
  if (!entry) return (await import('./program.js')).runWithCommander(args, ctx);
  const spec = await loadCommand(entry.name);
  const run: Run = { ctx, argv, jsonFields: split.fields, entry, spec };
  const line = quickParse(args, entry);
  if (line) return runCommand(run, line);
  return (await import('./program.js')).runWithCommander(args, ctx, { entry, spec, run: (read) => runCommand(run, read) });
}

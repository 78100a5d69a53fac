/**
 * main(argv, ctx): the command line read (./line/parse.ts), the command's
 * flags read into an Invocation (./run/invocation.ts) and run, its data
 * printed, and what goes wrong reported (./run/report-error.ts).
 */
import { ExitCode, TimeoutError } from '../errors.js';
import { parseTimeout } from '../session/wait-flags.js';
import type { AnyCommandSpec, Invocation } from './run/command.js';
import { COMMAND_TIMEOUT, EVENTS } from './commands/index.js';
import type { Context } from './run/context.js';
import { readArgs, readFlags } from './line/read.js';
import type { CommandLine } from './line/command-line.js';
import { readCommandLine } from './line/parse.js';
import { loadCommand } from './commands/load.js';
import { renderLine } from './line/render.js';
import { clientMade, closeInvocation, makeInvocation, resolveGlobals } from './run/invocation.js';
import { checkFields, checkJq, printData } from './output/json-output.js';
import { GLOBAL_FLAGS } from './line/flags.js';
import { report } from './run/report-error.js';

export type { Context } from './run/context.js';

/** The command of `line` run in `ctx`: its flags read, checked and run, its data printed; returns the exit code. */
async function runCommand(ctx: Context, line: CommandLine, spec: AnyCommandSpec): Promise<number> {
  const { entry } = line;
  let inv: Invocation | undefined;
  try {
    const flags = readFlags(entry.flags, line.opts);
    // login, me, destinations, options: --timeout is a budget for all of the client's requests.
    const commandTimeoutMs = entry.flags?.includes(COMMAND_TIMEOUT) ? parseTimeout(flags) : undefined;
    const globals = resolveGlobals(readFlags(GLOBAL_FLAGS, line.optsWithGlobals), ctx, line.given);
    inv = makeInvocation(ctx, { ...globals, jsonFields: line.jsonFields, commandTimeoutMs }, { rerun: main, commandLine: (edits, args) => renderLine(line, edits, args) });
    // A mistake in --json FIELDS or --jq is found before anything is sent, not after a write.
    if (line.jsonFields && spec.fields) checkFields(line.jsonFields, spec.fields);
    if (inv.globals.jq !== undefined) await checkJq(inv.globals.jq);
    // --events (a command whose registry entry has EVENTS): refused with --json before anything is read, then
    // every event its flow tells is a line on stdout (./output/events-output.ts). One path for every command.
    if (entry.flags?.includes(EVENTS) && (flags as { events?: boolean }).events) (await import('./output/events-output.js')).startEvents(inv, true);
    const opts = await spec.parse(readArgs(entry.args, line.positional), flags, inv);
    const data = await spec.run(opts, inv);
    // The budget covers handling the answer too (parsing, redacting), which no signal stops: spent by then, nothing is printed.
    if (commandTimeoutMs !== undefined && clientMade(inv)?.budgetSpent?.()) throw spentReading();
    await printData(spec, data, inv);
    return ExitCode.OK;
  } catch (err) {
    return await report(err, ctx, line, inv, spec);
  } finally {
    if (inv) await closeInvocation(inv);
  }
}

/** exit 7: the command's --timeout (COMMAND_TIMEOUT: its requests' budget, from the first) was spent by the time its answer was handled. */
function spentReading(): TimeoutError {
  return new TimeoutError('Stopped (--timeout reached) while handling the answer, after it arrived; nothing was printed.', {
    hint: 'Run the command again, with a longer --timeout. An answer that slow to handle is far larger than the service sends (a proxy or captive portal in front of it?): --debug shows it.',
  });
}

/**
 * Runs vidpub with `argv` (without node and script) in `ctx`; returns the exit
 * code. Never calls process.exit and never reads process.* directly.
 */
export async function main(argv: string[], ctx: Context): Promise<number> {
  return readCommandLine(argv, ctx, (line, spec) => runCommand(ctx, line, spec), loadCommand);
}

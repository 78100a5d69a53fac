/**
 * An Invocation: one run of one command, built from the injected Context and
 * what the global flags (and their environment variables) decided.
 */
import { UsageError, sanitize } from '../../errors.js';
import type { ApiClient, ClientSettings } from '../../api/client.js';
import { colorLevel, makeColors } from '../../ui/color.js';
import { canRepaint } from '../../ui/live-region.js';
import { parseBoundedDuration } from '../../time/duration.js';
import { truthy } from '../../util/env.js';
import { positiveDuration } from '../../session/wait-flags.js';
import type { GlobalOptions, Invocation, Logger } from './command.js';
import type { Context } from './context.js';
import { lazyJournal } from './journal-session.js';
import type { GlobalFlags } from '../line/flags.js';

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** What the global flags and their environment variables decide (the command's --timeout aside). */
export function resolveGlobals(all: GlobalFlags, ctx: Context, given: (key: keyof GlobalFlags) => boolean): GlobalOptions {
  const profile = all.profile ?? ctx.env.VIDPUB_PROFILE ?? 'default';
  if (!PROFILE_NAME.test(profile)) {
    const from = all.profile !== undefined ? '--profile' : 'VIDPUB_PROFILE';
    throw new UsageError(`invalid profile name "${sanitize(profile)}" (from ${from}): use letters, digits, "-" and "_" (at most 64)`);
  }
  // `--workspace "$WS"` with WS unset: the check of the workspace is not silently turned off.
  if (all.workspace?.trim() === '') {
    throw new UsageError('--workspace is empty: give the name of the workspace writes must go to, or leave the flag out');
  }
  if (all.apiKeyFile?.trim() === '') {
    throw new UsageError('--api-key-file is empty: give the path of a file that holds only the key');
  }
  return {
    json: all.json || all.jq !== undefined,
    jq: all.jq,
    quiet: all.quiet,
    input: all.input && !truthy(ctx.env.VIDPUB_NO_INPUT),
    color: all.color,
    profile,
    baseUrl: all.baseUrl,
    apiKeyFile: all.apiKeyFile,
    caFile: all.caFile,
    workspace: all.workspace ?? (ctx.env.VIDPUB_WORKSPACE || undefined),
    debug: all.debug || truthy(ctx.env.VIDPUB_DEBUG),
    maxWaitMs: parseBoundedDuration(all.maxWait, '--max-wait'),
    maxWaitGiven: given('maxWait'),
    unansweredMs: positiveDuration(all.unansweredTimeout, '--unanswered-timeout'),
    waitForQuota: all.waitForQuota,
    journal: all.journal && !truthy(ctx.env.VIDPUB_NO_JOURNAL),
    cache: all.cache && !truthy(ctx.env.VIDPUB_NO_CACHE),
  };
}

function makeLogger(ctx: Context, globals: GlobalOptions, colors: Invocation['colors']): Logger {
  const { stderr } = ctx.io;
  return {
    info: (line) => {
      if (!globals.quiet) stderr.write(line + '\n');
    },
    warn: (line) => {
      stderr.write(colors.stderr.yellow('!') + ' ' + line + '\n');
    },
    debug: (line) => {
      if (globals.debug) stderr.write(colors.stderr.dim(line) + '\n');
    },
  };
}

function clientSettingsOf(globals: GlobalOptions): ClientSettings {
  return {
    profile: globals.profile,
    baseUrl: globals.baseUrl,
    apiKeyFile: globals.apiKeyFile,
    caFile: globals.caFile,
    workspace: globals.workspace,
    debug: globals.debug,
    maxWaitMs: globals.maxWaitMs,
    timeoutMs: globals.commandTimeoutMs,
    waitForQuota: globals.waitForQuota,
    quiet: globals.quiet,
    cache: globals.cache,
  };
}

/** Closes what an invocation opened (the client's sockets), if anything. */
const disposers = new WeakMap<Invocation, () => Promise<void>>();
const madeClients = new WeakMap<Invocation, () => ApiClient | undefined>();

/** The client `inv` made, if it made one (none is made here). */
export function clientMade(inv: Invocation): ApiClient | undefined {
  return madeClients.get(inv)?.();
}

/** What an invocation knows of its command line: main() gives both (a test's invocation neither). */
export interface InvocationLine {
  rerun: Invocation['rerun'];
  commandLine: Invocation['commandLine'];
}

const noLine: InvocationLine = {
  rerun: () => Promise.reject(new Error('this invocation was built without main() to rerun a command line')),
  commandLine: () => {
    throw new Error('this invocation was built without a command line to write back');
  },
};

/**
 * An Invocation of `globals` in `ctx`. `line.rerun` runs another command line in-process (main()
 * passes itself: the demo's steps), `line.commandLine` writes this one back; close it with closeInvocation().
 */
export function makeInvocation(ctx: Context, globals: GlobalOptions, line: InvocationLine = noLine): Invocation {
  const { io, env } = ctx;
  const colors = {
    stdout: makeColors(colorLevel({ isTTY: io.stdoutIsTTY, flag: globals.color, env })),
    stderr: makeColors(colorLevel({ isTTY: io.stderrIsTTY, flag: globals.color, env })),
  };
  const log = makeLogger(ctx, globals, colors);
  const clientSettings = clientSettingsOf(globals);
  let client: Promise<ApiClient> | undefined;
  const print = (line = '') => {
    io.stdout.write(line + '\n');
  };
  const interactive = globals.input && io.stdinIsTTY && io.stderrIsTTY;
  const repaint = canRepaint(io.stderrIsTTY, env);
  // The client once made: one still being made when the command ends (a key file that is a pipe, its wait cut
  // short by --timeout) has nothing to close, and is not waited for.
  let made: ApiClient | undefined;
  const getClient = () => (client ??= ctx.createClient(clientSettings).then((c) => (made = c)));
  const journal = globals.journal === false ? undefined : lazyJournal({ env, profile: globals.profile, client: getClient, clock: ctx.clock, signal: ctx.signal, warn: log.warn });
  const inv: Invocation = {
    ctx,
    globals,
    interactive,
    colors,
    log,
    print,
    out: { print, tty: io.stdoutIsTTY, colors: colors.stdout, columns: io.stdoutIsTTY ? io.columns : undefined },
    session: {
      client: getClient,
      clock: ctx.clock,
      // The process's start; none given (a command run in-process), the post pipeline (posts/post/flow.ts) takes the clock's time when it starts.
      startedAt: ctx.startedAt,
      signal: ctx.signal,
      log,
      quiet: globals.quiet,
      interactive,
      prompter: () => ctx.prompter(),
      progress: async () => (await import('../../ui/progress.js')).createProgress({ io, quiet: globals.quiet, clock: ctx.clock, repaint }),
      screen: {
        write: (text) => {
          io.stderr.write(text);
        },
        tty: repaint,
        columns: io.columns,
        colors: colors.stderr,
      },
      debugOut: globals.debug ? io.stderr : undefined,
      unansweredMs: globals.unansweredMs,
      journal,
    },
    clientSettings,
    client: getClient,
    rerun: line.rerun,
    commandLine: line.commandLine,
  };
  madeClients.set(inv, () => made);
  disposers.set(inv, async () => {
    await made?.close();
    // Last, after the output: a post run's note goes only once its outcome is printed.
    await journal?.settle().catch(() => undefined);
  });
  return inv;
}

/** Closes what `inv` opened (the client's sockets), if anything; never throws. */
export async function closeInvocation(inv: Invocation): Promise<void> {
  await disposers.get(inv)?.().catch(() => undefined);
}

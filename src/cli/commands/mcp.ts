import type { ApiClient } from '../../api/client.js';
import { sanitize } from '../../errors.js';
import type { Session } from '../../session/session.js';
import { silentProgress } from '../../ui/progress.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { lazyJournal } from '../run/journal-session.js';

/**
 * The longest a tool call waits out a 429 unless --max-wait is given (MCP
 * clients give up on a call after about a minute); a longer wait comes back
 * as a rate_limited tool error with retry_after_sec, for the assistant to
 * decide.
 */
export const MCP_MAX_RATE_WAIT_MS = 30_000;

/**
 * The session the tools run with: never prompts, never writes to stdout (the
 * protocol channel), quiet on stderr unless --debug, rate-limit waits capped
 * unless --max-wait says otherwise (no --wait-for-quota: a call must not
 * sleep until midnight), and a client that is built again on the next call if
 * building it failed (a key stored by `vidpub login` meanwhile is then picked up).
 */
function serverSession(inv: Invocation): { session: Session; dispose(): Promise<void> } {
  const { ctx, globals } = inv;
  const maxWaitMs = globals.maxWaitGiven ? globals.maxWaitMs : Math.min(globals.maxWaitMs, MCP_MAX_RATE_WAIT_MS);
  const clientSettings = { ...inv.clientSettings, quiet: !globals.debug, maxWaitMs, maxWaitPer: 'request' as const, waitForQuota: false };
  let client: Promise<ApiClient> | undefined;
  const debugOnly = (line: string) => inv.log.debug(line);
  const getClient = () => {
    client ??= ctx.createClient(clientSettings);
    client.catch(() => (client = undefined));
    return client;
  };
  const session: Session = {
    client: getClient,
    clock: ctx.clock,
    signal: ctx.signal,
    log: { info: debugOnly, warn: debugOnly, debug: debugOnly },
    quiet: true,
    interactive: false,
    prompter: () => ctx.prompter(),
    progress: async () => silentProgress,
    screen: { write: () => {}, tty: false, colors: inv.colors.stderr },
    debugOut: inv.session.debugOut,
    // What the tools create is recorded like the CLI's posts; a journal that cannot be written says so once on stderr (the client's log).
    journal:
      globals.journal === false
        ? undefined
        : lazyJournal({ env: ctx.env, profile: globals.profile, client: getClient, clock: ctx.clock, signal: ctx.signal, warn: (line) => ctx.io.stderr.write(`vidpub mcp: ${line}\n`) }),
  };
  return {
    session,
    dispose: async () => {
      const c = await client?.catch(() => undefined);
      await c?.close();
    },
  };
}

export default defineCommand<'mcp', Record<string, never>, undefined>({
  description:
    'Run a local MCP server on stdin/stdout, for an AI assistant on this machine (Claude Desktop, Claude Code, ' +
    'Cursor, ...) to publish videos with your stored profile or VIDPUB_API_KEY. It offers the service tools ' +
    '(get_me, list_destinations, get_destination_options, import_media, get_media, create_post, publish_post, get_post) ' +
    'plus upload_file, which uploads a local video file, and wait_for_post, which follows a post to its end with progress notifications. Writes honour --workspace. It never prompts; it logs to ' +
    'stderr only with --debug (and always for a message it refuses: not JSON, over 4 MiB, bad params, each answered ' +
    'with a JSON-RPC error), and runs until its input closes or Ctrl-C. Register it in the MCP client with command ' +
    '"vidpub" and args ["mcp"] (see the manual, docs/mcp.md).',
  examples: [
    'vidpub mcp',
    'vidpub --profile work --workspace Marketing mcp',
    'vidpub --api-key-file ~/.secrets/vidpub-key mcp --debug 2> vidpub-mcp.log',
  ],
  parse() {
    return {};
  },
  async run(_opts, parent) {
    const { ctx } = parent;
    const { session, dispose } = serverSession(parent);
    const inv = parent;
    const [{ LineTransport }, { createLocalMcpServer }, { PendingTrackingTransport }] = await Promise.all([
      import('../../mcp/stdio-transport.js'),
      import('../../mcp/local-server.js'),
      import('../../mcp/pending.js'),
    ]);

    if (ctx.io.stdinIsTTY) {
      ctx.io.stderr.write('vidpub mcp speaks the Model Context Protocol on stdin/stdout: register it in an MCP client (see the manual, docs/mcp.md). Ctrl-C to stop.\n');
    }
    // Say at once when tools cannot work (no key, a bad base URL): MCP clients keep the server's stderr in their logs.
    try {
      await session.client();
    } catch (err) {
      ctx.io.stderr.write(`vidpub mcp: ${sanitize(err instanceof Error ? err.message : String(err))} Tools will answer with this error until it is fixed.\n`);
    }

    const server = createLocalMcpServer(session, {
      version: ctx.version,
      cwd: ctx.cwd,
      home: ctx.env.HOME || undefined,
      maxWaitMs: parent.globals.maxWaitGiven ? parent.globals.maxWaitMs : undefined,
      profile: parent.globals.profile,
    });
    // A refused message (not JSON, too large, bad params) is answered with a JSON-RPC error and always logged on stderr.
    const lines = new LineTransport(ctx.io.stdin, ctx.io.stdout, { log: (line) => ctx.io.stderr.write(`${line}\n`) });
    const transport = new PendingTrackingTransport(lines);
    let stopped: () => void = () => {};
    const done = new Promise<'input-closed' | 'interrupted'>((resolve) => {
      const closed = () => resolve('input-closed');
      stopped = closed;
      if (ctx.signal.aborted) resolve('interrupted');
      ctx.signal.addEventListener('abort', () => resolve('interrupted'), { once: true });
      ctx.io.stdin.once('end', closed);
      ctx.io.stdin.once('close', closed);
      // The client went away: nothing more can be answered.
      ctx.io.stdout.on('error', closed);
    });
    server.server.onclose = () => stopped();
    await server.connect(transport);
    if (ctx.io.stdin.readableEnded) stopped();
    inv.log.debug(`vidpub mcp: serving on stdio (${ctx.version})`);

    const why = await done;
    // Input closed: answer the calls still running before going; Ctrl-C interrupts them.
    if (why === 'input-closed') await transport.idle();
    inv.log.debug(`vidpub mcp: stopping (${why === 'interrupted' ? 'interrupted' : 'input closed'})`);
    await server.close().catch(() => undefined);
    await dispose();
    // Let the last answers reach the client before the process exits.
    const out = ctx.io.stdout;
    if (out.writableNeedDrain && !out.destroyed) await new Promise<void>((resolve) => { out.once('drain', resolve); out.once('error', resolve); out.once('close', resolve); });
    return undefined;
  },
  print() {},
  json: () => undefined,
});

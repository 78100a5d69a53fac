/**
 * The local MCP server behind `vidpub mcp`: the service tools through the
 * REST client (stored profile or VIDPUB_API_KEY, --workspace checked before
 * every write, retries and rate-limit waits as in the CLI), plus upload_file,
 * which checks and streams a local file with the same flow as `vidpub upload`.
 * Nothing here prompts or writes to stdout (the protocol channel).
 */
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { responseMeta, type ApiClient } from '../api/client.js';
import type { CreatePostRequest } from '../contract/wire-types.js';
import { ExitCode, OutcomeUnknownError, RateLimitError, TimeoutError, VidpubError, isDeadline, sanitize } from '../errors.js';
import { bindDeadline } from '../session/deadline.js';
import { formatDuration } from '../time/duration.js';
import { postRefusal, refuse } from '../core/post-rules.js';
import type { Session } from '../session/session.js';
import type { Progress } from '../ui/progress.js';
import {
  LOCAL_TOOLS,
  MCP_SERVER_NAME,
  SERVICE_TOOLS,
  registerTools,
  toolError,
  toolResult,
  type LocalToolName,
  type ServiceToolName,
  type ToolCallExtra,
  type ToolErrorInfo,
  type ToolHandlers,
} from '../contract/mcp-tools.js';

/** The class of an error, by its exit code (docs/reliability.md lists the codes). */
const ERROR_CLASSES: Record<number, string> = {
  [ExitCode.ERROR]: 'service_error',
  [ExitCode.USAGE]: 'invalid_input',
  [ExitCode.AUTH]: 'auth_error',
  [ExitCode.RATE_LIMITED]: 'rate_limited',
  [ExitCode.NOT_FOUND]: 'not_found',
  [ExitCode.FAILED]: 'failed',
  [ExitCode.TIMEOUT]: 'timeout',
  [ExitCode.BLOCKED]: 'blocked',
  [ExitCode.OUTCOME_UNKNOWN]: 'outcome_unknown',
  [ExitCode.CONFLICT]: 'conflict',
  [ExitCode.INTERRUPTED]: 'interrupted',
};

/**
 * A tool error for anything a handler throws: the error's class (its exit
 * code and name), the service's code when it came from the service, the
 * message and hint, and for rate limits the retry time.
 */
export function localToolError(err: unknown): CallToolResult {
  if (!(err instanceof VidpubError)) {
    return toolError({ code: 'unexpected', class: 'service_error', exit_code: ExitCode.ERROR, message: sanitize(err instanceof Error ? err.message : String(err)) });
  }
  const cls = ERROR_CLASSES[err.exitCode] ?? 'service_error';
  const http = err.http;
  const rate = err instanceof RateLimitError ? err : undefined;
  const info: ToolErrorInfo = { code: rate?.code ?? http?.code ?? cls, class: cls, exit_code: err.exitCode, message: sanitize(err.message) };
  if (err.hint) info.hint = sanitize(err.hint);
  if (http) {
    info.status = http.status;
    if (http.type) info.type = http.type;
    if (http.param) info.param = http.param;
    const body = (http.body as { error?: Record<string, unknown> } | undefined)?.error;
    if (Array.isArray(body?.issues)) info.issues = body.issues;
    if (typeof body?.post_id === 'string') info.post_id = body.post_id;
  }
  const retryAfter = rate?.retryAfterSec ?? http?.retryAfterSec;
  if (retryAfter !== undefined) info.retry_after_sec = retryAfter;
  if (rate?.resetAt) info.reset_at = rate.resetAt;
  if (err instanceof OutcomeUnknownError && err.idempotencyKey) info.idempotency_key = err.idempotencyKey;
  if (err.data !== undefined) info.data = err.data;
  return toolError(info);
}

/** ~/x and relative paths to an absolute path. */
export function localPath(path: string, cwd: string, home = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return resolve(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * Upload and processing progress as MCP progress notifications: one
 * increasing value out of 100 (bytes sent 0-50, processing 50-100), at most
 * every 5 points or on a phase change.
 */
export function mcpProgress(notify: NonNullable<ToolCallExtra['progress']>): Progress {
  let shown = -1;
  let label = '';
  let total = 0;
  const send = (value: number, message: string, force = false) => {
    const v = Math.max(shown, Math.min(100, Math.floor(value)));
    if (v <= shown || (!force && v - shown < 5 && v < 100)) return;
    shown = v;
    notify(v, 100, message);
  };
  return {
    startBytes(l, t) {
      label = l;
      total = t;
      send(0, l, true);
    },
    bytes(sent) {
      const pct = total > 0 ? (sent / total) * 100 : 100;
      send(pct / 2, `${label}: ${Math.floor(pct)}%`);
    },
    status(l, percent) {
      send(50 + (percent ?? 0) / 2, percent === undefined ? l : `${l}: ${percent}%`, l !== label);
      label = l;
    },
    note(line) {
      // Each notification must carry a larger value than the one before: a note moves on by a tenth.
      const v = shown < 0 ? 0 : Math.round((shown + 0.1) * 10) / 10;
      if (v > 100) return;
      shown = v;
      notify(v, 100, line);
    },
    stop() {},
  };
}

/**
 * How long a service tool call may take in all, retries and rate-limit waits
 * included: MCP clients give up on a call after about a minute, and an answer
 * after that reaches nobody. Past it a read is a timeout and a write that got
 * no answer is outcome_unknown, with the idempotency_key that settles it.
 * (upload_file has its own wait; with wait false it returns once the bytes are sent.)
 */
export const MCP_CALL_TIMEOUT_MS = 50_000;

/** What a call stopped by its deadline says instead of naming --timeout, which vidpub mcp does not take. */
function deadlineError(err: unknown, timeoutMs: number): unknown {
  const limit = `${formatDuration(timeoutMs)}, the time a vidpub mcp tool call may take`;
  if (err instanceof OutcomeUnknownError && err.reason === 'deadline') {
    return err.retold(err.message.replace(err.why, `no answer came within ${limit}`), {});
  }
  if (err instanceof TimeoutError) return new TimeoutError(`Stopped: no answer from the service within ${limit}.`, { cause: err, http: err.http, hint: err.hint });
  return err;
}

/** How many cancelled writes the server remembers the key of (the oldest is forgotten first). */
const MAX_UNANSWERED = 1000;

/** JSON with the keys of every object sorted: the same arguments give the same text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** Where the server runs: for its name and for local paths (upload_file). */
export interface LocalServerInfo {
  version: string;
  /** An explicit --max-wait: a call may wait that much longer than MCP_CALL_TIMEOUT_MS. */
  maxWaitMs?: number;
  cwd: string;
  home?: string;
  /** The profile whose key the tools use (the events' profile: wait_for_post's progress). */
  profile?: string;
}

/**
 * The local server. `session` is what the tools run with (the `vidpub mcp`
 * command builds one that never prompts and is quiet unless --debug).
 */
export function createLocalMcpServer(session: Session, info: LocalServerInfo): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: info.version },
    {
      instructions:
        'vidpub publishes videos to the social accounts connected to a Video Publishing Service workspace. To publish a ' +
        'local video: upload_file (waits until ready), list_destinations and get_destination_options, then create_post ' +
        '(without publish_at: a draft; "now": publish; a time: schedule) and follow it with wait_for_post (or poll get_post). Ask the person before posting.',
    },
  );

  const callTimeoutMs = MCP_CALL_TIMEOUT_MS + (info.maxWaitMs ?? 0);
  /** Runs a tool body with the client; any error becomes a tool error. */
  const call =
    <A>(body: (client: ApiClient, args: A, extra: ToolCallExtra) => Promise<unknown>, timeoutMs: number | null = callTimeoutMs) =>
    async (args: A, extra: ToolCallExtra): Promise<CallToolResult> => {
      const bound = bindDeadline({ ...session, signal: extra.signal }, timeoutMs === null ? undefined : session.clock.now() + timeoutMs, timeoutMs ?? undefined);
      const signal = bound.session.signal;
      try {
        return toolResult(await body(await session.client(), args, { ...extra, signal }));
      } catch (err) {
        return localToolError(isDeadline(signal) && timeoutMs !== null ? deadlineError(err, timeoutMs) : err);
      } finally {
        bound.dispose();
      }
    };

  /**
   * Writes made without idempotency_key that the client cancelled (its answer
   * never reached it): the key each sent, by tool and arguments. A host that
   * gave up on a call and makes it again gets the first one's key, so what
   * the first did is returned instead of done twice.
   */
  const unanswered = new Map<string, string>();

  /**
   * A write tool's body with the Idempotency-Key it sends: the caller's, that
   * of a cancelled call with the same arguments, or one made for this call.
   * When no answer came, the outcome_unknown error names it: calling again
   * with it replays what was done instead of doing it twice.
   */
  const write =
    <A extends { idempotency_key?: string }>(tool: ServiceToolName, body: (client: ApiClient, args: A & { idempotency_key: string }, extra: ToolCallExtra) => Promise<unknown>) =>
    async (client: ApiClient, args: A, extra: ToolCallExtra): Promise<unknown> => {
      const same = args.idempotency_key === undefined ? `${tool} ${canonicalJson(args)}` : undefined;
      const key = args.idempotency_key ?? (same === undefined ? undefined : unanswered.get(same)) ?? randomUUID();
      if (same !== undefined) unanswered.delete(same);
      try {
        return await body(client, { ...args, idempotency_key: key }, extra);
      } catch (err) {
        if (!(err instanceof OutcomeUnknownError)) throw err;
        throw err.retold(err.message, {
          idempotencyKey: key,
          hint: `Call ${tool} again with the same arguments and "idempotency_key": "${key}" (within 24 hours): what was done is returned, not done twice.`,
        });
      } finally {
        // Cancelled, so never answered: its key is kept for the next call with the same arguments.
        if (same !== undefined && extra.signal.aborted && !isDeadline(extra.signal)) {
          unanswered.set(same, key);
          if (unanswered.size > MAX_UNANSWERED) unanswered.delete(unanswered.keys().next().value!);
        }
      }
    };

  const service: ToolHandlers<ServiceToolName> = {
    get_me: call((c, _a, { signal }) => c.getMe({ signal })),
    list_destinations: call(async (c, _a, { signal }) => ({ data: await c.listDestinations({ signal }) })),
    get_destination_options: call((c, a, { signal }) => c.getDestinationOptions(a.destination_id, { signal })),
    import_media: call(
      write('import_media', async (c, { idempotency_key, ...body }, { signal }) => {
        const media = await c.createImport(body, { idempotencyKey: idempotency_key, signal });
        await session.journal?.media({ media, link: body.url, idem: idempotency_key, outcome: String(media.status) });
        return media;
      }),
    ),
    get_media: call((c, a, { signal }) => c.getMedia(a.media_id, { signal })),
    create_post: call(
      write('create_post', async (c, { idempotency_key, ...body }, { signal }) => {
        refuse(postRefusal(body, session.clock.now()));
        const post = await c.createPost(body as CreatePostRequest, { idempotencyKey: idempotency_key, signal });
        await session.journal?.post({ post, idem: idempotency_key, outcome: responseMeta(post)?.replayed ? 'replayed' : 'created' });
        return post;
      }),
    ),
    publish_post: call(
      write('publish_post', async (c, { idempotency_key, post_id, ...body }, { signal }) => {
        refuse(postRefusal(body, session.clock.now()));
        const post = await c.publishPost(post_id, body, { idempotencyKey: idempotency_key, signal });
        await session.journal?.status(post, post.status === 'scheduled' ? 'scheduled' : 'publishing');
        return post;
      }),
    ),
    get_post: call(async (c, a, { signal }) => {
      const post = await c.getPost(a.post_id, { signal });
      await session.journal?.status(post);
      return post;
    }),
  };

  const local: ToolHandlers<LocalToolName> = {
    upload_file: call(async (_c, a, extra) => {
      const [{ checkVideoFile }, { uploadFile }, { parseWaitFlags }, { silentProgress }] = await Promise.all([
        import('../media/check.js'),
        import('../media/upload-flow.js'),
        import('../session/wait-flags.js'),
        import('../ui/progress.js'),
      ]);
      const file = await checkVideoFile(localPath(a.path, info.cwd, info.home));
      const { wait, timeoutMs } = parseWaitFlags({ wait: a.wait });
      return uploadFile(session, file, {
        wait,
        deadlineMs: session.clock.now() + timeoutMs,
        signal: extra.signal,
        progress: extra.progress ? mcpProgress(extra.progress) : silentProgress,
        idempotencyBase: a.idempotency_key,
        reupload: a.reupload === true,
      }).catch((err: unknown) => {
        // The flow's hint names the CLI's --idempotency-key; here it is the tool's argument.
        if (!(err instanceof OutcomeUnknownError) || !err.idempotencyKey) throw err;
        throw err.retold(err.message, {
          hint: `Call upload_file again with the same path and "idempotency_key": "${err.idempotencyKey}" (within 24 hours): what was done is reported, not done twice.`,
        });
      });
    }, null),
    // Its own wait (post-progress.ts) ends before the call's time is up.
    wait_for_post: call(async (c, a, extra) => {
      const { waitForPostTool } = await import('./post-progress.js');
      return waitForPostTool(session, c, a.post_id, extra, info.profile ?? 'default');
    }),
  };

  const refused = (e: ToolErrorInfo): ToolErrorInfo => ({ code: e.code, class: ERROR_CLASSES[ExitCode.USAGE], exit_code: ExitCode.USAGE, message: e.message });
  registerTools(server, Object.keys(SERVICE_TOOLS) as ServiceToolName[], service, refused);
  registerTools(server, Object.keys(LOCAL_TOOLS) as LocalToolName[], local, refused);
  return server;
}

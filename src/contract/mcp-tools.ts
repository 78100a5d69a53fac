/**
 * The MCP tools of vidpub, defined once: names, descriptions, input schemas
 * (zod, turned into JSON Schema by the SDK) and annotations. The emulator's
 * /mcp endpoint and the local `vidpub mcp` server both register them from
 * here, each with its own handlers, so an assistant sees the same tools on
 * both. Results are the records REST returns; errors are tool errors
 * (`isError: true`) whose content is `{"error": {code, message, ...}}`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './wire-types.js';

/** Name and version announced by both MCP servers. */
export const MCP_SERVER_NAME = 'vidpub';

// ---------------------------------------------------------------- shared pieces of schemas

const id = (what: string) => z.string().min(1).describe(what);

const idempotencyKey = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX_LENGTH)
  .optional()
  .describe(
    'Optional Idempotency-Key (any unique string, e.g. a UUID). Calling again with the same key and the same arguments ' +
      'within 24 hours returns the first result again instead of repeating the action. Use one when you might retry.',
  );

const publishAt = z
  .string()
  .min(1)
  .describe('"now", or an ISO 8601 time with a timezone offset, e.g. "2025-07-01T09:00:00+02:00" or "2025-07-01T07:00:00Z".');

const optionValue = z.union([z.string(), z.boolean(), z.null()]);

const postDestination = z.object({
  destination_id: id('A destination id from list_destinations (e.g. "dst_...").'),
  options: z
    .record(z.string(), optionValue)
    .optional()
    .describe(
      'Option values keyed by the option keys get_destination_options lists for this destination, e.g. {"privacy": "SELF_ONLY", "allow_comments": true}. ' +
        'Options left out take their default.',
    ),
});

/** One tool's definition. */
export interface ToolDef {
  title: string;
  description: string;
  /** Counted as a read or a write on the key's per-minute counters. */
  kind: 'read' | 'write';
  input: z.ZodRawShape;
  annotations: ToolAnnotations;
}

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

// ---------------------------------------------------------------- the tools

/** The tools both servers offer: one per REST operation that needs no local file. */
export const SERVICE_TOOLS = {
  get_me: {
    title: 'Key, workspace, plan and limits',
    description:
      'Show the API key (never the full key), its workspace, the plan, usage, and the limits: requests per minute ' +
      '(read and write counters of this key) and the daily post allowance (used, remaining, reset time). ' +
      'Check the workspace name before publishing.',
    kind: 'read',
    input: {},
    annotations: READ,
  },
  list_destinations: {
    title: 'Connected accounts',
    description:
      'List the connected social accounts (destinations) of the workspace: id, platform, handle, status and video limits. ' +
      'Only destinations with status "active" can be posted to.',
    kind: 'read',
    input: {},
    annotations: READ,
  },
  get_destination_options: {
    title: 'Posting options of a destination',
    description:
      'The settings a destination accepts when posting: each option has key, type, values, default and required. ' +
      'For creator-disclosure platforms (e.g. TikTok) the answer also has "creator" (show it to the person posting) and ' +
      '"max_duration_sec"; their "privacy" option has no default and must be chosen by the person posting: ask them, do not pick one.',
    kind: 'read',
    input: { destination_id: id('A destination id from list_destinations.') },
    annotations: READ,
  },
  import_media: {
    title: 'Import a video from a link',
    description:
      'Import a video from a public https link straight to an MP4, MOV, WebM, AVI or MTS file (not a page that plays it, ' +
      'such as a YouTube or Vimeo page). Returns the media record at once, status "uploading" while it downloads; ' +
      'call get_media until its status is "ready" (or "failed") before posting it. At most 5 imports download at once per workspace.',
    kind: 'write',
    input: {
      url: z.string().min(1).describe('Public https link to the video file itself, e.g. "https://cdn.example.com/launch.mp4".'),
      filename: z.string().min(1).optional().describe('Name to give the video (default: the last part of the link).'),
      idempotency_key: idempotencyKey,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  get_media: {
    title: 'Video status',
    description:
      'Read a video (media) record: status "uploading" or "processing" (with progress phase and percent), then "ready" ' +
      '(with duration_sec) or "failed" (error.message says why). Poll every few seconds until it is no longer uploading or processing.',
    kind: 'read',
    input: { media_id: id('A media id ("med_...") from import_media, upload_file or the web app.') },
    annotations: READ,
  },
  create_post: {
    title: 'Create a post (draft, scheduled or now)',
    description:
      'Create a post pairing one video with a caption and one or more destinations. Without publish_at it is saved as a ' +
      'draft: read its "issues" (severity "error" blocks publishing) and publish it later with publish_post. With publish_at ' +
      '"now" it starts publishing; with a time it is scheduled. Publishing or scheduling needs the video ready and spends ' +
      'one post of the daily allowance. Poll get_post to follow it. Confirm caption, destinations and options with the ' +
      'person before publishing: this posts to real social accounts.',
    kind: 'write',
    input: {
      media_id: id('A ready video ("med_...").'),
      caption: z.string().optional().describe('The caption (default empty).'),
      destinations: z.array(postDestination).min(1).describe('Where to post: at least one destination, each at most once.'),
      publish_at: publishAt.optional().describe('Leave out to save a draft; "now" to publish at once; an ISO 8601 time with offset to schedule.'),
      idempotency_key: idempotencyKey,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  publish_post: {
    title: 'Publish or reschedule a post',
    description:
      'Publish a draft now or at a time, move a scheduled post to a new time, or send a scheduled post now. A draft needs ' +
      'no issue of severity "error"; publishing or scheduling a draft spends one post of the daily allowance (moving or ' +
      'sending a scheduled post does not). A draft refused by the daily limit stays a draft.',
    kind: 'write',
    input: {
      post_id: id('A post id ("post_...").'),
      publish_at: publishAt,
      idempotency_key: idempotencyKey,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  get_post: {
    title: 'Post status',
    description:
      "Read a post: its status (draft, scheduled, publishing, completed), issues, and each destination's status " +
      '(pending, publishing, published, failed, cancelled) with the published url, warning or failure. Poll until every ' +
      'destination is published, failed or cancelled.',
    kind: 'read',
    input: { post_id: id('A post id ("post_...").') },
    annotations: READ,
  },
} as const satisfies Record<string, ToolDef>;

/** Tools only a server on the user's machine can offer. */
export const LOCAL_TOOLS = {
  upload_file: {
    title: 'Upload a local video file',
    description:
      'Upload a video file from this computer (MP4, MOV, WebM, AVI or MTS, at most 1 GB). The file is checked first ' +
      '(it exists, is a video by its content, not too big), then streamed to the service. With wait (the default) it ' +
      'returns once the service has processed it (status "ready"); with wait false it returns at once (status ' +
      '"processing"): then poll get_media. Returns the media record; post it with create_post. A file whose content ' +
      'this computer uploaded before, and that the service still has ready, is not sent again: its record comes back ' +
      'with "reused": true (reupload true sends it anyway).',
    kind: 'write',
    input: {
      path: z.string().min(1).describe('Path of the video file: absolute, or starting with "~/" for the home directory.'),
      wait: z.boolean().optional().describe('Wait until the video is ready (default true). Use false for large files and poll get_media.'),
      reupload: z.boolean().optional().describe('Upload the file even when a ready video with the same content is known (default false).'),
      idempotency_key: idempotencyKey,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  wait_for_post: {
    title: 'Wait for a post to finish publishing',
    description:
      'Follow a post until every destination is published, failed or cancelled, and return it (at most about 45 seconds: ' +
      'a post still publishing then is returned as it is; call again). A draft or a scheduled post is returned at once. ' +
      'With a progressToken, a progress notification tells each destination as it ends (progress: what has ended, total: ' +
      'the destinations plus the post).',
    kind: 'read',
    input: { post_id: id('A post id ("post_...") from create_post or publish_post.') },
    annotations: READ,
  },
} as const satisfies Record<string, ToolDef>;

export const ALL_TOOLS = { ...SERVICE_TOOLS, ...LOCAL_TOOLS };

export type ServiceToolName = keyof typeof SERVICE_TOOLS;
export type LocalToolName = keyof typeof LOCAL_TOOLS;
export type ToolName = keyof typeof ALL_TOOLS;

/** The parsed arguments of a tool. */
export type ToolArgs<N extends ToolName> = z.infer<z.ZodObject<(typeof ALL_TOOLS)[N]['input']>>;

/** What a handler gets besides the arguments. */
export interface ToolCallExtra {
  /** Aborted when the client cancels the call or the connection closes. */
  signal: AbortSignal;
  /** Sends an MCP progress notification, when the client asked for them (a progressToken). */
  progress?(progress: number, total: number | undefined, message: string): void;
}

export type ToolHandler<N extends ToolName> = (args: ToolArgs<N>, extra: ToolCallExtra) => Promise<CallToolResult>;
export type ToolHandlers<N extends ToolName> = { [K in N]: ToolHandler<K> };

// ---------------------------------------------------------------- results

/** A successful call: the record as JSON text, and as structured content when it is an object. */
export function toolResult(record: unknown): CallToolResult {
  const value = record === undefined ? null : record;
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(value) }] };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) result.structuredContent = value as Record<string, unknown>;
  return result;
}

/** What a failed call says. `code` and `message` are always there. */
export interface ToolErrorInfo {
  code: string;
  message: string;
  /** The service's error type (rate_limited, invalid_request...). */
  type?: string;
  /** HTTP status of the service's answer. */
  status?: number;
  param?: string;
  /** Rate limits: seconds until a retry may succeed. */
  retry_after_sec?: number;
  /** daily_post_limit: when the allowance resets (ISO). */
  reset_at?: string;
  [extra: string]: unknown;
}

/** A failed call: `isError`, with `{"error": {...}}` as text and structured content. */
export function toolError(info: ToolErrorInfo): CallToolResult {
  const body = { error: info };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

// ---------------------------------------------------------------- requests

/** The requests both servers answer, by their schemas. */
const REQUEST_SCHEMAS: Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/**
 * What is wrong with the params of a request the servers answer, as the
 * message of a -32602 (invalid params) error naming each bad field; undefined
 * when they fit, or for another method. The SDK would answer -32603 (an
 * internal error) with its validator's dump.
 */
export function paramsProblem(method: string, params: unknown): string | undefined {
  const schema = Object.hasOwn(REQUEST_SCHEMAS, method) ? REQUEST_SCHEMAS[method] : undefined;
  const checked = schema?.safeParse({ method, params });
  if (!checked || checked.success) return undefined;
  const issues = (checked.error?.issues ?? []).map((i) => `${i.path.map(String).join('.')}: ${i.message.replace(/^Invalid input: /, '')}`);
  return `Invalid params of ${method}: ${issues.join('; ')}.`;
}

// ---------------------------------------------------------------- registration

/**
 * A call the SDK refuses before any handler runs (an unknown tool, arguments
 * that do not match the schema) as one of our errors: the SDK's text
 * ("MCP error -32602: Tool x not found") is not the `{"error": {...}}` the
 * other tool errors are.
 */
export function refusedCall(text: string): ToolErrorInfo {
  const message = text.replace(/^MCP error -?\d+: /, '').replace(/^Input validation error: /, '');
  return { code: /^Tool \S+ (not found|disabled)$/.test(message) ? 'unknown_tool' : 'invalid_arguments', message };
}

/**
 * Registers `names` on an McpServer with their handlers. A handler that
 * throws becomes a tool error with code "internal_error"; a call refused
 * before its handler becomes a tool error with code "unknown_tool" or
 * "invalid_arguments", with `refused` adding what a server adds to its errors.
 */
export function registerTools<N extends ToolName>(
  server: McpServer,
  names: readonly N[],
  handlers: ToolHandlers<N>,
  refused: (info: ToolErrorInfo) => ToolErrorInfo = (info) => info,
): void {
  // The SDK's only way to shape the errors it makes itself (a private method, looked up on the instance).
  (server as unknown as { createToolError(text: string): CallToolResult }).createToolError = (text) => toolError(refused(refusedCall(text)));
  for (const name of names) {
    const def: ToolDef = ALL_TOOLS[name];
    const handler = handlers[name] as unknown as ToolHandler<ToolName>;
    server.registerTool(
      name,
      { title: def.title, description: def.description, inputSchema: z.object(def.input), annotations: { title: def.title, ...def.annotations } },
      async (args: unknown, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => {
        const token = extra._meta?.progressToken;
        const progress =
          token === undefined
            ? undefined
            : (value: number, total: number | undefined, message: string) => {
                void extra
                  .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: value, ...(total === undefined ? {} : { total }), message } })
                  .catch(() => undefined);
              };
        try {
          return await handler(args as ToolArgs<ToolName>, { signal: extra.signal, progress });
        } catch (err) {
          return toolError({ code: 'internal_error', message: `The ${name} tool failed unexpectedly: ${err instanceof Error ? err.message : String(err)}` });
        }
      },
    );
  }
}

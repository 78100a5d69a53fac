/**
 * The emulator's MCP server: the service tools, each calling the emulator's
 * service layer with the caller's Authorization header, so every call goes
 * through the same gate as REST (authentication, the key's per-minute read
 * and write counters, write access, idempotency, the daily post allowance).
 * Loaded on the first request to /mcp (see src/emulator/mcp.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallContext, EmulatorService, ServiceResult } from './service.js';
import { SERVICE_TOOLS, paramsProblem, registerTools, toolError, toolResult, type ServiceToolName, type ToolErrorInfo, type ToolHandlers } from '../contract/mcp-tools.js';

/** What the emulator's MCP server announces (v1: the API version it emulates). */
export const EMULATOR_MCP_SERVER = { name: 'video-publishing-service-emulator', version: '1.0.0' };

/** The tool result of a service answer: the record, or a tool error with the code and the retry time. */
export function resultOf(r: ServiceResult): CallToolResult {
  if (r.status >= 200 && r.status < 300) return toolResult(r.body);
  const err = (r.body as { error?: Record<string, unknown> } | null)?.error;
  const info: ToolErrorInfo = {
    ...(err ?? {}),
    code: typeof err?.code === 'string' ? err.code : `http_${r.status}`,
    message: typeof err?.message === 'string' ? err.message : `The service answered HTTP ${r.status}.`,
    status: r.status,
  };
  const retryAfter = Number(r.headers['Retry-After']);
  if (r.headers['Retry-After'] !== undefined && Number.isFinite(retryAfter)) info.retry_after_sec = retryAfter;
  return toolError(info);
}

/** An MCP server whose tools act with `authorization` (the header of the HTTP request). */
export function createServiceMcpServer(service: EmulatorService, authorization: string | undefined): McpServer {
  const server = new McpServer(
    EMULATOR_MCP_SERVER,
    {
      instructions:
        'Video Publishing Service (emulator). Publish a video: import_media (or use a ready media id), poll get_media until ' +
        'ready, list_destinations and get_destination_options, create_post (draft, or publish_at "now"/a time), poll get_post. ' +
        'Tools share the per-minute request allowances and the daily post allowance with the REST API.',
    },
  );
  const ctx = (idempotencyKey?: string): CallContext => ({ authorization, idempotencyKey: idempotencyKey ?? null });
  const handlers: ToolHandlers<ServiceToolName> = {
    get_me: async () => resultOf(await service.getMe(ctx())),
    list_destinations: async () => resultOf(await service.listDestinations(ctx())),
    get_destination_options: async (a) => resultOf(await service.getDestinationOptions(ctx(), a.destination_id)),
    import_media: async ({ idempotency_key, ...body }) => resultOf(await service.createImport(ctx(idempotency_key), { json: body })),
    get_media: async (a) => resultOf(await service.getMedia(ctx(), a.media_id)),
    create_post: async ({ idempotency_key, ...body }) => resultOf(await service.createPost(ctx(idempotency_key), { json: body })),
    publish_post: async ({ idempotency_key, post_id, ...body }) => resultOf(await service.publishPost(ctx(idempotency_key), post_id, { json: body })),
    get_post: async (a) => resultOf(await service.getPost(ctx(), a.post_id)),
  };
  registerTools(server, Object.keys(SERVICE_TOOLS) as ServiceToolName[], handlers);
  return server;
}

/**
 * Handles one HTTP request of the Streamable HTTP transport in stateless mode:
 * a new server and transport for the request, JSON responses (no SSE stream),
 * both closed when the response is done.
 */
export async function handleMcpRequest(
  service: EmulatorService,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  authorization: string | undefined,
): Promise<void> {
  // A request whose params do not fit: -32602 naming each bad field, where the SDK answers -32603 with its validator's dump.
  const m = body as { id?: unknown; method?: unknown; params?: unknown } | null;
  const problem = m && typeof m === 'object' && !Array.isArray(m) && typeof m.method === 'string' && 'id' in m ? paramsProblem(m.method, m.params) : undefined;
  if (problem) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m!.id ?? null, error: { code: -32602, message: problem } }));
    return;
  }
  const server = createServiceMcpServer(service, authorization);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

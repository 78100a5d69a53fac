/**
 * The emulator's MCP endpoint, `/mcp` (Streamable HTTP, stateless, JSON
 * responses), as an EmulatorPlugin. The key is checked first, with the same
 * 401/403 JSON error body as REST; then each request gets its own MCP server
 * whose tools call the service layer with the request's Authorization header,
 * so tool calls share the key's per-minute counters, the daily post allowance
 * and the idempotency store with REST. The MCP SDK is loaded on the first
 * request, so starting the emulator does not pay for it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type * as ServiceServer from './mcp-server.js';
import type { EmulatorPlugin } from './server.js';
import type { EmulatorService } from './service.js';

export const MCP_PATH = '/mcp';

type ServiceServerModule = typeof ServiceServer;
let loaded: Promise<ServiceServerModule> | undefined;
const load = (): Promise<ServiceServerModule> => (loaded ??= import('./mcp-server.js'));

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** Sends the service's 401/403 when the key is refused; true when it did. */
function refused(service: EmulatorService, req: FastifyRequest, reply: FastifyReply): boolean {
  const r = service.checkKey({ authorization: header(req, 'authorization') });
  if (!r) return false;
  void reply.code(r.status).headers(r.headers).send(r.body);
  return true;
}

/** Registered after the caller's plugins: a plugin of theirs at /mcp takes its place. */
export const mcpPlugin: EmulatorPlugin = ({ app, service }) => {
  if (app.hasRoute({ method: 'POST', url: MCP_PATH })) return;
  app.post(MCP_PATH, async (req, reply) => {
    if (refused(service, req, reply)) return reply;
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      return reply.code(400).send(rpcError(-32700, 'Parse error: the request body must be a JSON-RPC message (JSON).'));
    }
    const { handleMcpRequest } = await load();
    reply.hijack();
    // reset_after_handling: the message is handled, then the connection is dropped where the answer would start.
    if (req.emu?.fault?.action === 'reset_after_handling') {
      const entry = req.emu.entry;
      const res = reply.raw;
      const drop = () => {
        req.raw.socket?.destroy();
        return res;
      };
      res.writeHead = ((status: number) => {
        if (entry) entry.status = status;
        return drop();
      }) as typeof res.writeHead;
      res.end = drop as typeof res.end;
    }
    await handleMcpRequest(service, req.raw, reply.raw, body, header(req, 'authorization'));
    return reply;
  });
  // Stateless: no server-to-client stream (GET) and no session to end (DELETE).
  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    handler: async (req, reply) => {
      if (refused(service, req, reply)) return reply;
      return reply
        .code(405)
        .header('Allow', 'POST')
        .send(rpcError(-32000, `Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST ${MCP_PATH}.`));
    },
  });
};

/** `vidpub mcp` over stdio in tests: messages as the server reads them, a server fed message by message, and the SDK's client on a server in-process. */
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { main } from '../../src/cli/main.js';
import { makeContext } from './cli.js';
import type { TestEmulator } from './emulator.js';
import type { Json } from './rest.js';

export type { Json };

/** JSON-RPC messages as stdin carries them, one a line; a string is sent as it is (a malformed line). */
export const lines = (...messages: unknown[]): string => messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)) + '\n').join('');

/** The first request of a client (id 1). */
export const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };

/** `vidpub mcp` in-process, fed message by message: what it answered so far, and its end (the exit code). */
export function mcpServer(emu: TestEmulator): { stdin: PassThrough; run: Promise<number>; answers: () => Json[]; answer: (id: number) => Json } {
  const base = makeContext({ env: emu.env() });
  const stdin = new PassThrough();
  const run = main(['mcp'], { ...base.ctx, io: { ...base.ctx.io, stdin } });
  const answers = (): Json[] => base.stdout().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { stdin, run, answers, answer: (id: number) => answers().find((m) => m.id === id) };
}

/**
 * The SDK's client on `vidpub [globals] mcp` run in-process (main(argv, ctx)): its stdin and stdout are the
 * streams the client writes and reads, as StdioClientTransport does with a child's pipes, and its env is the
 * one that transport gives a child (the SDK's default environment, then `env`). Closing the client ends the
 * server's input and waits for main() to return.
 */
export async function inProcessMcpClient(argv: string[], env: Record<string, string | undefined>, cwd: string): Promise<{ client: Client; stderr: () => string; transportErrors: Error[]; code: Promise<number> }> {
  const base = makeContext({ env: { ...getDefaultEnvironment(), ...env }, cwd });
  const stdin = new PassThrough();
  const stdout = base.ctx.io.stdout;
  const code = main(argv, { ...base.ctx, io: { ...base.ctx.io, stdin } });
  const transportErrors: Error[] = [];
  const buffer = new ReadBuffer();
  const transport: Transport = {
    async start() {
      stdout.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (err) {
            transportErrors.push(err as Error);
            transport.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          transport.onmessage?.(message);
        }
      });
    },
    async send(message) {
      stdin.write(serializeMessage(message));
    },
    async close() {
      stdin.end();
      await code;
      transport.onclose?.();
    },
  };
  const client = new Client({ name: 'vidpub-local-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: base.stderr, transportErrors, code };
}

/** `vidpub mcp` over stdio in tests: messages as the server reads them, and a server fed message by message. */
import { PassThrough } from 'node:stream';
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

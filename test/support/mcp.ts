/** MCP in tests: an SDK client on the emulator's /mcp, and tool calls that must succeed or fail. */
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestEmulator } from './emulator.js';
import type { Json } from './rest.js';

export const mcpUrl = (emu: TestEmulator): URL => new URL(emu.baseUrl.replace(/\/v1$/, '/mcp'));

/** An SDK client connected to the emulator's /mcp with `key` (none: no Authorization header). */
export async function connect(emu: TestEmulator, key: string | null = emu.key()): Promise<Client> {
  const client = new Client({ name: 'vidpub-test', version: '0.0.0' });
  const headers: Record<string, string> = key === null ? {} : { Authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(emu), { requestInit: { headers } }));
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A call that must succeed: its record (structured content, equal to the JSON text). */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  const text = (r.content[0] as { text: string }).text;
  expect(JSON.parse(text)).toEqual(r.structuredContent);
  return r.structuredContent;
}

/** A call that must fail: its `error` object (structured content, equal to the JSON text). */
export async function fails(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const r = await call(client, name, args);
  expect(r.isError, `${name} should fail: ${JSON.stringify(r.content)}`).toBe(true);
  const text = (r.content[0] as { text: string }).text;
  expect(JSON.parse(text)).toEqual(r.structuredContent);
  return (r.structuredContent as Json).error;
}

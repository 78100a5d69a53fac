/** Helpers of the MCP tests: an SDK client on the emulator's /mcp, REST calls, the emulator clock. */
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EmulatorFixture } from '../helpers/emulator.js';

/** Parsed JSON the tests read freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const mcpUrl = (emu: EmulatorFixture): URL => new URL(emu.baseUrl.replace(/\/v1$/, '/mcp'));

/** An SDK client connected to the emulator's /mcp with `key` (none: no Authorization header). */
export async function connect(emu: EmulatorFixture, key: string | null = emu.key()): Promise<Client> {
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

export interface RestResponse {
  status: number;
  headers: Headers;
  body: Json;
}

/** One REST call to the emulator. */
export async function rest(
  emu: EmulatorFixture,
  method: 'GET' | 'POST',
  path: string,
  opts: { key?: string | null; body?: unknown; idem?: string } = {},
): Promise<RestResponse> {
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? emu.key() : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (opts.idem) headers['idempotency-key'] = opts.idem;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(emu.baseUrl + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export async function clockNow(emu: EmulatorFixture): Promise<number> {
  return Date.parse(((await emu.admin('GET', '/clock')) as { now: string }).now);
}

/** Moves the emulator clock just past the next minute boundary: a whole fresh per-minute window. */
export async function freshMinute(emu: EmulatorFixture): Promise<void> {
  const now = await clockNow(emu);
  await emu.advance(Math.ceil((60_000 - (now % 60_000)) / 1000) + 1);
}

/** Moves the emulator clock to 00:00:05 UTC of the next day: a fresh daily allowance and minute window. */
export async function nextDay(emu: EmulatorFixture): Promise<void> {
  const now = await clockNow(emu);
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  await emu.advance(Math.ceil((midnight - now) / 1000) + 5);
}

/** Polls a tool until `done` holds (every 20 ms, at most 5 s). */
export async function until(client: Client, name: string, args: Record<string, unknown>, done: (v: Json) => boolean): Promise<Json> {
  const end = Date.now() + 5000;
  for (;;) {
    const v = await ok(client, name, args);
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${name} never reached the expected state; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

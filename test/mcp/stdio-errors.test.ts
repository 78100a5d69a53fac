/**
 * `vidpub mcp` on bad input: every refused message gets a JSON-RPC error
 * (-32700 parse error, -32600 invalid request, -32602 invalid params) and a
 * line on stderr, and the server goes on answering the next messages.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/contract/mcp-tools.js';
import { LineTransport, MAX_MESSAGE_BYTES } from '../../src/mcp/stdio-transport.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines, type Json } from '../support/mcp-stdio.js';

const emu = useEmulator();

const toolsList = { jsonrpc: '2.0', id: 9, method: 'tools/list' };

/** Runs `vidpub mcp` with initialize, the bad line, then tools/list; returns the answers by id and stderr. */
async function serve(bad: string) {
  const r = await runCli(['mcp'], { env: emu.env(), stdin: lines(initialize, bad, toolsList) });
  const out: Json[] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  return { code: r.code, stderr: r.stderr, out, byId: (id: unknown) => out.filter((m) => m.id === id) };
}

describe('vidpub mcp: refused messages are answered and logged', () => {
  const cases: [string, string, number, unknown, string, RegExp][] = [
    ['a line that is not JSON', 'this is not json', -32700, null, 'Parse error: the line is not JSON (one JSON-RPC message per line).', /line 2 \(16 bytes\) refused: not JSON; answered with JSON-RPC error -32700\./],
    [
      'tools/call with arguments: null',
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_me', arguments: null } }),
      -32602, 5, 'Invalid params: "arguments" of tools/call must be an object (or left out), not null.',
      /line 2 \(\d+ bytes\) refused: tools\/call arguments not an object; answered with JSON-RPC error -32602\./,
    ],
    [
      'tools/call with arguments that are a string',
      JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'get_me', arguments: 'x' } }),
      -32602, 'a', 'Invalid params: "arguments" of tools/call must be an object (or left out).',
      /refused: tools\/call arguments not an object; answered with JSON-RPC error -32602\./,
    ],
    [
      'params: null',
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: null }),
      -32602, 6, 'Invalid params: "params" of tools/call must be an object, not null.',
      /refused: params not an object in tools\/call; answered with JSON-RPC error -32602\./,
    ],
    [
      'tools/call without params',
      JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/call' }),
      -32602, 10, 'Invalid params of tools/call: params: expected object, received undefined.',
      /refused: params of tools\/call do not match its schema; answered with JSON-RPC error -32602\./,
    ],
    [
      'tools/call with a name that is not a string',
      JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 5 } }),
      -32602, 11, 'Invalid params of tools/call: params.name: expected string, received number.',
      /refused: params of tools\/call do not match its schema; answered with JSON-RPC error -32602\./,
    ],
    [
      'initialize without its params',
      JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'initialize', params: {} }),
      -32602, 12, 'Invalid params of initialize: params.protocolVersion: expected string, received undefined; params.capabilities: expected object, received undefined; params.clientInfo: expected object, received undefined.',
      /refused: params of initialize do not match its schema; answered with JSON-RPC error -32602\./,
    ],
    ['a batch', '[{"jsonrpc":"2.0","id":7,"method":"ping"}]', -32600, null, 'Invalid Request: the message is a batch (an array), which MCP does not use.', /refused: a batch; answered with JSON-RPC error -32600\./],
    ['no jsonrpc member', '{"id":8,"method":"ping"}', -32600, 8, 'Invalid Request: "jsonrpc" must be "2.0".', /refused: no "jsonrpc": "2.0"; answered with JSON-RPC error -32600\./],
  ];
  for (const [name, bad, code, id, message, log] of cases) {
    it(`${name}: error ${code}, a log line, and the next request is still answered`, async () => {
      const r = await serve(bad);
      expect(r.code).toBe(0);
      expect(r.byId(id)).toContainEqual({ jsonrpc: '2.0', id, error: { code, message } });
      expect(r.stderr).toMatch(log);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.byId(1)[0].result.serverInfo.name).toBe('vidpub');
      expect(r.byId(9)[0].result.tools).toHaveLength(Object.keys(ALL_TOOLS).length);
    });
  }

  it('the log line never quotes the message (it may hold a key or a caption)', async () => {
    const r = await serve('vp_live_supersecret_not_json');
    expect(r.stderr).not.toContain('supersecret');
    expect(r.out.map((m) => JSON.stringify(m)).join()).not.toContain('supersecret');
  });

  it('a notification with bad params gets only the log line (a notification has no answer)', async () => {
    const r = await serve(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: null }));
    expect(r.out.filter((m) => m.error)).toEqual([]);
    expect(r.stderr).toMatch(/refused: params not an object in notifications\/cancelled \(a notification: no answer\)\./);
    expect(r.byId(9)[0].result.tools).toHaveLength(Object.keys(ALL_TOOLS).length);
  });

  it(`a message over ${MAX_MESSAGE_BYTES} bytes: -32700 with id null, skipped without being kept, then the server goes on`, async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_me', arguments: { pad: 'x'.repeat(MAX_MESSAGE_BYTES) } } });
    const r = await serve(huge);
    expect(r.code).toBe(0);
    expect(r.byId(null)).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: the message is larger than ${MAX_MESSAGE_BYTES} bytes (the limit of vidpub mcp); it was skipped.` } }]);
    expect(r.byId(4)).toEqual([]);
    expect(r.stderr).toBe(`vidpub mcp: message on input line 2 (over ${MAX_MESSAGE_BYTES} bytes) refused: over the size limit; answered with JSON-RPC error -32700.\n`);
    expect(r.byId(9)[0].result.tools).toHaveLength(Object.keys(ALL_TOOLS).length);
  });
});

describe('vidpub mcp: tool calls the tools cannot take are tool errors of the documented shape', () => {
  const toolCall = (id: number, name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const toolError = (r: Awaited<ReturnType<typeof serve>>, id: number) => {
    const result = r.byId(id)[0].result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    return result.structuredContent.error;
  };

  it('arguments that do not match the schema: {"error": {code: invalid_arguments, class, exit_code 2, message}}; nothing is sent', async () => {
    const r = await serve(toolCall(4, 'get_post', { post_id: 5 }));
    expect(r.code).toBe(0);
    const err = toolError(r, 4);
    expect(err).toMatchObject({ code: 'invalid_arguments', class: 'invalid_input', exit_code: 2 });
    expect(err.message).toBe('Invalid arguments for tool get_post: Invalid input: expected string, received number at post_id');
    expect(r.stderr).toBe('');
    expect(await emu.requests()).toEqual([]);
  });

  it('an unknown tool: {"error": {code: unknown_tool, class, exit_code 2, message}}', async () => {
    const r = await serve(toolCall(4, 'delete_everything', {}));
    expect(toolError(r, 4)).toEqual({ code: 'unknown_tool', class: 'invalid_input', exit_code: 2, message: 'Tool delete_everything not found' });
  });
});

describe('the line transport, fed in chunks', () => {
  it('a too-long line split across chunks is skipped up to its newline; the message after it, in the same chunk, is delivered', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const logged: string[] = [];
    const received: unknown[] = [];
    const t = new LineTransport(stdin, stdout, { maxMessageBytes: 100, log: (l) => logged.push(l) });
    t.onmessage = (m) => received.push(m);
    await t.start();
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' });
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"' + 'y'.repeat(60));
    stdin.write('y'.repeat(60));
    stdin.write('y'.repeat(500));
    stdin.write(`"}}\n${ping.slice(0, 10)}`);
    stdin.write(`${ping.slice(10)}\r\n\n`);
    stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' })); // the last line, without its newline
    await new Promise((r) => setImmediate(r));
    expect(received).toEqual([{ jsonrpc: '2.0', id: 3, method: 'ping' }, { jsonrpc: '2.0', id: 4, method: 'ping' }]);
    expect(logged).toEqual(['vidpub mcp: message on input line 1 (over 100 bytes) refused: over the size limit; answered with JSON-RPC error -32700.']);
    expect(JSON.parse(String(stdout.read()))).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is larger than 100 bytes (the limit of vidpub mcp); it was skipped.' } });
    await t.close();
  });
});

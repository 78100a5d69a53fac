/**
 * `vidpub mcp` and notifications/cancelled: a cancelled call gets no answer
 * (the protocol says so), and input closing afterwards still ends the server.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const lines = (...messages: unknown[]) => messages.map((m) => JSON.stringify(m) + '\n').join('');
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };

describe('vidpub mcp: a cancelled call', () => {
  it('is not answered, and the server still returns 0 once its input closes', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'delay', ms: 2000 });
    const r = await runCli(['mcp'], {
      env: emu.env(),
      stdin: lines(
        initialize,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_me', arguments: {} } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'the person stopped it' } },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out: Json[] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(out.map((m) => m.id)).toEqual([1, 3]);
  }, 15_000);
});

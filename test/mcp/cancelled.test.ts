/**
 * `vidpub mcp` and notifications/cancelled: a cancelled call gets no answer
 * (the protocol says so), and input closing afterwards still ends the server.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines, type Json } from '../support/mcp-stdio.js';

const emu = useEmulator();


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

/**
 * `vidpub mcp` in-process (main() with the test Context): the server talks
 * through the Context's streams, never process.*, and never writes anything
 * but protocol messages to stdout.
 */
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/contract/mcp-tools.js';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { Context } from '../../src/cli/run/context.js';
import { makeContext, runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines } from '../support/mcp-stdio.js';

const emu = useEmulator({ resetEachTest: false });

const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe('vidpub mcp in-process', () => {
  it('reads requests from the Context stdin, answers on its stdout, and returns 0 when input ends', async () => {
    const r = await runCli(['mcp'], {
      env: emu.env(),
      stdin: lines(initialize, initialized, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_me', arguments: {} } }),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(out.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(out[0].result.serverInfo).toEqual({ name: 'vidpub', version: '0.0.0-test' });
    expect(out[1].result.tools).toHaveLength(Object.keys(ALL_TOOLS).length);
    expect(out[2].result.structuredContent.workspace.name).toBe('Demo');
  });

  it('--json changes nothing: stdout holds only protocol messages', async () => {
    const r = await runCli(['--json', 'mcp'], { env: emu.env(), stdin: lines(initialize) });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual([1]);
  });

  it('on a terminal it says on stderr what it is; it serves until Ctrl-C, then returns 0', async () => {
    const ac = new AbortController();
    const base = makeContext({ env: emu.env(), tty: { stdin: true, stderr: true }, signal: ac.signal });
    const stdin = new PassThrough();
    const ctx: Context = { ...base.ctx, io: { ...base.ctx.io, stdin } };
    const answered = new Promise<void>((resolve) => ctx.io.stdout.once('data', () => resolve()));
    const run = main(['mcp'], ctx);
    stdin.write(lines(initialize));
    await answered;
    expect(JSON.parse(base.stdout().trim()).id).toBe(1);
    ac.abort();
    expect(await run).toBe(0);
    expect(base.stderr()).toMatch(/vidpub mcp speaks the Model Context Protocol on stdin\/stdout.*Ctrl-C to stop/);
  });

  it('an unknown flag is a usage error (exit 2)', async () => {
    const r = await runCli(['mcp', '--port', '3'], { env: emu.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--port'/);
    expect(r.stdout).toBe('');
  });
});

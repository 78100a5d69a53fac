/**
 * `vidpub emulator` from the command line: when it cannot listen, a message
 * naming the address and what to change, never an "unexpected" error; its
 * start document on one line, through --json FIELDS and --jq.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { makeContext, runCli } from '../support/cli.js';
import { waitFor } from '../support/poll.js';

describe('vidpub emulator --host', () => {
  it('an address that is not on this machine: exit 1, the reason and the flags to change, not an unexpected error', async () => {
    // Were it to start, the signal would stop it. 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    const r = await runCli(['emulator', '--host', '192.0.2.1', '--port', '0'], { signal: AbortSignal.timeout(5000) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(
      'Error: Cannot start the emulator on 192.0.2.1:0: that address is not available on this machine (EADDRNOTAVAIL).',
    );
    expect(r.stderr).toContain('--host takes an address of this machine (default 127.0.0.1; 0.0.0.0 for all of them)');
    expect(r.stderr).not.toMatch(/unexpected|report it/);
  });
});

describe('vidpub emulator --json', () => {
  /** Starts the emulator in-process with `flags`, stops it once it has printed its first line; what it printed. */
  async function started(flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const stop = new AbortController();
    const { ctx, stdout, stderr } = makeContext({ signal: stop.signal });
    const running = main(['emulator', '--port', '0', ...flags], ctx);
    await waitFor(() => stdout(), (out) => out.includes('\n'), 10_000);
    stop.abort();
    const code = await running;
    return { code, stdout: stdout(), stderr: stderr() };
  }

  it('prints its start document on one line', async () => {
    const r = await started(['--json']);
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ base_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/) });
    expect(r.code).toBe(0);
  });

  it('--jq filters it, as for any other command', async () => {
    const r = await started(['--jq', '.base_url']);
    expect(r.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
    expect(r.code).toBe(0);
  });

  it('--json FIELDS keeps the fields named', async () => {
    const r = await started(['--json', 'base_url']);
    expect(Object.keys(JSON.parse(r.stdout))).toEqual(['base_url']);
    expect(r.code).toBe(0);
  });
});

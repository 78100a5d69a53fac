/**
 * `vidpub emulator` when it cannot listen: a message naming the address and
 * what to change, never an "unexpected" error to report.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

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

/**
 * Empty values of the credential flags, as a script's unset variable gives
 * them (`--workspace "$WS"`, `--api-key-file "$KEY_FILE"`): refused before any
 * request, never taken as "no flag".
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
const CLIP = join(__dirname, '../fixtures/clip.mp4');

describe('empty credential flags', () => {
  test('--workspace "": exit 2 before any request, not a write with the workspace check turned off', async () => {
    const r = await runCli(['upload', CLIP, '--no-wait', '--workspace', ''], { env: emu.env('Demo Second') });
    expect(r.stderr).toContain('Error: --workspace is empty: give the name of the workspace writes must go to, or leave the flag out');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(await emu.requests()).toEqual([]);
  });

  test('--api-key-file "": exit 2 saying the path is empty, not that the working directory cannot be read', async () => {
    for (const argv of [['me'], ['login', '--no-input']]) {
      const r = await runCli([...argv, '--api-key-file', ''], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
      expect(r.stderr).toContain('Error: --api-key-file is empty: give the path of a file that holds only the key');
      expect(r.stderr).not.toContain('EISDIR');
      expect(r.code).toBe(2);
    }
    expect(await emu.requests()).toEqual([]);
  });
});

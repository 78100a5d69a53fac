/**
 * Ctrl-C at login's key prompt is a question cancelled: said as
 * "Cancelled: …" without "Error:", exit 130, as every other question of
 * vidpub (README, exit codes); with --json the error type is "cancelled".
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/cli/run/context.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { noPrompter } from '../support/prompter.js';

const emu = useEmulator();

const cancelled: Prompter = {
  ...noPrompter,
  password: () => Promise.reject(Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' })),
};

describe('login: Ctrl-C at the key prompt', () => {
  it('says Cancelled, not Error; exit 130; nothing stored, nothing sent', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['login'], { tty: true, prompter: cancelled, env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: dir, NO_COLOR: '1' } });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('Cancelled: nothing was stored.\n');
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(await emu.requests()).toEqual([]);
  });

  it('with --json: one error object of type cancelled', async () => {
    const r = await runCli(['login', '--json'], { tty: true, prompter: cancelled, env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_CONFIG_DIR: tempConfigDir() } });
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stderr).error).toMatchObject({ type: 'cancelled', message: 'Cancelled: nothing was stored.', exit_code: 130 });
  });
});

/**
 * Ctrl-C at the destination picker (a real terminal, tmux): what the manual
 * (publishing.md) says: nothing uploaded, no "Error:", exit 130, and the
 * command that repeats what was typed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { waitFor } from '../support/poll.js';

const noTmux = missing('tmux', ['-V']);
const SOCKET = `vidpub-picker-${process.pid}`;
const emu = useEmulator({ processingMs: 20, publishMs: 20 });

const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = (session: string) => tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-200');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const waitForScreen = (session: string, re: RegExp, timeoutMs = 30_000): Promise<string> => waitFor(() => screen(session), (text) => re.test(text), timeoutMs);

describe.skipIf(noTmux)('Ctrl-C at the destination picker (tmux)', () => {
  beforeAll(() => ensureBuilt(), 120_000);
  afterAll(() => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  });

  it('says nothing was uploaded, exit 130, and prints the command that repeats what was typed', async () => {
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-pty-')), TZ: 'UTC', NO_COLOR: '1' };
    const command = ['env', ...Object.entries(env).map(([k, v]) => quote(`${k}=${v}`)), quote(process.execPath), "bin/vidpub.js post test/fixtures/clip.mp4 --caption 'Big one'", '; echo "EXIT:$?"; sleep 120'].join(' ');
    tmux('new-session', '-d', '-x', '120', '-y', '30', '-s', 'picker', '-c', ROOT, command);
    await waitForScreen('picker', /Post to \(space selects, enter accepts\)/);
    tmux('send-keys', '-t', 'picker', 'C-c');
    const done = await waitForScreen('picker', /EXIT:\d+/);
    expect(done).toMatch(/EXIT:130/);
    expect(done).toContain('Cancelled: nothing was uploaded or posted.');
    expect(done).toContain("Run it again with what was typed: vidpub post test/fixtures/clip.mp4 --caption 'Big one' (or add --to DEST[,DEST...])");
    expect(done).not.toContain('Error:');
    expect((await emu.requests()).filter((q) => q.method !== 'GET')).toEqual([]);
  }, 60_000);
});

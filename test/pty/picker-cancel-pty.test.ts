/**
 * Ctrl-C at the destination picker (a real terminal, tmux): what the manual
 * (publishing.md) says: nothing uploaded, no "Error:", exit 130, and the
 * command that repeats what was typed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const tmux = useTmux('picker');

describe.skipIf(noTmux)('Ctrl-C at the destination picker (tmux)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('says nothing was uploaded, exit 130, and prints the command that repeats what was typed', async () => {
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-pty-')), TZ: 'UTC', NO_COLOR: '1' };
    tmux.start('picker', vidpubLine("post test/fixtures/clip.mp4 --caption 'Big one'", env), { rows: 30 });
    await tmux.waitForScreen('picker', /Post to \(space selects, enter accepts\)/, 30_000);
    tmux.keys('picker', 'C-c');
    const done = await tmux.waitForScreen('picker', /EXIT:\d+/, 30_000);
    expect(done).toMatch(/EXIT:130/);
    expect(done).toContain('Cancelled: nothing was uploaded or posted.');
    expect(done).toContain("Run it again with what was typed: vidpub post test/fixtures/clip.mp4 --caption 'Big one' (or add --to DEST[,DEST...])");
    expect(done).not.toContain('Error:');
    expect((await emu.requests()).filter((q) => q.method !== 'GET')).toEqual([]);
  }, 60_000);
});

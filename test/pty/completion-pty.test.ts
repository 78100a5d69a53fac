/**
 * bash completion in a real bash at a pseudo-terminal (tmux): readline, not a harness, decides
 * which part of the word a reply replaces. A typed "@" (a word break that readline keeps with
 * the word) stays.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { missing } from '../support/tools.js';

const noTools = missing('tmux', ['-V']) || missing('bash', ['--version']);
const SOCKET = `vidpub-completion-${process.pid}`;
const SESSION = 'completion';

const emu = useEmulator({ resetEachTest: false });

const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-J', '-t', SESSION);
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe.skipIf(noTools)('bash completion at a terminal (tmux)', () => {
  let script = '';

  beforeAll(async () => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-completion-'));
    // `vidpub` on PATH, as an installed one would be
    const bin = join(dir, 'vidpub');
    writeFileSync(bin, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(BIN)} "$@"\n`);
    chmodSync(bin, 0o755);
    script = join(dir, 'vidpub.bash');
    writeFileSync(script, execFileSync(process.execPath, [BIN, 'completion', 'bash'], { encoding: 'utf8' }));
    const env = { ...emu.env(), PATH: `${dir}:${process.env.PATH}`, HOME: dir, VIDPUB_CONFIG_DIR: join(dir, 'config'), TERM: 'xterm', PS1: '$ ' };
    const command = ['env', '-i', ...Object.entries(env).map(([k, v]) => quote(`${k}=${v}`)), 'bash', '--norc', '--noprofile'].join(' ');
    tmux('new-session', '-d', '-x', '120', '-y', '10', '-s', SESSION, command);
    tmux('send-keys', '-t', SESSION, `source ${quote(script)}; clear`, 'Enter');
    // The first line is typed only once the screen is cleared: typed before, it was drawn at the column the clear left.
    await waitFor(screen, (text) => text.trim() === '$', 15_000);
  }, 120_000);

  afterAll(() => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  });

  const completeLine = async (typed: string, expected: RegExp) => {
    tmux('send-keys', '-t', SESSION, 'C-u');
    tmux('send-keys', '-t', SESSION, '-l', typed);
    tmux('send-keys', '-t', SESSION, 'Tab');
    return waitFor(screen, (text) => expected.test(text), 15_000).catch(() => screen());
  };

  it('--to @vidpubd<TAB> becomes --to @vidpubdemo: the typed "@" stays', async () => {
    const shown = await completeLine('vidpub post --to @vidpubd', /--to @vidpubdemo/);
    expect(shown).toMatch(/^\$ vidpub post --to @vidpubdemo ?$/m);
  }, 30_000);

  it('after a comma too: --to dst_demo_tiktok,@vidpubd<TAB>', async () => {
    const shown = await completeLine('vidpub post --to dst_demo_tiktok,@vidpubd', /,@vidpubdemo/);
    expect(shown).toMatch(/^\$ vidpub post --to dst_demo_tiktok,@vidpubdemo,?$/m);
  }, 30_000);
});

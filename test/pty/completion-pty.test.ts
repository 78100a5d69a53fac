/**
 * bash completion in a real bash at a pseudo-terminal (tmux): readline, not a harness, decides
 * which part of the word a reply replaces. A typed "@" (a word break that readline keeps with
 * the word) stays.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { noTmux, shellQuote as quote, useTmux } from '../support/tmux.js';
import { missing } from '../support/tools.js';

const noTools = noTmux || missing('bash', ['--version']);
const SESSION = 'completion';

const emu = useEmulator({ resetEachTest: false });
const tmux = useTmux('completion');
/** What is on the screen now (the history above it left out: `clear` may have put the lines before it there). */
const visible = { visibleOnly: true };

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
    tmux.start(SESSION, command, { columns: 120, rows: 10 });
    tmux.keys(SESSION, `source ${quote(script)}; clear`, 'Enter');
    // The first line is typed only once the screen is cleared: typed before, it was drawn at the column the clear left.
    await tmux.waitForScreen(SESSION, /^\s*\$\s*$/, 15_000, visible);
  }, 120_000);

  const completeLine = async (typed: string, expected: RegExp) => {
    tmux.keys(SESSION, 'C-u');
    tmux.typed(SESSION, typed);
    tmux.keys(SESSION, 'Tab');
    return tmux.waitForScreen(SESSION, expected, 15_000, visible).catch(() => tmux.screen(SESSION, visible));
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

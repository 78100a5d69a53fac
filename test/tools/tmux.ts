/**
 * An interactive shell in a private tmux server, driven by keystrokes: what a
 * person sees when pressing TAB, which a completion function called by hand
 * cannot show (bash's nospace, zsh's suffix, fish's pager and its space).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../support/poll.js';

const run = promisify(execFile);

export interface TmuxShell {
  /** Types text literally. */
  type(text: string): Promise<void>;
  /** Presses a key by its tmux name ("Tab", "Enter"). */
  press(key: string): Promise<void>;
  /** The screen, line by line. */
  screen(): Promise<string[]>;
  /**
   * Waits until some line of the screen passes `test` and returns it; after
   * `timeoutMs`, returns undefined (the caller's assertion then shows the screen).
   */
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Starts `argv` (a shell) in a new tmux server with `env`, 200 columns wide. */
export async function startTmuxShell(argv: string[], env: NodeJS.ProcessEnv): Promise<TmuxShell> {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-tmux-'));
  const socket = join(dir, 'socket');
  const tmux = async (...args: string[]) => (await run('tmux', ['-S', socket, ...args], { env, encoding: 'utf8' })).stdout;
  await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'test', '-x', '200', '-y', '30', ...argv);
  const shell: TmuxShell = {
    type: async (text) => void (await tmux('send-keys', '-t', 'test', '-l', text)),
    press: async (key) => void (await tmux('send-keys', '-t', 'test', key)),
    screen: async () => (await tmux('capture-pane', '-p', '-t', 'test')).split('\n'),
    async waitForLine(test, timeoutMs = 8_000) {
      const screen = await waitFor(() => shell.screen(), (lines) => lines.some(test), timeoutMs).catch(() => undefined);
      return screen?.find(test);
    },
    async close() {
      await tmux('kill-server').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return shell;
}

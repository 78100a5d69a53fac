/**
 * Real terminals for the tests (test/pty/): one private tmux server per test file (`useTmux`,
 * killed after the file), its sessions started with a command, their screens read and waited
 * on, keys sent to them. A screen is waited on by what it shows (`waitForScreen`), never for a
 * while. Under CI a missing tmux fails the file (tools.ts), elsewhere it skips (`noTmux`).
 *
 * The screens waited on are read through one tmux client in control mode per server
 * (`tmux -C`, a command a line on its stdin, its output between %begin and %end), not a tmux
 * process per look: a wait looks at the screen every 10 to 150 ms, and each look was a fork of
 * the test's worker (a few hundred MB) and a tmux client, about 17 ms of CPU, some 450 of them a
 * run.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll } from 'vitest';
import { BIN, ROOT } from './build.js';
import { waitFor } from './poll.js';
import { missing } from './tools.js';

/** Why the pty tests cannot run here (tmux is not installed), or false. */
export const noTmux = missing('tmux', ['-V']);

/** `s` as one word of a POSIX shell. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The shell line that runs the built vidpub with `args` (shell text, quoted by the caller) and
 * `env` (over the server's environment; `clean`: only `env`, as `env -i`), then prints its exit
 * code as `EXIT:<code>` and stays, so that the screen can be read after it.
 */
export function vidpubLine(args: string, env: Record<string, string>, opts: { clean?: boolean } = {}): string {
  const vars = Object.entries(env).map(([k, v]) => shellQuote(`${k}=${v}`));
  return ['env', ...(opts.clean ? ['-i'] : []), ...vars, shellQuote(process.execPath), shellQuote(BIN), args, '; echo "EXIT:$?"; sleep 120'].join(' ');
}

export interface Tmux {
  /** The server's socket name (`tmux -L <socket>`), for a command run inside a session. */
  socket: string;
  /** A tmux command on this file's server: what it printed. */
  run(...args: string[]): string;
  /** A new session `name`, `columns` x `rows`, in `cwd` (the checkout), running `command` (a shell line, or a program's argv). */
  start(name: string, command: string | string[], opts?: { columns?: number; rows?: number; cwd?: string }): void;
  /** The session's screen, wrapped lines joined; with the last 500 lines of its history unless `visibleOnly`. */
  screen(name: string, opts?: { visibleOnly?: boolean; flags?: string[] }): string;
  /** The session's screen as `screen` reads it, through the server's control client (no process started). */
  capture(name: string, opts?: { visibleOnly?: boolean; flags?: string[] }): Promise<string>;
  /** Waits until the screen (as `screen` reads it) matches `re`, and returns it. */
  waitForScreen(name: string, re: RegExp, timeoutMs?: number, opts?: { visibleOnly?: boolean }): Promise<string>;
  /** Keys by their tmux names ("Enter", "Down", "C-c", "y"). */
  keys(name: string, ...keys: string[]): void;
  /** Text typed as it is. */
  typed(name: string, text: string): void;
}

/** The test file's tmux server (`name` tells it from other files' in `tmux ls`), killed after the file. */
export function useTmux(name: string): Tmux {
  const socket = `vidpub-${name}-${process.pid}`;
  const run = (...args: string[]): string => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  afterAll(() => {
    if (noTmux) return;
    try {
      run('kill-server');
    } catch {
      // no server was started, or it is gone
    }
  });
  const captureArgs = (session: string, opts: { visibleOnly?: boolean; flags?: string[] }): string[] =>
    ['capture-pane', '-p', ...(opts.flags ?? []), '-J', '-t', session, ...(opts.visibleOnly ? [] : ['-S', '-500'])];
  const screen: Tmux['screen'] = (session, opts = {}) => run(...captureArgs(session, opts));
  let control: ControlClient | undefined;
  afterAll(() => control?.close());
  const capture: Tmux['capture'] = (session, opts = {}) => (control ??= new ControlClient(socket, run)).command(captureArgs(session, opts));
  return {
    socket,
    run,
    start(session, command, opts = {}) {
      const argv = typeof command === 'string' ? [command] : command;
      run('new-session', '-d', '-x', String(opts.columns ?? 120), '-y', String(opts.rows ?? 40), '-s', session, '-c', opts.cwd ?? ROOT, ...argv);
    },
    screen,
    capture,
    waitForScreen: (session, re, timeoutMs = 20_000, opts = {}) => waitFor(() => capture(session, opts), (text) => re.test(text), timeoutMs),
    keys: (session, ...keys) => void run('send-keys', '-t', session, ...keys),
    typed: (session, text) => void run('send-keys', '-t', session, '-l', text),
  };
}

/** An interactive shell in a session of the file's server, driven by keystrokes (completion as a person sees it on TAB). */
export interface TmuxShell {
  /** Types text literally. */
  type(text: string): void;
  /** Presses a key by its tmux name ("Tab", "Enter"). */
  press(key: string): void;
  /** The screen, line by line. */
  screen(): string[];
  /** Waits until a line of the screen passes `test` and returns it; after `timeoutMs`, undefined (the caller's assertion then shows the screen). */
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string | undefined>;
  /** Ends the session. */
  close(): void;
}

/** Starts `argv` (a shell) in a new session `name`, 200 columns wide, with exactly `env` (and the terminal's TERM). */
export function tmuxShell(tmux: Tmux, name: string, argv: string[], env: Record<string, string | undefined>): TmuxShell {
  const vars = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [shellQuote(`${k}=${v}`)]));
  tmux.start(name, ['exec env -i TERM="$TERM"', ...vars, ...argv.map(shellQuote)].join(' '), { columns: 200, rows: 30 });
  const screen = (): string[] => tmux.screen(name, { visibleOnly: true }).split('\n');
  return {
    type: (text) => tmux.typed(name, text),
    press: (key) => tmux.keys(name, key),
    screen,
    async waitForLine(test, timeoutMs = 40_000) {
      const look = async (): Promise<string[]> => (await tmux.capture(name, { visibleOnly: true })).split('\n');
      const lines = await waitFor(look, (all) => all.some(test), timeoutMs).catch(() => undefined);
      return lines?.find(test);
    },
    close: () => void tmux.run('kill-session', '-t', name),
  };
}

/**
 * A tmux client in control mode on a file's server: commands written a line each, answered in
 * order, each answer the lines between `%begin` and `%end` (or `%error`: the promise rejects
 * with them). It sits in a session of its own (`vidpub-control`, a sleep), so that no session a
 * test starts, ends or resizes is its; the pane output tmux would send it is turned off.
 */
class ControlClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve(text: string): void; reject(e: Error): void }[] = [];
  private pending = '';
  /** The lines of the answer being read, or undefined between answers. */
  private answer: string[] | undefined;
  /** Whether that answer is to a command of this client's (flags 1), not to the attach it was started with. */
  private ours = false;
  private ended: Error | undefined;

  constructor(socket: string, run: (...args: string[]) => string) {
    run('new-session', '-d', '-s', 'vidpub-control', 'sleep 86400');
    this.child = spawn('tmux', ['-L', socket, '-f', '/dev/null', '-C', 'attach-session', '-t', 'vidpub-control']);
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.read(chunk));
    this.child.stdin.on('error', () => undefined);
    this.child.on('close', () => this.fail(new Error('the tmux control client ended')));
    void this.command(['refresh-client', '-f', 'no-output']).catch(() => undefined);
  }

  /** Runs one tmux command, its words as they are (each quoted here, as a POSIX shell would, which tmux's parser reads alike); what it printed. */
  command(args: string[]): Promise<string> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${args.map(shellQuote).join(' ')}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }

  private read(chunk: string): void {
    this.pending += chunk;
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, '');
      this.pending = this.pending.slice(nl + 1);
      if (this.answer === undefined) {
        const begin = /^%begin \d+ \d+ (\d+)$/.exec(line);
        if (begin) {
          this.answer = [];
          this.ours = begin[1] === '1';
        }
        continue; // a notification (%session-changed, %exit...)
      }
      if (/^%(end|error) \d+ \d+ \d+$/.test(line)) {
        const text = this.answer.map((l) => `${l}\n`).join('');
        this.answer = undefined;
        if (!this.ours) continue;
        const next = this.waiting.shift();
        if (line.startsWith('%end')) next?.resolve(text);
        else next?.reject(new Error(`tmux: ${text.trim()}`));
        continue;
      }
      this.answer.push(line);
    }
  }

  private fail(e: Error): void {
    this.ended = e;
    for (const w of this.waiting.splice(0)) w.reject(e);
  }
}

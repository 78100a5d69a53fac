/**
 * The real Context, built from the running process. This file and bin/ are the
 * only places that read process state; commands see it through Context.
 */
import { fstatSync } from 'node:fs';
import type { Context } from './context.js';
import { realClock } from '../../core/clock.js';
import { guardGoneReader } from '../../core/io.js';
import { guardTerminal } from '../../ui/terminal.js';
import { nodeTty } from '../../util/lazy-builtins.js';

declare const __VIDPUB_VERSION__: string | undefined;
export const VERSION: string = typeof __VIDPUB_VERSION__ === 'string' ? __VIDPUB_VERSION__ : '0.0.0-dev';

/**
 * Whether a file descriptor is a terminal. A pipe or a file is told by fstat alone: node:tty is
 * loaded only for a character device (bin/vidpub.js asks the same way).
 */
function isTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice() && nodeTty().isatty(fd);
  } catch {
    return false;
  }
}

export function createProcessContext(opts: { signal: AbortSignal }): Context {
  const [stdinIsTTY, stdoutIsTTY, stderrIsTTY] = [isTerminal(0), isTerminal(1), isTerminal(2)];
  const ctx: Context = {
    // The stdio streams are created on first use (a few ms each, and most commands never read
    // stdin); whether each is a terminal is asked of its file descriptor, and only a terminal
    // has columns.
    io: {
      get stdin() {
        return process.stdin;
      },
      // A reader gone away (`2>&1 | head -1`) stops the output, not the command (src/core/io.ts);
      // a terminal shows the bidirectional controls written to it (src/ui/terminal.ts).
      get stdout() {
        const out = guardGoneReader(process.stdout);
        return stdoutIsTTY ? guardTerminal(out) : out;
      },
      get stderr() {
        const err = guardGoneReader(process.stderr);
        return stderrIsTTY ? guardTerminal(err) : err;
      },
      stdinIsTTY,
      stdoutIsTTY,
      stderrIsTTY,
      get columns() {
        return (stderrIsTTY && process.stderr.columns) || (stdoutIsTTY && process.stdout.columns) || undefined;
      },
    },
    env: process.env,
    clock: realClock,
    // An identical post that finished after this moment ran beside this one (src/posts/post/live-run.ts).
    startedAt: Math.floor(performance.timeOrigin),
    config: async () => (await import('../../config/config-store.js')).openConfigStore(ctx.env, ctx.cwd),
    prompter: async () => (await import('../../ui/prompter.js')).createInquirerPrompter(ctx),
    createClient: async (settings) => (await import('./client-factory.js')).createClientFor(ctx, settings),
    signal: opts.signal,
    cwd: process.cwd(),
    version: VERSION,
    runtime: { node: process.versions.node, platform: process.platform, arch: process.arch },
    openBrowser: async (url) => (await import('../io/browser.js')).systemOpen(url, process.platform, ctx.env),
  };
  return ctx;
}

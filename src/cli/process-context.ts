/**
 * The real Context, built from the running process. This file and bin/ are the
 * only places that read process state; commands see it through Context.
 */
import type { Context } from './context.js';
import { realClock } from '../core/clock.js';

declare const __VIDPUB_VERSION__: string | undefined;
export const VERSION: string = typeof __VIDPUB_VERSION__ === 'string' ? __VIDPUB_VERSION__ : '0.0.0-dev';

export function createProcessContext(opts: { signal: AbortSignal }): Context {
  const ctx: Context = {
    io: {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      stdinIsTTY: process.stdin.isTTY === true,
      stdoutIsTTY: process.stdout.isTTY === true,
      stderrIsTTY: process.stderr.isTTY === true,
      columns: process.stderr.columns || process.stdout.columns || undefined,
    },
    env: process.env,
    clock: realClock,
    config: async () => (await import('../config/store.js')).openConfigStore(ctx.env),
    prompter: async () => (await import('../ui/prompter.js')).createInquirerPrompter(ctx),
    createClient: async (settings) => (await import('./client-factory.js')).createClientFor(ctx, settings),
    signal: opts.signal,
    cwd: process.cwd(),
    version: VERSION,
    runtime: { node: process.versions.node, platform: process.platform, arch: process.arch },
  };
  return ctx;
}

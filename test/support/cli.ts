/**
 * Runs vidpub in-process, the way bin/vidpub.js does, but with fake streams,
 * an injected env, clock and prompter, and a private config directory.
 */
import { PassThrough, Readable } from 'node:stream';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CommandLine } from '../../src/cli/line/command-line.js';
import { readCommandLine } from '../../src/cli/line/parse.js';
import { loadCommand } from '../../src/cli/commands/load.js';
import { realClock, type Clock, type Context, type Prompter } from '../../src/cli/run/context.js';
import { noPrompter } from './prompter.js';

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Text fed to stdin (then end of input). */
  stdin?: string;
  /** Which streams claim to be terminals (default: none, as in CI). */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  prompter?: Prompter;
  clock?: Clock;
  /** Abort to simulate Ctrl-C. */
  signal?: AbortSignal;
  /** The client's random source (the jitter of its backoff and of its waits for a reset); Math.random when absent. */
  random?: () => number;
  columns?: number;
  /** The command's working directory (default: the test's). */
  cwd?: string;
  /** Called with each chunk written to stderr (to react to progress, e.g. abort). */
  onStderr?(chunk: string): void;
  /** Called with each chunk written to stdout (to react to a line, e.g. release held work). */
  onStdout?(chunk: string): void;
  /** When the command started (epoch ms), as the built bin's is its process's start (Context.startedAt). */
  startedAt?: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'vidpub-test-'));
}

function collector(onChunk?: (s: string) => void): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => {
    const s = c.toString('utf8');
    chunks.push(s);
    onChunk?.(s);
  });
  return { stream, text: () => chunks.join('') };
}

export function makeContext(opts: RunOptions = {}): { ctx: Context; stdout: () => string; stderr: () => string } {
  const tty = typeof opts.tty === 'boolean' ? { stdin: opts.tty, stdout: opts.tty, stderr: opts.tty } : (opts.tty ?? {});
  const out = collector(opts.onStdout);
  const err = collector(opts.onStderr);
  const configDir = opts.env?.VIDPUB_CONFIG_DIR ?? tempConfigDir();
  // The journal too lives in a private dir unless a test names one.
  const env: Record<string, string | undefined> = { VIDPUB_CONFIG_DIR: configDir, VIDPUB_STATE_DIR: join(configDir, 'state'), ...opts.env };
  const ctx: Context = {
    io: {
      stdin: Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]),
      stdout: out.stream,
      stderr: err.stream,
      stdinIsTTY: tty.stdin ?? false,
      stdoutIsTTY: tty.stdout ?? false,
      stderrIsTTY: tty.stderr ?? false,
      columns: opts.columns ?? 100,
    },
    env,
    clock: opts.clock ?? realClock,
    config: async () => (await import('../../src/config/config-store.js')).openConfigStore(env, ctx.cwd),
    prompter: async () => opts.prompter ?? noPrompter,
    createClient: async (settings) => (await import('../../src/cli/run/client-factory.js')).createClientFor(ctx, settings, opts.random ? { random: opts.random } : undefined),
    signal: opts.signal ?? new AbortController().signal,
    cwd: opts.cwd ?? process.cwd(),
    version: '0.0.0-test',
    ...(opts.startedAt !== undefined ? { startedAt: opts.startedAt } : {}),
  };
  return { ctx, stdout: out.text, stderr: err.text };
}

export async function runCli(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
  const { ctx, stdout, stderr } = makeContext(opts);
  const code = await main(argv, ctx);
  // Let the PassThrough streams flush their last 'data' events.
  await new Promise((r) => setImmediate(r));
  return { code, stdout: stdout(), stderr: stderr() };
}

/**
 * runCli with a test file's defaults, read afresh at each run (a new clock,
 * the emulator's env once it is started): a run's own options win, its env
 * is merged over the default env.
 */
export function cliRunner(defaults: () => RunOptions): (argv: string[], opts?: RunOptions) => Promise<RunResult> {
  return (argv, opts = {}) => {
    const d = defaults();
    return runCli(argv, { ...d, ...opts, env: { ...d.env, ...opts.env } });
  };
}

/** `argv` read by the command-line module alone (nothing runs): the line read, or the parser's exit code and words. */
export async function readLineOnly(argv: string[], opts: RunOptions = {}): Promise<{ line?: CommandLine; code: number; stdout: string; stderr: string }> {
  const { ctx, stdout, stderr } = makeContext(opts);
  let line: CommandLine | undefined;
  const code = await readCommandLine(argv, ctx, async (read) => {
    line = read;
    return 0;
  }, loadCommand);
  // Commander's writes reach the collectors on the next turn.
  await new Promise((r) => setImmediate(r));
  return { line, code, stdout: stdout(), stderr: stderr() };
}

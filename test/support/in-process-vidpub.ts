/**
 * `vidpub` for shell text a test runs, run in the test's own process: the manual's pages
 * (test/docs/doctest.ts, Session's `inProcess`) and the examples of `--help`
 * (test/docs/help-examples.test.ts). Each start of the built bin costs about 0.2 s of CPU,
 * and those tests start it a hundred times and more, most of their CPU. The shell stays real
 * bash; what changes is the program `vidpub` on its PATH: a short bash script (bash starts in a
 * few ms, node in 100) that hands the command to this process over a local socket, where the
 * build's own main(argv, ctx) runs (dist/main.js, the bundle bin/vidpub.js loads; its Context
 * is made by the build's createProcessContext, as the bin makes it, then given the command's
 * own environment, working directory and standard streams), and that writes back what it
 * printed and exits with its code. A test that wants some commands to run the built bin end to
 * end puts a directory whose `vidpub` is the bin before this one on PATH.
 *
 * What the script sends: its pid, the number of its arguments, then its arguments, each ended by a NUL. What this process
 * reads of the script's process in /proc, as the command's own process would have them: its
 * environment (/proc/PID/environ, the environment the script was started with), its working
 * directory (/proc/PID/cwd) and its stdin (/proc/PID/fd/0, opened only when the command reads
 * it: a pipe into `vidpub` is read from the very pipe).
 *
 * What comes back, a line each, in the order the command wrote it: `1TEXT` (stdout) or `2TEXT`
 * (stderr), TEXT escaped for printf's %b (a backslash, a newline and a NUL escaped, all else as
 * it is); then `xCODE`, the exit code. The script writes each to its own stdout or stderr, so
 * that a block's redirections (`2>&1 >/dev/null`, `> post.txt`, a pipe) and the order of
 * stdout and stderr on one pipe are what they are with the bin. A reader that went away
 * (`vidpub ... | head -1`) is no failure of the command, as with the bin: what is left is dropped.
 * A command that serves until a signal stops it (`vidpub emulator`, `requests --follow`, as in
 * `vidpub emulator ... & pid=$!; kill $pid`) is answered `w` first: the script reads the rest in
 * a subshell beside, waits for it, and passes the SIGTERM, SIGINT or SIGHUP it gets on as a line
 * `sSIGNAME`, which aborts the command as the bin's own handler does; what the command prints as
 * it stops, and its exit code, come back as from the bin. (A script killed outright, SIGKILL,
 * cannot pass it on: its connection closes when its reader ends, and the command is aborted as
 * by SIGHUP.)
 *
 * What still runs the real bin (bin/vidpub.js), the script exec'ing it:
 * - any of stdin, stdout or stderr a terminal (`transcript tty`): what a terminal is told by
 *   (isatty, its width) is the process's own;
 * - `vidpub emulator --state DIR`: the directory is locked by the process that holds it (its pid),
 *   and a kill -9 of that process is what the manual shows of it; and an emulator given a file
 *   (`--fixture`, `--import`, `--tls-cert`, `--tls-key`): it reads it relative to the process's
 *   own working directory, not the command's;
 * - `--exec` (watch's hooks): a hook is a child that inherits the process's stderr;
 * - an environment whose TZ names another zone than this process's: the local zone is the
 *   process's (src/time/describe.ts reads Date's local time).
 * A page can run the real bin throughout (no `inProcess`): README.md does, in manual-lanes.ts.
 */
import { createReadStream, readFileSync, readlinkSync, writeFileSync, type ReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { COMMANDS } from '../../src/cli/commands/index.js';
import type { Clock, Context } from '../../src/cli/run/context.js';
import { DEFAULT_DEADLINES_MS, manualClock, tickWhileAllAsleep } from './clock.js';

interface Built {
  main(argv: string[], ctx: Context): Promise<number>;
  createProcessContext(opts: { signal: AbortSignal }): Context;
}

const BACKSLASH = 0x5c;
const ESCAPES: Record<number, string> = { [BACKSLASH]: '\\\\', 0x0a: '\\n', 0x00: '\\0000' };

/** `bytes` as one line of the answer: what printf '%b' prints back as these very bytes. */
export function escapeForPrintf(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    const escape = ESCAPES[bytes[i]!];
    if (escape === undefined) continue;
    parts.push(bytes.subarray(from, i), Buffer.from(escape, 'latin1'));
    from = i + 1;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

/** The controls of `vidpub emulator CONTROL` (its first argument's choices, in the registry). */
const CONTROLS: readonly string[] = COMMANDS.find((c) => c.name === 'emulator')?.args?.find((a) => a.name === 'control')?.choices ?? [];

/** Whether `argv` serves until a signal stops it: an emulator, or a control that follows (`requests --follow`). */
export function servesUntilSignal(argv: readonly string[]): boolean {
  const at = argv.indexOf('emulator');
  // `vidpub emulator clock +2h` and the other controls drive a running emulator and are done; `--follow` is not.
  return at >= 0 && (!CONTROLS.includes(argv[at + 1] ?? '') || argv.includes('--follow'));
}

/** Whether `argv` runs a command whose whole world is in it: `vidpub demo`, whose emulator runs on the command's clock. */
export function ownWorld(argv: readonly string[]): boolean {
  return argv.find((a) => !a.startsWith('-')) === 'demo';
}

/** Why `argv` with `env` runs in the real bin instead (see the list above), or undefined. */
export function needsRealBin(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (servesUntilSignal(argv)) {
    const flag = (name: string) => argv.some((a) => a === name || a.startsWith(`${name}=`));
    if (flag('--state')) return "the emulator's --state DIR is locked by its process";
    if (['--fixture', '--import', '--tls-cert', '--tls-key'].some(flag)) return "the emulator reads its files relative to the process's directory";
  }
  if (argv.some((a) => a === '--exec' || a.startsWith('--exec='))) return "a hook inherits the process's stderr";
  if (env.TZ !== process.env.TZ && zoneOf(env.TZ) !== zoneOf(process.env.TZ)) return `TZ ${env.TZ ?? '(unset)'} is not this process's zone`;
  return undefined;
}

/** Each named zone as Intl read it: a DateTimeFormat costs about a millisecond, asked at each run. */
const zonesRead = new Map<string, string | undefined>();

/** The zone `tz` names as Intl reads it (this process's own when unset); undefined for one Intl cannot read (a POSIX TZ string). */
function zoneOf(tz: string | undefined): string | undefined {
  if (tz !== undefined && zonesRead.has(tz)) return zonesRead.get(tz);
  let zone: string | undefined;
  try {
    zone = new Intl.DateTimeFormat('en-US', tz === undefined ? {} : { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    zone = undefined;
  }
  if (tz !== undefined) zonesRead.set(tz, zone);
  return zone;
}

/** The NUL-separated `KEY=VALUE` entries of /proc/PID/environ. */
function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** A stream whose every write goes at once to `socket` as one line of `channel` (1 stdout, 2 stderr). */
function channel(socket: Socket, tag: '1' | '2'): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!socket.destroyed) socket.write(Buffer.concat([Buffer.from(tag), escapeForPrintf(chunk), Buffer.from('\n')]));
      done();
    },
  });
}

/** The program `vidpub` of a session's PATH: see the top of this file. */
function script(port: number, realBin: string): string {
  return `#!/bin/bash
# vidpub: the build's main in the test's process (test/support/in-process-vidpub.ts).
real() { exec ${JSON.stringify(process.execPath)} ${JSON.stringify(realBin)} "$@"; }
if [ -t 0 ] || [ -t 1 ] || [ -t 2 ]; then real "$@"; fi
exec 3<>/dev/tcp/127.0.0.1/${port} || { echo "vidpub (in-process): no test process on port ${port}" >&2; exit 70; }
printf '%s\\0' "$$" "$#" "$@" >&3
# A reader gone away is no failure (as bin/vidpub.js takes EPIPE): the rest is dropped.
trap '' PIPE
relay() {
  while IFS= read -r -u 3 line; do
    case $line in
      1*) printf '%b' "\${line:1}" 2>/dev/null ;;
      2*) printf '%b' "\${line:1}" >&2 ;;
      x*) exit "\${line:1}" ;;
      r) exec 3>&-; real "$@" ;;
      # It serves until a signal stops it: the rest is read beside, and a signal to this script is passed on
      # (bash runs a trap when a wait is interrupted, not a read). Traps first: a subshell does not inherit them.
      w)
        for sig in TERM INT HUP; do trap "printf 'sSIG$sig\\n' >&3" $sig; done
        relay & pid=$!
        while :; do wait $pid; code=$?; kill -0 $pid 2>/dev/null || exit $code; done ;;
    esac
  done
  echo "vidpub (in-process): the test process closed the connection" >&2
  exit 70
}
relay "$@"
`;
}

/** A local server that runs the build's main for the `vidpub` scripts it writes. */
export class InProcessVidpub {
  private readonly running = new Set<AbortController>();
  private readonly hooks = new Map<string, (args: string[]) => Promise<void>>();
  /** How many commands ran here, how many went to the real bin instead (and why), and the signals scripts passed on. */
  readonly ran = { inProcess: 0, realBin: [] as Array<{ argv: string[]; why: string }>, signals: [] as string[] };

  private constructor(
    private readonly server: Server,
    private readonly built: Built,
    private readonly root: string,
    private readonly clock?: (env: Readonly<Record<string, string>>) => Clock | undefined,
  ) {}

  /**
   * Listens on an ephemeral port of 127.0.0.1; `root` is the checkout whose dist/ and bin/ run. With `clock`, each
   * command gets the clock it makes of the command's environment instead of the process's (a faster one, say, for the
   * waits a test is not about); undefined: the process's.
   */
  static async start(root: string, opts: { clock?: (env: Readonly<Record<string, string>>) => Clock | undefined } = {}): Promise<InProcessVidpub> {
    const built = createRequire(import.meta.url)(join(root, 'dist', 'main.js')) as Built;
    const server = createServer();
    const self = new InProcessVidpub(server, built, root, opts.clock);
    server.on('connection', (socket) => self.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return self;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** Writes the program `vidpub` into `dir` (a directory of PATH). */
  writeScript(dir: string): void {
    writeFileSync(join(dir, 'vidpub'), script(this.port, join(this.root, 'bin', 'vidpub.js')), { mode: 0o755 });
  }

  /**
   * A bash function `name ARGS...` (its definition, for a script to hold) that runs `fn(ARGS)` in
   * this process and returns when it is done, 1 when it threw: a test's own step between the
   * commands of one shell (a fresh minute of the emulator's clock before each --help example),
   * without a shell of its own for each.
   */
  shellHook(name: string, fn: (args: string[]) => Promise<void>): string {
    this.hooks.set(name, fn);
    return `${name}() {
  local __answer=
  exec 9<>/dev/tcp/127.0.0.1/${this.port} || return 1
  printf '%s\\0' hook ${JSON.stringify(name)} "$#" "$@" >&9
  IFS= read -r -u 9 __answer
  exec 9>&-
  [ "$__answer" = ok ] || { echo "${name}: $__answer" >&2; return 1; }
}`;
  }

  /** Stops listening; a command still running is aborted (as by a signal). */
  async close(): Promise<void> {
    for (const c of this.running) c.abort(Object.assign(new Error('received SIGTERM'), { name: 'AbortError', signal: 'SIGTERM' }));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    let request = Buffer.alloc(0);
    let started = false;
    /** What follows the request: `sSIGNAME` lines, the signals the script got. */
    let after = '';
    const signals = new EventEmitter();
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      if (started) {
        after += chunk.toString('latin1');
        for (let nl = after.indexOf('\n'); nl >= 0; nl = after.indexOf('\n')) {
          const line = after.slice(0, nl);
          after = after.slice(nl + 1);
          if (line.startsWith('s')) signals.emit('signal', line.slice(1));
        }
        return;
      }
      request = Buffer.concat([request, chunk]);
      // NUL-ended fields: the pid, the number of arguments, the arguments (a hook: `hook`, its name, then those).
      const fields = request.toString('utf8').split('\0');
      fields.pop(); // what follows the last NUL
      const hook = fields[0] === 'hook' ? 1 : 0;
      if (fields.length < 2 + hook || fields.length < 2 + hook + Number(fields[1 + hook])) return;
      started = true;
      if (hook) void this.runHook(fields[1]!, fields.slice(3), socket);
      else void this.run(Number(fields[0]), fields.slice(2), socket, signals);
    });
  }

  private async runHook(name: string, args: string[], socket: Socket): Promise<void> {
    const fn = this.hooks.get(name);
    let answer = 'ok';
    try {
      if (!fn) throw new Error(`no hook ${name}`);
      await fn(args);
    } catch (err) {
      answer = `failed: ${String((err as Error)?.message ?? err).replace(/\n/g, ' ')}`;
    }
    socket.end(`${answer}\n`);
  }

  private async run(pid: number, argv: string[], socket: Socket, signals: EventEmitter): Promise<void> {
    let env: Record<string, string>;
    let cwd: string;
    try {
      env = environOf(pid);
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch (err) {
      socket.end(Buffer.concat([Buffer.from('2'), escapeForPrintf(Buffer.from(`vidpub (in-process): cannot read process ${pid}: ${(err as Error).message}\n`)), Buffer.from('\nx70\n')]));
      return;
    }
    const why = needsRealBin(argv, env);
    if (why) {
      this.ran.realBin.push({ argv, why });
      socket.end('r\n');
      return;
    }
    this.ran.inProcess++;
    const controller = new AbortController();
    this.running.add(controller);
    // The script gone (the block's run timed out and was killed): the command stops as by a signal.
    const abort = (signal: string) => controller.abort(Object.assign(new Error(`received ${signal}`), { name: 'AbortError', signal }));
    const onGone = () => abort('SIGHUP');
    socket.once('close', onGone);
    // A signal the script got and passed on: as the bin's own handler takes it (bin/vidpub.js).
    if (servesUntilSignal(argv)) {
      signals.on('signal', (signal: string) => {
        this.ran.signals.push(signal);
        abort(signal);
      });
      socket.write('w\n');
    }
    let stdin: ReadStream | undefined;
    const ctx = this.built.createProcessContext({ signal: controller.signal });
    // The command's clock: for one whose whole world runs in it (the demo: its emulator on the command's clock), a clock
    // of its own, moved on whenever all it does is wait on it (the demo's default pace sat out on no real clock); for
    // the others, the one made of their environment, if any.
    const own = ownWorld(argv) ? manualClock(Date.now()) : undefined;
    const clock = own ?? this.clock?.(env);
    const stopClock = own && tickWhileAllAsleep(own, () => 1, [...DEFAULT_DEADLINES_MS]);
    Object.assign(ctx, {
      io: {
        get stdin() {
          return (stdin ??= createReadStream(`/proc/${pid}/fd/0`));
        },
        stdout: channel(socket, '1'),
        stderr: channel(socket, '2'),
        stdinIsTTY: false,
        stdoutIsTTY: false,
        stderrIsTTY: false,
        columns: undefined,
      },
      env,
      cwd,
      // An identical post that finished after the command's start ran beside it (the bin: its process's start).
      startedAt: Date.now(),
      ...(clock ? { clock } : {}),
    } satisfies Partial<Context>);
    let code: number;
    try {
      code = await this.built.main(argv, ctx);
    } catch (err) {
      // The bin would die of the unhandled rejection, printing it: code 1.
      ctx.io.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
      code = 1;
    } finally {
      stopClock?.();
      this.running.delete(controller);
      socket.off('close', onGone);
      stdin?.destroy();
    }
    socket.end(`x${code}\n`);
  }
}

/**
 * `vidpub` for shell text run by a test (the --help examples), run in the test's own process:
 * a bash function (builtins only: no process is started for it) that hands its arguments,
 * environment, working directory and stdin to main() here (runCli: the same main(argv, ctx)
 * as bin/vidpub.js, over real HTTP), then writes the command's stdout and stderr and returns
 * its exit code. Pipes, redirections, `$(...)` and `source <(...)` stay the shell's, as with
 * the built bin; what is not the same is only what bin/vidpub.js itself does (the fast path,
 * the bundles, signals), which a test keeps for the runs it names through the built bin.
 *
 * The call, over a TCP connection to 127.0.0.1 (bash's /dev/tcp), NUL-separated fields: which
 * of stdin/stdout/stderr are terminals, the working directory, argc, the arguments, the
 * exported variables (NAME=value), an empty field, then stdin (text). The answer: the exit
 * code, stdout, stderr.
 */
import { createServer, type Socket } from 'node:net';
import { runCli } from './cli.js';

export interface CliBridge {
  /** The bash function `vidpub`, for a script to define before it calls vidpub. */
  readonly function: string;
  /** The same as a bash program, to put on PATH as `vidpub` (for what runs it as a program). */
  readonly script: string;
  /** How many commands it has run so far. */
  readonly calls: number;
  close(): Promise<void>;
}

interface Call {
  tty: string;
  cwd: string;
  argv: string[];
  env: Record<string, string | undefined>;
  stdin: string;
}

/** The call in `fields` (the text split at NUL), or undefined while it is not all there. */
function readCall(fields: string[]): Call | undefined {
  const [tty = '', cwd = '', argc = ''] = fields;
  const argvEnd = 3 + Number(argc);
  const envEnd = fields.indexOf('', argvEnd);
  // The fields after the last NUL are not complete yet: stdin must be followed by one.
  if (fields.length < 3 || envEnd < 0 || fields.length < envEnd + 3) return undefined;
  return { tty, cwd, argv: fields.slice(3, argvEnd), env: parseEnv(fields.slice(argvEnd, envEnd)), stdin: fields[envEnd + 1]! };
}

function parseEnv(entries: string[]): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  // As in a process without them: runCli otherwise gives each run a private config and state dir.
  for (const name of ['VIDPUB_CONFIG_DIR', 'VIDPUB_STATE_DIR']) if (!(name in env)) env[name] = undefined;
  return env;
}

async function runCall(call: Call): Promise<string> {
  const r = await runCli(call.argv, {
    env: call.env,
    cwd: call.cwd,
    stdin: call.stdin === '' ? undefined : call.stdin,
    tty: { stdin: call.tty.includes('i'), stdout: call.tty.includes('o'), stderr: call.tty.includes('e') },
  });
  return `${r.code}\0${r.stdout}\0${r.stderr}\0`;
}

export async function startCliBridge(): Promise<CliBridge> {
  let calls = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let text = '';
    let started = false;
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const call = started ? undefined : readCall(text.split('\0'));
      if (!call) return;
      started = true;
      calls++;
      runCall(call).then(
        (answer) => socket.end(answer),
        (err: unknown) => socket.end(`70\0\0the test's vidpub bridge failed: ${err instanceof Error ? err.stack : String(err)}\n\0`),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const fn = [
    'vidpub() {',
    '  local __t=- __n __in= __fd __code= __out= __err=',
    '  [ -t 0 ] && __t+=i; [ -t 1 ] && __t+=o; [ -t 2 ] && __t+=e',
    "  [ -t 0 ] || IFS= read -r -d '' __in || true",
    `  exec {__fd}<>/dev/tcp/127.0.0.1/${port} || return 70`,
    '  {',
    '    printf \'%s\\0\' "$__t" "$PWD" "$#" "$@"',
    '    for __n in $(compgen -e); do printf \'%s=%s\\0\' "$__n" "${!__n}"; done',
    '    printf \'\\0%s\\0\' "$__in"',
    '  } >&"$__fd"',
    "  IFS= read -r -d '' -u \"$__fd\" __code || true",
    "  IFS= read -r -d '' -u \"$__fd\" __out || true",
    "  IFS= read -r -d '' -u \"$__fd\" __err || true",
    '  exec {__fd}<&-',
    '  printf \'%s\' "$__out"; printf \'%s\' "$__err" >&2',
    '  return "${__code:-70}"',
    '}',
  ].join('\n');
  return {
    function: fn,
    script: `#!/bin/bash\n# vidpub, run in the test process (test/support/cli-bridge.ts).\n${fn}\nvidpub "$@"\n`,
    get calls() {
      return calls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

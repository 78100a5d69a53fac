/**
 * A real Secret Service for the keychain tests (test/credentials/): a private D-Bus session
 * (dbus-run-session) with gnome-keyring-daemon in it, its keyrings in a temp
 * HOME, unlocked with a password or not. The CLI runs as a child process with
 * the session's DBUS_SESSION_BUS_ADDRESS; secret-tool (libsecret-tools) reads
 * what it stored. .ci/run installs the three Debian packages; in CI a missing
 * tool fails the tests. A describe block takes one with `useSecretService`
 * (or `useSilentSecretService`): started before its tests, stopped after them.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll } from 'vitest';
import { runs } from './tools.js';
import { waitFor } from './poll.js';

export const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool', 'dbus-send'];

/** The tools that are not on PATH. */
export function missingTools(): string[] {
  return TOOLS.filter((t) => !runs(t, null));
}

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS and the temp HOME, for the CLI's environment. */
  env: Record<string, string>;
  /** The secret stored under the service "vidpub" and this account, read by secret-tool; undefined when there is none. */
  lookup(account: string): string | undefined;
  /** The accounts of every entry filed under the service "vidpub", locked or not (secret-tool search --all). */
  accounts(): string[];
  /** Stores a secret under the service "vidpub" and this account, as an earlier vidpub would have. */
  store(account: string, secret: string): void;
  /** Locks the login keyring through D-Bus (as the screen locker would). */
  lock(): void;
  /** Unlocks it again: a new daemon replaces the running one and opens the keyring with its password, as a desktop login does. */
  unlock(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a session bus with gnome-keyring's secrets component. `unlock`: the
 * login keyring is created and unlocked with a password, as a desktop login
 * does; without it there is no unlocked keyring and every store call fails.
 */
export async function startSecretService(opts: { unlock: boolean }): Promise<SecretService> {
  const missing = missingTools();
  if (missing.length > 0) throw new Error(`the Secret Service tests need ${missing.join(', ')} (Debian: gnome-keyring dbus-daemon libsecret-tools; .ci/run installs them)`);
  const home = mkdtempSync(join(tmpdir(), 'vidpub-keyring-'));
  const daemon = opts.unlock
    ? 'echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null'
    : 'gnome-keyring-daemon --start --components=secrets >/dev/null';
  // The session lasts while `cat` reads stdin: closing it ends the bus, and the keyring daemon with it.
  const script = `${daemon} && echo "$DBUS_SESSION_BUS_ADDRESS" && exec cat >/dev/null`;
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home };
  const child: ChildProcessWithoutNullStreams = spawn('dbus-run-session', ['--', 'sh', '-c', script], { env: baseEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const address = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the D-Bus session ended (${code}) before it started: ${stderr}`)));
  });
  const env = { ...baseEnv, DBUS_SESSION_BUS_ADDRESS: address };
  return {
    env,
    lookup(account) {
      const r = spawnSync('secret-tool', ['lookup', 'service', 'vidpub', 'username', account], { env, encoding: 'utf8', timeout: 10_000 });
      return r.status === 0 && r.stdout !== '' ? r.stdout : undefined;
    },
    accounts() {
      const r = spawnSync('secret-tool', ['search', '--all', 'service', 'vidpub'], { env, encoding: 'utf8', timeout: 10_000 });
      return [...`${r.stdout}${r.stderr}`.matchAll(/^attribute\.username = (.*)$/gm)].map((m) => m[1]!).sort();
    },
    store(account, secret) {
      const r = spawnSync('secret-tool', ['store', '--label', `vidpub ${account}`, 'service', 'vidpub', 'username', account], { env, input: secret, encoding: 'utf8', timeout: 10_000 });
      if (r.status !== 0) throw new Error(`secret-tool store failed: ${r.stderr}`);
    },
    async unlock() {
      const r = spawnSync('gnome-keyring-daemon', ['--replace', '--unlock', '--components=secrets'], { env, input: 'test-password', encoding: 'utf8', timeout: 10_000 });
      if (r.status !== 0) throw new Error(`could not unlock the keyring: ${r.stderr}`);
      const locked = () =>
        spawnSync(
          'dbus-send',
          ['--session', '--dest=org.freedesktop.secrets', '--print-reply', '/org/freedesktop/secrets/collection/login', 'org.freedesktop.DBus.Properties.Get', 'string:org.freedesktop.Secret.Collection', 'string:Locked'],
          { env, encoding: 'utf8', timeout: 10_000 },
        ).stdout;
      await waitFor(locked, (out) => /boolean false/.test(out), 20_000);
    },
    lock() {
      const r = spawnSync(
        'dbus-send',
        ['--session', '--dest=org.freedesktop.secrets', '--print-reply', '/org/freedesktop/secrets', 'org.freedesktop.Secret.Service.Lock', 'array:objpath:/org/freedesktop/secrets/collection/login'],
        { env, encoding: 'utf8', timeout: 10_000 },
      );
      if (r.status !== 0) throw new Error(`could not lock the keyring: ${r.stderr}`);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

/** `start()`'s service for the tests of the describe block this is called in: started before them, stopped after them. */
function useStarted<T extends { stop(): Promise<void> }>(start: () => Promise<T>): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(() => started?.stop());
  return () => {
    if (!started) throw new Error('the Secret Service is not started yet: use it inside tests and hooks');
    return started;
  };
}

/** A Secret Service (startSecretService) for the describe block's tests. */
export function useSecretService(opts: { unlock: boolean }): SecretService {
  const ss = useStarted(() => startSecretService(opts));
  return {
    get env() {
      return ss().env;
    },
    lookup: (account) => ss().lookup(account),
    accounts: () => ss().accounts(),
    store: (account, secret) => ss().store(account, secret),
    lock: () => ss().lock(),
    unlock: () => ss().unlock(),
    stop: () => ss().stop(),
  };
}

/**
 * A D-Bus address nobody answers on: a Unix socket that accepts connections
 * and never says a word (a hung session bus), or, with `listen: false`, a path
 * where nothing listens.
 */
export async function silentBus(listen: boolean): Promise<{ address: string; close(): Promise<void> }> {
  const path = join(mkdtempSync(join(tmpdir(), 'vidpub-bus-')), 'bus');
  if (!listen) return { address: `unix:path=${path}`, close: async () => {} };
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(path, r));
  return {
    address: `unix:path=${path}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** One D-Bus method call to the bus itself (little-endian), with a body of strings ('s') and uint32s ('u'). */
function busCall(serial: number, member: string, signature = '', args: (string | number)[] = []): Buffer {
  const parts: Buffer[] = [];
  let len = 0;
  const pad = (to: number) => {
    const n = (to - (len % to)) % to;
    if (n > 0) push(Buffer.alloc(n));
  };
  const push = (b: Buffer) => {
    parts.push(b);
    len += b.length;
  };
  const u32 = (v: number) => {
    pad(4);
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    push(b);
  };
  const str = (v: string) => {
    u32(Buffer.byteLength(v));
    push(Buffer.from(v + '\0'));
  };
  const sig = (v: string) => push(Buffer.concat([Buffer.from([v.length]), Buffer.from(v + '\0')]));
  // The body first, to know its length.
  for (const [i, a] of args.entries()) (signature[i] === 's' ? str : u32)(a as never);
  const body = Buffer.concat(parts);
  parts.length = 0;
  len = 0;
  push(Buffer.from(['l'.charCodeAt(0), 1, 0, 1]));
  u32(body.length);
  u32(serial);
  // The header fields, a(yv): each struct on 8 bytes.
  const fields: [number, string, string][] = [
    [1, 'o', '/org/freedesktop/DBus'],
    [2, 's', 'org.freedesktop.DBus'],
    [3, 's', member],
    [6, 's', 'org.freedesktop.DBus'],
    ...(signature ? ([[8, 'g', signature]] as [number, string, string][]) : []),
  ];
  const arrayLenAt = len;
  u32(0);
  pad(8);
  const arrayStart = len;
  for (const [code, type, value] of fields) {
    pad(8);
    push(Buffer.from([code]));
    sig(type);
    if (type === 'g') sig(value);
    else str(value);
  }
  const header = Buffer.concat(parts);
  header.writeUInt32LE(len - arrayStart, arrayLenAt);
  const padded = Buffer.concat([header, Buffer.alloc((8 - (header.length % 8)) % 8)]);
  return Buffer.concat([padded, body]);
}

/**
 * A Secret Service that accepts and never answers: a private session bus
 * (dbus-run-session) on which this process owns org.freedesktop.secrets
 * (a D-Bus client of a few lines: AUTH EXTERNAL, Hello, RequestName) and
 * reads every call made to it without ever replying, as a hung keyring
 * daemon does.
 */
export interface SilentSecretService {
  env: Record<string, string>;
  /** Bytes of the calls made to the service since it claimed its name (none of them answered). */
  calls(): number;
  /** When the first call reached it at or after `ms` (Date.now()). */
  firstCallAfter(ms: number): number | undefined;
  stop(): Promise<void>;
}

/** A silent Secret Service (startSilentSecretService) for the describe block's tests. */
export function useSilentSecretService(): SilentSecretService {
  const ss = useStarted(startSilentSecretService);
  return {
    get env() {
      return ss().env;
    },
    calls: () => ss().calls(),
    firstCallAfter: (ms) => ss().firstCallAfter(ms),
    stop: () => ss().stop(),
  };
}

export async function startSilentSecretService(): Promise<SilentSecretService> {
  if (!runs('dbus-run-session', null) || !runs('dbus-send', null)) throw new Error('the silent Secret Service needs dbus-run-session and dbus-send (.ci/run installs them)');
  const home = mkdtempSync(join(tmpdir(), 'vidpub-silent-keyring-'));
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_RUNTIME_DIR: home };
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', 'echo "$DBUS_SESSION_BUS_ADDRESS" && exec cat >/dev/null'], { env: baseEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  const address = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the D-Bus session ended (${code}) before it started`)));
  });
  const m = /unix:(path|abstract)=([^,;]+)/.exec(address);
  if (!m) throw new Error(`a D-Bus address this test cannot reach: ${address}`);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s: Socket = connect(m[1] === 'abstract' ? `\0${m[2]}` : m[2]!, () => resolve(s));
    s.once('error', reject);
  });
  let received = 0;
  const arrivals: number[] = [];
  socket.on('data', (d: Buffer) => {
    received += d.length;
    arrivals.push(Date.now());
  });
  socket.on('error', () => {});
  const uid = Buffer.from(String(process.getuid?.() ?? 0)).toString('hex');
  socket.write(`\0AUTH EXTERNAL ${uid}\r\n`);
  await new Promise<void>((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString('latin1');
      if (text.includes('\r\n')) {
        socket.off('data', onData);
        if (text.startsWith('OK')) resolve();
        else reject(new Error(`the bus refused the test's client: ${text}`));
      }
    };
    socket.on('data', onData);
  });
  socket.write('BEGIN\r\n');
  socket.write(busCall(1, 'Hello'));
  // DBUS_NAME_FLAG_DO_NOT_QUEUE: owned now, or refused.
  socket.write(busCall(2, 'RequestName', 'su', ['org.freedesktop.secrets', 4]));
  const env = { ...baseEnv, DBUS_SESSION_BUS_ADDRESS: address };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], { env, encoding: 'utf8', timeout: 5000 });
    if (/boolean true/.test(r.stdout)) break;
    if (Date.now() > deadline) throw new Error(`org.freedesktop.secrets never got its owner: ${r.stdout}${r.stderr}`);
    await new Promise((r2) => setTimeout(r2, 50));
  }
  const afterClaim = received;
  return {
    env,
    calls: () => received - afterClaim,
    firstCallAfter: (ms) => arrivals.find((t) => t >= ms),
    async stop() {
      socket.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

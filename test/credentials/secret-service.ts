/**
 * A real Secret Service for the keychain tests: a private D-Bus session
 * (dbus-run-session) with gnome-keyring-daemon in it, its keyrings in a temp
 * HOME, unlocked with a password or not. The CLI runs as a child process with
 * the session's DBUS_SESSION_BUS_ADDRESS; secret-tool (libsecret-tools) reads
 * what it stored. .ci/run installs the three Debian packages; in CI a missing
 * tool fails the tests.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runs } from '../support/tools.js';
import { waitFor } from '../support/poll.js';

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

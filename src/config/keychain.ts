/**
 * The operating system's credential store (the macOS Keychain, Windows
 * Credential Manager, the Secret Service on Linux desktops) through
 * @napi-rs/keyring, the maintained successor of keytar: prebuilt binaries in
 * its npm packages, no dependency of its own.
 *
 * Each call runs in a child Node process that loads the binding, does its
 * operations and answers on stdout, killed when it has not answered within
 * KEYCHAIN_TIMEOUT_MS (3 s, as gh waits) of being ready to ask the store (a
 * line on its stdout: on a busy machine a Node process's start alone can take
 * seconds, and the store cannot be blamed for it). The binding's calls are synchronous
 * and, on Linux, talk D-Bus: a session bus that accepts a connection and never
 * answers blocks the calling thread (the event loop too: the binding's
 * asynchronous entry connects before it hands the work to a thread). Only a
 * process of its own can be stopped in the middle of that. The key travels on
 * the child's stdin, never in its arguments (ps shows those).
 *
 * On Linux the Secret Service is required: the binding would otherwise fall
 * back to the kernel keyring, which forgets everything at reboot. Where there
 * is no D-Bus session at all (a container, a CI runner, ssh without a session)
 * no child is started. VIDPUB_NO_KEYRING=1 turns the OS store off.
 */
import { existsSync } from 'node:fs';
import { platform } from 'node:os';
import nodeProcess, { execPath } from 'node:process';
import { join } from 'node:path';
import { InterruptedError, TimeoutError, isDeadline, sanitize, type DeadlineReached } from '../errors.js';
import { clockTimeout, realClock, type Clock } from '../core/clock.js';
import { formatDuration } from '../time/duration.js';
import { childEnv } from '../util/child-env.js';
import { truthy } from '../util/env.js';
import { nodeChildProcess, nodeModule, nodeSea } from '../util/lazy-builtins.js';
import { keychainName } from './key-storage.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How long the OS store has to answer one call, from when the helper is ready to ask it. */
export const KEYCHAIN_TIMEOUT_MS = 3000;

/** How long the helper has to start (Node and the binding loaded, the operations read) before it asks. */
export const KEYCHAIN_START_MS = 20_000;

/** The service name the keys are filed under. */
export const KEYCHAIN_SERVICE = 'vidpub';

/** The store did not answer, or refused: why, in words (never the key). */
export class KeychainUnavailable extends Error {}

/** One operation on one account's entry. */
export type KeychainOp = { op: 'get'; account: string } | { op: 'set'; account: string; secret: string } | { op: 'delete'; account: string };

/** What one operation of a batch answered: its value (get: the secret or null; delete: whether there was one), or why it failed. */
export type KeychainAnswer = { ok: true; value: unknown } | { ok: false; error: string };

// CommonJS, run with `node -e`: argv[1] is the binding's path, the operations come on stdin, each answered in
// order. A line on stdout first says it is about to ask the store (written at once: the binding's calls then hold
// the thread); the answer, JSON, follows it.
const CHILD = `
const { Entry } = require(process.argv[1]);
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  let out;
  try {
    const r = JSON.parse(input);
    require('node:fs').writeSync(1, '\\n');
    out = r.ops.map((o) => {
      try {
        const e = new Entry(r.service, o.account, { linux: { store: 'secret-service' } });
        if (o.op === 'get') return { ok: true, value: e.getPassword() };
        if (o.op === 'set') { e.setPassword(o.secret); return { ok: true }; }
        return { ok: true, value: e.deletePassword() };
      } catch (err) {
        return { ok: false, error: String((err && err.message) || err) };
      }
    });
  } catch (err) {
    out = { ok: false, error: String((err && err.message) || err) };
  }
  process.stdout.write(JSON.stringify(out));
});
`;

/** VIDPUB_NO_KEYRING=1: the OS store is turned off on this machine. */
export function keyringTurnedOff(env: Env): boolean {
  return truthy(env.VIDPUB_NO_KEYRING);
}

/** Why the OS store cannot be used here without asking it, or undefined. */
export function keychainOff(env: Env): string | undefined {
  if (keyringTurnedOff(env)) return 'VIDPUB_NO_KEYRING is set';
  if (platform() !== 'linux' && platform() !== 'freebsd') return undefined;
  if (env.DBUS_SESSION_BUS_ADDRESS?.trim()) return undefined;
  const runtime = env.XDG_RUNTIME_DIR?.trim();
  if (runtime && existsSync(join(runtime, 'bus'))) return undefined; // libdbus finds the bus there
  return 'no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set';
}

function bindingPath(): string {
  // The single executable runs itself for `node -e` and has no node_modules to load the binding from.
  if (nodeSea().isSea()) throw new KeychainUnavailable('the single executable of vidpub has no keychain module; the npm package has');
  try {
    return nodeModule().createRequire(import.meta.url).resolve('@napi-rs/keyring');
  } catch {
    throw new KeychainUnavailable('the keychain module (@napi-rs/keyring) is not installed with this vidpub');
  }
}

/** The first line of the binding's error, bounded: it names the D-Bus or OS failure. */
function reason(text: string): string {
  const line = sanitize(text.split('\n')[0] ?? '').trim();
  return (line.length > 200 ? `${line.slice(0, 200)}…` : line) || 'it failed without saying why';
}

/** What ends a call before its own KEYCHAIN_TIMEOUT_MS: the command's --timeout (from the call's start) and Ctrl-C or a signal. */
export interface KeychainWait {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The clock the call's timers run on (the command's; real timers when none). */
  clock?: Pick<Clock, 'sleep'>;
}

/** The command's --timeout reached while the store had not answered (exit 7). */
function late(ms: number | undefined): TimeoutError {
  return new TimeoutError(`Stopped: ${keychainName()} did not answer within the --timeout of the command${ms === undefined ? '' : ` (${formatDuration(ms)})`}; nothing was sent.`, {
    hint: 'Unlock the keyring (or start a desktop session), or give a longer --timeout; or set VIDPUB_API_KEY.',
  });
}

/** Why a call ended when `signal` aborted: a signal bound to the command's deadline (login's) as the deadline, else Ctrl-C or a signal. */
function aborted(signal: AbortSignal): Error {
  if (isDeadline(signal)) return late((signal.reason as DeadlineReached).timeoutMs);
  return new InterruptedError(`Interrupted while reading ${keychainName()}; nothing was sent.`);
}

/** The helpers running now: killed when this process exits, so that none is left blocked on a bus that never answers. */
const running = new Set<{ kill(signal: NodeJS.Signals): boolean }>();
let exitHook = false;

/**
 * Runs operations in one child process, in order; answers each. Rejects with KeychainUnavailable
 * when the store cannot be reached at all or does not answer within KEYCHAIN_TIMEOUT_MS (then none
 * of the answers is known), with TimeoutError (exit 7) at the command's --timeout when that comes
 * first, and with InterruptedError on Ctrl-C or a signal: the child is killed in every case.
 */
function call(env: Env, ops: readonly KeychainOp[], wait: KeychainWait = {}): Promise<KeychainAnswer[]> {
  const off = keychainOff(env);
  if (off) return Promise.reject(new KeychainUnavailable(off));
  let path: string;
  try {
    path = bindingPath();
  } catch (err) {
    return Promise.reject(err);
  }
  if (wait.signal?.aborted) return Promise.reject(aborted(wait.signal));
  return new Promise((resolve, reject) => {
    const child = nodeChildProcess().spawn(execPath, ['-e', CHILD, path], { env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    running.add(child);
    if (!exitHook) {
      exitHook = true;
      nodeProcess.once('exit', () => {
        for (const c of running) c.kill('SIGKILL');
      });
    }
    let out = '';
    let err = '';
    let settled = false;
    const stop = (why: Error) => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      done();
      reject(why);
    };
    // The call's timers, on the command's clock, all ended with the call: the command's --timeout from the call's
    // start; the helper's start; then the store's own KEYCHAIN_TIMEOUT_MS, from the helper's line saying it asks.
    const timers: { clear(): void }[] = [];
    const after = (ms: number, then: () => void): { clear(): void } => {
      const timer = clockTimeout(wait.clock ?? realClock, ms, then);
      timers.push(timer);
      return timer;
    };
    if (wait.timeoutMs !== undefined) after(wait.timeoutMs, () => stop(late(wait.timeoutMs)));
    let starting: { clear(): void } | undefined = after(KEYCHAIN_START_MS, () =>
      stop(new KeychainUnavailable(`the keychain helper did not start within ${KEYCHAIN_START_MS / 1000} s (is the machine very busy?)`)),
    );
    const onAbort = () => stop(aborted(wait.signal!));
    wait.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      for (const timer of timers) timer.clear();
      running.delete(child);
      wait.signal?.removeEventListener('abort', onAbort);
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!starting || settled) return;
      starting.clear();
      starting = undefined;
      after(KEYCHAIN_TIMEOUT_MS, () => stop(new KeychainUnavailable(`${keychainName()} did not answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s`)));
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (e) => {
      done();
      stop(new KeychainUnavailable(`the keychain helper could not start (${reason(e.message)})`));
    });
    child.on('close', () => {
      done();
      if (settled) return;
      settled = true;
      let answer: unknown;
      try {
        answer = JSON.parse(out);
      } catch {
        return reject(new KeychainUnavailable(`the keychain helper failed (${reason(err)})`));
      }
      if (!Array.isArray(answer) || answer.length !== ops.length) {
        return reject(new KeychainUnavailable(reason((answer as { error?: string } | null)?.error ?? 'the keychain helper answered nothing')));
      }
      resolve((answer as { ok?: boolean; value?: unknown; error?: string }[]).map((a) => (a?.ok ? { ok: true, value: a.value } : { ok: false, error: reason(a?.error ?? '') })));
    });
    child.stdin.on('error', () => {}); // a child that died early: its close says why
    child.stdin.end(JSON.stringify({ service: KEYCHAIN_SERVICE, ops }));
  });
}

/** The answer of one operation, or KeychainUnavailable saying why it failed. */
function one(answer: KeychainAnswer | undefined): unknown {
  if (!answer) throw new KeychainUnavailable('the keychain helper answered nothing');
  if (!answer.ok) throw new KeychainUnavailable(answer.error);
  return answer.value;
}

/** The OS store. Every call may reject with KeychainUnavailable (and, given a wait, TimeoutError or InterruptedError). */
export const keychain = {
  async get(env: Env, account: string, wait?: KeychainWait): Promise<string | undefined> {
    const v = one((await call(env, [{ op: 'get', account }], wait))[0]);
    return typeof v === 'string' && v !== '' ? v : undefined;
  },
  async set(env: Env, account: string, secret: string, wait?: KeychainWait): Promise<void> {
    one((await call(env, [{ op: 'set', account, secret }], wait))[0]);
  },
  async delete(env: Env, account: string, wait?: KeychainWait): Promise<boolean> {
    return one((await call(env, [{ op: 'delete', account }], wait))[0]) === true;
  },
  /** Several operations in one child process (one start-up, one timeout), each answered. */
  batch: call,
};

/** The secret a get answered, or undefined (none, or the operation failed). */
export function secretOf(answer: KeychainAnswer | undefined): string | undefined {
  return answer?.ok && typeof answer.value === 'string' && answer.value !== '' ? answer.value : undefined;
}

import type { Readable, Writable } from 'node:stream';
import type { ApiClient, ClientSettings } from '../api/client.js';

/** The streams a command talks through, with what they are connected to. */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width when stderr or stdout is a TTY. */
  columns?: number;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with an AbortError-like error when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

/**
 * Everything that asks a person something. The real one is @inquirer/prompts,
 * loaded lazily; tests inject a scripted one.
 */
export interface Prompter {
  password(opts: { message: string; mask?: string }): Promise<string>;
  select<T>(opts: { message: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  confirm(opts: { message: string; default?: boolean }): Promise<boolean>;
  input(opts: { message: string; default?: string }): Promise<string>;
}

/** One stored profile: what `vidpub login` keeps. */
export interface Profile {
  api_key?: string;
  base_url?: string;
  workspace?: string;
  logged_in_at?: string;
}

/** The config store (conf underneath, file 0600 in a 0700 directory). */
export interface ConfigStore {
  /** Absolute path of the config file. */
  readonly path: string;
  getProfile(name: string): Profile | undefined;
  setProfile(name: string, profile: Profile): void;
  deleteProfile(name: string): boolean;
  listProfiles(): string[];
}

export interface Context {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** Opens the config store lazily (it may throw a VidpubError for a corrupt file). */
  config(): Promise<ConfigStore>;
  prompter(): Promise<Prompter>;
  /** Builds an API client for this invocation (base URL, key, retries, debug). */
  createClient(settings: ClientSettings): Promise<ApiClient>;
  /** Aborted on SIGINT / SIGTERM (Ctrl-C). */
  signal: AbortSignal;
  cwd: string;
  version: string;
}

/** Sleep that honours an AbortSignal, on real timers. */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: realSleep,
};

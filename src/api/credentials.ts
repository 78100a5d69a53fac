/**
 * Where the client's base URL and key come from: flags, then the environment,
 * then the stored profile (read only when needed; its key in the file or the OS store); `http://` only on loopback;
 * a key file; the sentence for a key that cannot be a key.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { keyStorage } from '../config/key-storage.js';
import type { Profile } from '../config/profile-types.js';
import { clockTimeout, realClock, type Clock } from '../core/clock.js';
import { AuthError, DeadlineReached, InterruptedError, TimeoutError, UsageError, sanitize } from '../errors.js';
import { formatDuration } from '../time/duration.js';
import type { ClientSettings, KeySource } from './client.js';
import { redactUrl } from './send/debug.js';
import { keyCharacterError } from './send/http-errors.js';
import { shellWord } from '../util/shell.js';
import { isLoopbackHost } from '../contract/addresses.js';

/** The built-in default base URL (documented in docs/configuration.md). */
export const DEFAULT_BASE_URL = 'https://api.videopublishing.example/v1';

/** What credentials are read from: the environment, the working directory, a stored profile. */
export interface CredentialSources {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  readProfile(name: string): Promise<Profile | undefined>;
  /** The names of the stored profiles that hold a key, for the error when the profile in use has none. */
  profilesWithKeys?(): Promise<string[]>;
  /** Ends the wait for a key from a pipe (--api-key-file <(...)): Ctrl-C, SIGTERM. */
  signal?: AbortSignal;
  /** The clock the OS store's wait and a key pipe's --timeout run on (the command's; real timers when none). */
  clock?: Pick<Clock, 'sleep'>;
}

export type CredentialSettings = Pick<ClientSettings, 'profile' | 'baseUrl' | 'apiKeyFile' | 'apiKey' | 'caFile' | 'timeoutMs'>;

/**
 * Validates a base URL: https, or http on a loopback address only (an API key
 * must not cross a network in clear text). Returns it without a trailing slash.
 */
export function normalizeBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`invalid base URL "${sanitize(raw)}" (from ${source}): write it like https://api.example.com/v1`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid base URL "${redactUrl(sanitize(raw))}" (from ${source}): use https://`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing the http:// base URL ${redactUrl(url.href)} (from ${source}): the API key would travel unencrypted`, {
      hint: 'Use https://, or http:// only on this machine (localhost, 127.0.0.1, ::1) such as the emulator.',
    });
  }
  if (url.username || url.password) {
    throw new UsageError(`the base URL (from ${source}) must not contain a user name or password`);
  }
  if (url.search || url.hash) {
    throw new UsageError(`the base URL ${redactUrl(url.href)} (from ${source}) must not have a query string or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}

/** Where the base URL and key come from, in order; the profile is read only when needed. */
export async function resolveCredentials(
  src: CredentialSources,
  settings: CredentialSettings,
): Promise<{ baseUrl: string; baseUrlSource: string; apiKey?: string; keySource?: KeySource; profile?: Profile; caFile?: string; caFileSource?: string }> {
  let profile: Profile | undefined;
  let profileRead = false;
  const readProfile = async () => {
    if (!profileRead) {
      profileRead = true;
      profile = await src.readProfile(settings.profile);
    }
    return profile;
  };

  let baseUrl: string;
  let baseUrlSource: string;
  const envBase = src.env.VIDPUB_BASE_URL?.trim();
  if (settings.baseUrl !== undefined) {
    baseUrl = settings.baseUrl;
    baseUrlSource = '--base-url';
  } else if (envBase === '') {
    // Set but empty, as VIDPUB_API_KEY below: the real service in its place would hide a missing variable.
    throw new UsageError('VIDPUB_BASE_URL is set but empty, so there is no service to use (is a CI variable missing?)', {
      hint: 'Set VIDPUB_BASE_URL to the base URL, or unset it (unset VIDPUB_BASE_URL) to use the stored profile or the default.',
    });
  } else if (envBase) {
    baseUrl = envBase;
    baseUrlSource = 'VIDPUB_BASE_URL';
  } else if ((await readProfile())?.base_url) {
    baseUrl = profile!.base_url!;
    baseUrlSource = `profile "${settings.profile}"`;
  } else {
    baseUrl = DEFAULT_BASE_URL;
    baseUrlSource = 'the built-in default';
  }
  baseUrl = normalizeBaseUrl(baseUrl, baseUrlSource);

  let apiKey: string | undefined;
  let keySource: KeySource | undefined;
  if (settings.apiKey !== undefined) {
    apiKey = settings.apiKey.trim();
    keySource = 'settings';
  } else if (settings.apiKeyFile !== undefined) {
    apiKey = await readKeyFile(src.cwd, settings.apiKeyFile, { signal: src.signal, timeoutMs: settings.timeoutMs, clock: src.clock });
    keySource = '--api-key-file';
  } else if (src.env.VIDPUB_API_KEY !== undefined && src.env.VIDPUB_API_KEY.trim() === '') {
    // Set but empty: the usual sign of a CI secret that is missing. Using the stored profile instead would hide it.
    throw new AuthError('VIDPUB_API_KEY is set but empty, so there is no key to use (is a CI secret missing?)', {
      hint: 'Set VIDPUB_API_KEY to the key, or unset it (unset VIDPUB_API_KEY) to use the stored profile.',
    });
  } else if (src.env.VIDPUB_API_KEY?.trim()) {
    apiKey = src.env.VIDPUB_API_KEY.trim();
    keySource = 'VIDPUB_API_KEY';
  } else if (keyStorage(await readProfile())) {
    // The OS store's binding is loaded only here: a key from a flag, a file or the environment never pays for it.
    const { readStoredKey } = await import('../config/key-store.js');
    // Ended by the command's --timeout and by Ctrl-C or a signal, the keychain's helper killed with it.
    apiKey = (await readStoredKey(src.env, src.cwd, settings.profile, profile, { signal: src.signal, timeoutMs: settings.timeoutMs, clock: src.clock }))?.trim();
    keySource = 'profile';
  }
  if (apiKey !== undefined) checkKeyCharacters(apiKey, keySource!);
  // The profile's CA file only when the profile was read for the base URL or key: env giving both leaves the config file unread.
  const ca = caFileOf(src, settings, profileRead ? profile : undefined);
  return { baseUrl, baseUrlSource, apiKey, keySource, profile, ...ca };
}

/** The CA file to trust besides the system's: --ca-file, VIDPUB_CA_FILE, then the profile's (when read); none when unset. */
function caFileOf(src: CredentialSources, settings: CredentialSettings, profile: Profile | undefined): { caFile?: string; caFileSource?: string } {
  if (settings.caFile !== undefined) {
    if (settings.caFile.trim() === '') throw new UsageError('--ca-file is empty: give the path of a file of CA certificates (PEM)');
    return { caFile: settings.caFile, caFileSource: '--ca-file' };
  }
  const env = src.env.VIDPUB_CA_FILE?.trim();
  if (env) return { caFile: env, caFileSource: 'VIDPUB_CA_FILE' };
  const stored = profile?.ca_file;
  return stored ? { caFile: stored, caFileSource: `profile "${settings.profile}"` } : {};
}

/** The most bytes a key file may hold (a key is a few dozen). */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/**
 * Reads a key file (--api-key-file): trimmed; a missing or empty file, or one that
 * is not a regular file nor a pipe, is a usage error naming it. A pipe (`<(pass show
 * vidpub)`, /dev/stdin) is read until it ends or `signal` aborts (its reason thrown).
 */
export async function readKeyFile(cwd: string, file: string, wait: { signal?: AbortSignal; timeoutMs?: number; clock?: Pick<Clock, 'sleep'> } = {}): Promise<string> {
  const path = isAbsolute(file) ? file : resolvePath(cwd, file);
  const { NotRegularFileError, readUserFile, unreadableFile } = await import('../util/user-file.js');
  const deadline = new AbortController();
  // The --timeout on the command's clock (real timers when none), as every other wait of the command.
  const timer = wait.timeoutMs === undefined ? undefined : clockTimeout(wait.clock ?? realClock, wait.timeoutMs, () => deadline.abort(new DeadlineReached(wait.timeoutMs)));
  const signal = wait.signal ? AbortSignal.any([wait.signal, deadline.signal]) : deadline.signal;
  let text: string;
  try {
    text = (await readUserFile(path, { pipes: true, signal, maxBytes: MAX_KEY_FILE_BYTES, inspect: refuseBigKeyFile })).toString('utf8');
  } catch (err) {
    if (signal.aborted) throw keyWaitStopped(path, signal.reason);
    const what = `the API key file ${unreadableFile(sanitize(path), err)}${err instanceof NotRegularFileError ? ' nor a pipe' : ''}`;
    throw new UsageError(what, { hint: 'Give --api-key-file a file that holds only the key (or a pipe that gives it, as <(pass show vidpub)).' });
  } finally {
    timer?.clear();
  }
  const key = text.trim();
  if (!key) throw new UsageError(`the API key file ${sanitize(path)} is empty`);
  return key;
}

function refuseBigKeyFile(st: { size: number }): void {
  if (st.size > MAX_KEY_FILE_BYTES) throw Object.assign(new Error('too big for a key file'), { code: 'EFBIG' });
}

/** The wait for a key from a pipe ended by the command's --timeout (exit 7) or by a signal. */
function keyWaitStopped(path: string, reason: unknown): Error {
  if (reason instanceof DeadlineReached) {
    return new TimeoutError(`Stopped: the API key file ${sanitize(path)} gave no key within the --timeout of the command (${formatDuration(reason.timeoutMs ?? 0)}); nothing was sent.`, {
      hint: 'It is a pipe: whatever writes to it must write the key and close it.',
    });
  }
  return new InterruptedError(`Interrupted while waiting for the API key from ${sanitize(path)}; nothing was sent.`);
}

function checkKeyCharacters(key: string, source: string): void {
  // A header value cannot hold spaces or control characters; saying which beats the HTTP library's error.
  const err = keyCharacterError(key, `The API key from ${source}`);
  if (err) throw err;
}

/**
 * `vidpub login`, for the profile in use (a plain login would store the key in another one), and
 * the --base-url given (a plain login would send the key to the default service).
 */
function loginCommand(profile: string, baseUrl?: string): string {
  const words = ['vidpub login', ...(profile === 'default' ? [] : [`--profile ${shellWord(profile)}`]), ...(baseUrl ? [`--base-url ${shellWord(sanitize(redactUrl(baseUrl)))}`] : [])];
  return `"${words.join(' ')}"`;
}

/** No key anywhere; `others`: the stored profiles that hold a key (named in the hint, as logout names the stored profiles). */
export function noKeyError(profile: string, others: readonly string[] = []): AuthError {
  const names = others.filter((n) => n !== profile).map((n) => `"${sanitize(n)}"`);
  const elsewhere = names.length === 0 ? '' : ` ${names.length === 1 ? 'Profile' : 'Profiles'} ${names.join(', ')} ${names.length === 1 ? 'holds a key' : 'hold keys'}: choose one with --profile NAME.`;
  return new AuthError('No API key: none was given and none is stored' + (profile === 'default' ? '.' : ` in profile "${sanitize(profile)}".`), {
    hint: `Run ${loginCommand(profile)} to store one, or set VIDPUB_API_KEY (or pass --api-key-file PATH).${elsewhere}`,
  });
}

/** Where the key in use came from, for the hint after it is refused. */
export interface KeyOrigin {
  source?: KeySource;
  profile: string;
  /** The --api-key-file path as given. */
  file?: string;
  /** The --base-url as given: a login the hint suggests repeats it. */
  baseUrl?: string;
}

/**
 * A refused key (401) or a read-only key writing (403), with the hint pointing
 * where a new key must go: the variable or file it came from (a login would not
 * be used), or a login to the profile in use. Other errors are returned as they are.
 */
export function withKeyHint(err: AuthError, origin: KeyOrigin): AuthError {
  const code = err.http?.code;
  const what = code === 'revoked_key' ? 'new' : code === 'read_only_key' ? 'read_write' : err.http?.status === 401 ? 'valid' : undefined;
  if (!what || origin.source === undefined) return err;
  const create = what === 'new' ? 'Create a new key in the web app (API settings)' : 'Create a key with read and write access in the web app (API settings)';
  let hint: string;
  if (origin.source === 'VIDPUB_API_KEY') {
    const wins = '(it wins over any key "vidpub login" stores)';
    hint = what === 'valid' ? `Set VIDPUB_API_KEY to a valid key ${wins}.` : `${create}, then set VIDPUB_API_KEY to it ${wins}.`;
  } else if (origin.source === '--api-key-file') {
    const file = sanitize(origin.file ?? 'the file');
    hint = what === 'valid' ? `Put a valid key in ${file} (the --api-key-file).` : `${create}, then put it in ${file} (the --api-key-file).`;
  } else {
    const login = loginCommand(origin.profile, origin.baseUrl);
    hint = what === 'valid' ? `Run ${login} with a valid key, or set VIDPUB_API_KEY.` : `${create}, then run ${login}.`;
  }
  return new AuthError(err.message, { http: err.http, hint, cause: err.cause, data: err.data });
}

/**
 * Where the client's base URL and key come from: flags, then the environment,
 * then the stored profile (read only when needed); `http://` only on loopback;
 * a key file; the sentence for a key that cannot be a key.
 */
// fs.promises, not node:fs/promises: it loads (~1.7 ms of CPU) only when a key file is read.
import { promises as fsp } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Profile } from '../config/profile-types.js';
import { AuthError, UsageError, sanitize } from '../errors.js';
import type { ClientSettings, KeySource } from './client.js';
import { redactUrl } from './debug.js';
import { keyCharacterError } from './http-errors.js';
import { shellWord } from '../util/shell.js';

/** The built-in default base URL (documented in the README). */
export const DEFAULT_BASE_URL = 'https://api.videopublishing.example/v1';

/** What credentials are read from: the environment, the working directory, a stored profile. */
export interface CredentialSources {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  readProfile(name: string): Promise<Profile | undefined>;
}

export type CredentialSettings = Pick<ClientSettings, 'profile' | 'baseUrl' | 'apiKeyFile' | 'apiKey'>;

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(h) || h.endsWith('.localhost')) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

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
): Promise<{ baseUrl: string; baseUrlSource: string; apiKey?: string; keySource?: KeySource; profile?: Profile }> {
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
    apiKey = await readKeyFile(src.cwd, settings.apiKeyFile);
    keySource = '--api-key-file';
  } else if (src.env.VIDPUB_API_KEY !== undefined && src.env.VIDPUB_API_KEY.trim() === '') {
    // Set but empty: the usual sign of a CI secret that is missing. Using the stored profile instead would hide it.
    throw new AuthError('VIDPUB_API_KEY is set but empty, so there is no key to use (is a CI secret missing?)', {
      hint: 'Set VIDPUB_API_KEY to the key, or unset it (unset VIDPUB_API_KEY) to use the stored profile.',
    });
  } else if (src.env.VIDPUB_API_KEY?.trim()) {
    apiKey = src.env.VIDPUB_API_KEY.trim();
    keySource = 'VIDPUB_API_KEY';
  } else if ((await readProfile())?.api_key) {
    apiKey = profile!.api_key!.trim();
    keySource = 'profile';
  }
  if (apiKey !== undefined) checkKeyCharacters(apiKey, keySource!);
  return { baseUrl, baseUrlSource, apiKey, keySource, profile };
}

/** Reads a key file (--api-key-file): trimmed; a missing or empty file is a usage error naming it. */
export async function readKeyFile(cwd: string, file: string): Promise<string> {
  const path = isAbsolute(file) ? file : resolvePath(cwd, file);
  let text: string;
  try {
    text = await fsp.readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the API key file ${sanitize(path)}${code ? ` (${code})` : ''}`, {
      hint: 'Give --api-key-file a file that holds only the key.',
    });
  }
  const key = text.trim();
  if (!key) throw new UsageError(`the API key file ${sanitize(path)} is empty`);
  return key;
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

export function noKeyError(profile: string): AuthError {
  return new AuthError('No API key: none was given and none is stored' + (profile === 'default' ? '.' : ` in profile "${profile}".`), {
    hint: `Run ${loginCommand(profile)} to store one, or set VIDPUB_API_KEY (or pass --api-key-file PATH).`,
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

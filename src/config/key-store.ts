/**
 * The credential store: where a profile's API key lives, behind one interface
 * with two backends, the operating system's store (keychain.ts) and the config
 * file (config-store.ts, mode 0600), the fallback.
 *
 * config.json says which. A profile whose key is in the OS store holds
 * `key_storage: "keychain"` and the key masked (`key_masked`, for `vidpub
 * profiles`), never the key; the key is filed under the service "vidpub" and
 * the account `<profile>@<path of config.json>`, so that two config
 * directories never share a key. A profile with `api_key` (the layout of
 * earlier versions, and the fallback) has the key in the file.
 *
 * Login tries the OS store first (unless told not to) and falls back to the
 * file, saying why; logging in again moves a key from one to the other.
 * Logout removes the key from wherever it is.
 */
import { join } from 'node:path';
import type { ConfigStore, Profile } from './profile-types.js';
import { keyStorage, keychainName, maskStoredKey, type KeyStorage } from './key-storage.js';
import { AuthError, VidpubError, sanitize } from '../errors.js';
import { CONFIG_FILE_NAME, configDir } from './config-store.js';
import { KeychainUnavailable, keychain, keyringTurnedOff, type KeychainWait } from './keychain.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The account the key of `profile` is filed under in the OS store. */
function account(configPath: string, profile: string): string {
  return `${profile}@${configPath}`;
}

/** What `saveKey` did: where the key went and, when it fell back to the file, why. */
export interface SavedKey {
  storage: KeyStorage;
  /** Why the OS store was not used (it did not answer, refused, or is turned off); absent when chosen. */
  fallback?: string;
}

export interface SaveOptions {
  /** --insecure-storage: the file, without asking the OS store (VIDPUB_NO_KEYRING does the same). */
  fileOnly?: boolean;
  /** Ends a wait for another process's lock on the file. */
  signal?: AbortSignal;
}

/**
 * Stores `key` for profile `name` with the profile's other fields: in the OS
 * store when it answers, else in the file. A copy left in the other store by
 * an earlier login is removed, so the key lives in one place.
 */
export async function saveKey(store: ConfigStore, env: Env, name: string, key: string, fields: Profile, opts: SaveOptions = {}): Promise<SavedKey> {
  const before = store.getProfile(name);
  const acct = account(store.path, name);
  const base: Profile = { ...fields, api_key: undefined, key_storage: undefined, key_masked: undefined };
  let fallback: string | undefined;
  // VIDPUB_NO_KEYRING, like --insecure-storage, is a choice: the file, without a word about the OS store.
  if (!opts.fileOnly && !keyringTurnedOff(env)) {
    try {
      await keychain.set(env, acct, key, { signal: opts.signal });
      await store.setProfile(name, { ...base, key_storage: 'keychain', key_masked: maskStoredKey(key) ?? undefined }, opts.signal);
      return { storage: 'keychain' };
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) throw err;
      fallback = err.message;
    }
  }
  await store.setProfile(name, { ...base, api_key: key }, opts.signal);
  if (keyStorage(before) === 'keychain') await keychain.delete(env, acct).catch(() => false); // moved to the file
  return { storage: 'file', fallback };
}

/** What `removeKey` did: whether a key was there, and where. */
export interface RemovedKey {
  removed: boolean;
  storage: KeyStorage | null;
}

/**
 * Removes profile `name`'s key from wherever it is; the base URL is kept for
 * the next login. An OS store that cannot be reached leaves everything as it
 * was and says so.
 */
export async function removeKey(store: ConfigStore, env: Env, name: string, signal?: AbortSignal): Promise<RemovedKey> {
  const profile = store.getProfile(name);
  const storage = keyStorage(profile);
  if (!storage) return { removed: false, storage };
  if (storage === 'keychain') {
    try {
      await keychain.delete(env, account(store.path, name), { signal });
    } catch (err) {
      if (!(err instanceof KeychainUnavailable)) throw err;
      throw new VidpubError(`Could not remove the key of profile "${sanitize(name)}" from ${keychainName()}: ${err.message}. Nothing was changed.`, {
        hint: 'Unlock the keyring (or start a desktop session) and run "vidpub logout" again.',
      });
    }
  }
  const rest = { base_url: profile?.base_url };
  if (rest.base_url) await store.setProfile(name, rest, signal);
  else await store.deleteProfile(name, signal);
  return { removed: true, storage };
}

const readKeys = new Map<string, Promise<string | undefined>>();

/**
 * The stored key of profile `name` (read from config.json as `profile`),
 * wherever it lives; undefined when there is none. Each OS store entry is read
 * once per process. An OS store that cannot be read is an AuthError saying why.
 */
export async function readStoredKey(env: Env, name: string, profile: Profile | undefined, wait?: KeychainWait): Promise<string | undefined> {
  if (keyStorage(profile) !== 'keychain') return profile?.api_key;
  const acct = account(join(configDir(env), CONFIG_FILE_NAME), name);
  let read = readKeys.get(acct);
  if (!read) readKeys.set(acct, (read = keychain.get(env, acct, wait)));
  const login = name === 'default' ? 'vidpub login' : `vidpub login --profile ${name}`;
  try {
    const key = await read;
    if (key === undefined) {
      throw new AuthError(`The key of profile "${sanitize(name)}" should be in ${keychainName()}, but it holds none (was it removed there?).`, {
        hint: `Run "${login}" to store a key again, or set VIDPUB_API_KEY.`,
      });
    }
    return key;
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    throw new AuthError(`The key of profile "${sanitize(name)}" is kept in ${keychainName()}, which could not be read: ${err.message}.`, {
      hint: `Unlock the keyring (or start a desktop session) and run the command again; or set VIDPUB_API_KEY, or run "${login} --insecure-storage" to keep the key in the config file.`,
    });
  }
}

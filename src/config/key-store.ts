/**
 * The credential store: where a profile's API key lives, behind one interface
 * with two backends, the operating system's store (keychain.ts) and the config
 * file (config-store.ts, mode 0600), the fallback.
 *
 * config.json says which. A profile whose key is in the OS store holds
 * `key_storage: "keychain"` and the key masked (`key_masked`, for `vidpub
 * profiles`), never the key; the key is filed under the service "vidpub" and
 * the account `<profile>@<canonical absolute path of config.json>` (links
 * followed, a relative VIDPUB_CONFIG_DIR made absolute: canonicalConfigPath),
 * so that two config directories never share an entry. A profile with
 * `api_key` (the layout of earlier versions, and the fallback) has the key in
 * the file.
 *
 * Earlier versions named the account after the path as spelled
 * (`default@.vidpub/config.json` for VIDPUB_CONFIG_DIR=.vidpub). Such an entry
 * is read when the new one is empty: when the spelled path was absolute it
 * named this file alone, so the key is moved to the new name (migrated on
 * use); a relative one is shared by every directory that spelled it so, and
 * its key is used (and copied to the new name, the old entry left for the
 * others) only when it is the key this profile stored (its masked form is the
 * profile's `key_masked`); otherwise the read fails saying so.
 *
 * Login stores under the lock on config.json (the store's updateProfile): a
 * login that cannot have the lock stores nothing anywhere. It tries the OS
 * store first (unless told not to) and falls back to the file, saying why;
 * a copy of an earlier key left in the OS store is removed, or, when the OS
 * store cannot be reached, recorded (`keychain_leftover`) and said. Logout
 * removes the key from every place it may be: the file, the entry, a recorded
 * leftover, and the entry of an earlier version.
 */
import { isAbsolute } from 'node:path';
import type { ConfigStore, Profile } from './profile-types.js';
import { keyStorage, keychainName, profileCommand, type KeyStorage } from './key-storage.js';
import { maskStoredKey } from '../util/key-mask.js';
import { AuthError, VidpubError, sanitize } from '../errors.js';
import { canonicalConfigPath, configFile } from './config-store.js';
import { KeychainUnavailable, keychain, keyringTurnedOff, secretOf, type KeychainAnswer, type KeychainOp, type KeychainWait } from './keychain.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The account the key of `profile` is filed under in the OS store: `<profile>@<canonical path of config.json>`. */
export function keychainAccount(location: string, profile: string): string {
  return `${profile}@${location}`;
}

/** The entry an earlier vidpub used for this profile, when it differs: named after the path as spelled; `shared` when that was relative. */
export interface LegacyEntry {
  account: string;
  shared: boolean;
}

/** The entries of profile `name` of a config file spelled `spelled` whose canonical path is `location`. */
export function entriesOf(spelled: string, location: string, name: string): { account: string; legacy?: LegacyEntry } {
  const account = keychainAccount(location, name);
  const old = keychainAccount(spelled, name);
  return { account, legacy: old === account ? undefined : { account: old, shared: !isAbsolute(spelled) } };
}

/** What `saveKey` did: where the key went and, when it fell back to the file, why. */
export interface SavedKey {
  storage: KeyStorage;
  /** Why the OS store was not used (it did not answer, refused, or is turned off); absent when chosen. */
  fallback?: string;
  /** An earlier key of the profile that stays in the OS store (it could not be reached to remove it): the entry and why. */
  left?: { account: string; reason: string };
}

export interface SaveOptions {
  /** --insecure-storage: the file, without asking the OS store (VIDPUB_NO_KEYRING does the same). */
  fileOnly?: boolean;
  /** Ends a wait for another process's lock on the file. */
  signal?: AbortSignal;
}

/** Runs a batch on the OS store; `undefined` answers (and the reason) when it cannot be reached. */
async function tryBatch(env: Env, ops: KeychainOp[], signal?: AbortSignal): Promise<{ answers?: KeychainAnswer[]; reason?: string }> {
  if (ops.length === 0) return { answers: [] };
  try {
    return { answers: await keychain.batch(env, ops, { signal }) };
  } catch (err) {
    if (!(err instanceof KeychainUnavailable)) throw err;
    return { reason: err.message };
  }
}

const unique = (accounts: (string | undefined)[], except?: string): string[] => [...new Set(accounts.filter((a): a is string => a !== undefined && a !== except))];

/**
 * Stores `key` for profile `name` with the profile's other fields, under the
 * lock on the file: in the OS store when it answers, else in the file. A copy
 * left in the other store by an earlier login is removed, so the key lives in
 * one place; when the OS store cannot be reached to remove one, it is recorded
 * and returned in `left`.
 */
export async function saveKey(store: ConfigStore, env: Env, name: string, key: string, fields: Profile, opts: SaveOptions = {}): Promise<SavedKey> {
  const { account, legacy } = entriesOf(store.path, store.location(), name);
  const base: Profile = { ...fields, api_key: undefined, key_storage: undefined, key_masked: undefined, keychain_leftover: undefined };
  let stored: 'new' | 'replaced' | undefined;
  return store.updateProfile<SavedKey>(
    name,
    async (before) => {
      const oldEntry = legacy && !legacy.shared ? legacy.account : undefined;
      // Entries that hold an earlier key of this profile (known), and one that may (an earlier version's, not shared).
      const known = unique([...(keyStorage(before) === 'keychain' ? [account, oldEntry] : []), before?.keychain_leftover]);
      const stale = unique([...known, oldEntry], account);
      const answered = new Map<string, KeychainAnswer>();
      let unreachable: string | undefined;
      let fallback: string | undefined;
      // VIDPUB_NO_KEYRING, like --insecure-storage, is a choice: the file, without a word about the OS store.
      if (!opts.fileOnly && !keyringTurnedOff(env)) {
        const { answers, reason } = await tryBatch(env, [{ op: 'set', account, secret: key }, ...deleting(stale)], opts.signal);
        const set = answers?.[0];
        if (set?.ok) stored = keyStorage(before) === 'keychain' ? 'replaced' : 'new';
        if (set?.ok) return { profile: { ...base, key_storage: 'keychain', key_masked: maskStoredKey(key) ?? undefined }, result: { storage: 'keychain' } };
        stale.forEach((a, i) => answers?.[i + 1] && answered.set(a, answers[i + 1]!));
        unreachable = reason;
        fallback = reason ?? (set && !set.ok ? set.error : 'it did not answer');
      }
      // To the file. The OS store's copies of an earlier key go; one that cannot be removed is recorded and said.
      const todo = unreachable ? [] : unique([...known, oldEntry]).filter((a) => !answered.has(a));
      const { answers, reason } = await tryBatch(env, deleting(todo), opts.signal);
      todo.forEach((a, i) => answers?.[i] && answered.set(a, answers[i]!));
      let left: SavedKey['left'];
      for (const a of known) {
        const r = answered.get(a);
        if (!r?.ok) {
          left = { account: a, reason: unreachable ?? reason ?? (r && !r.ok ? r.error : 'it did not answer') };
          break;
        }
      }
      return { profile: { ...base, api_key: key, keychain_leftover: left?.account }, result: { storage: 'file', fallback, left } };
    },
    opts.signal,
  ).catch(async (err: unknown) => {
    // The file could not be written after the key went to the OS store: a new entry is taken back (a replaced one keeps the new key).
    if (stored === 'new') await keychain.delete(env, account).catch(() => false);
    throw err;
  });
}

const deleting = (accounts: string[]): KeychainOp[] => accounts.map((account) => ({ op: 'delete', account }));

/** What `removeKey` did: whether a key was there, and where. */
export interface RemovedKey {
  removed: boolean;
  storage: KeyStorage | null;
  /** An earlier copy of the key was also removed from the OS store (the key itself was in the file). */
  keychainCopy: boolean;
  /** Entries of the OS store left as they were, each with why (an earlier version's entry holding another key; one that could not be reached). */
  left: string[];
}

/**
 * Removes profile `name`'s key from every place it may be (the base URL is
 * kept for the next login): the file, its OS store entry, a recorded leftover
 * and an earlier version's entry (a shared one only when it holds this
 * profile's key). An OS store that cannot be reached while the key is kept
 * there leaves everything as it was and says so.
 */
export async function removeKey(store: ConfigStore, env: Env, name: string, signal?: AbortSignal): Promise<RemovedKey> {
  const { account, legacy } = entriesOf(store.path, store.location(), name);
  return store.updateProfile<RemovedKey>(
    name,
    async (profile) => {
      const storage = keyStorage(profile);
      const left: string[] = [];
      const mask = storage === 'keychain' ? profile?.key_masked : maskStoredKey(profile?.api_key);
      const deletes = unique([account, profile?.keychain_leftover, legacy && !legacy.shared ? legacy.account : undefined]);
      const ops = deleting(deletes);
      if (legacy?.shared) ops.push({ op: 'get', account: legacy.account });
      const { answers, reason } = await tryBatch(env, ops, signal);
      const refused = reason ?? (answers?.[0] && !answers[0].ok ? answers[0].error : undefined);
      if (storage === 'keychain' && refused !== undefined) {
        throw new VidpubError(`Could not remove the key of profile "${sanitize(name)}" from ${keychainName()}: ${refused}. Nothing was changed.`, {
          hint: `Unlock the keyring (or start a desktop session) and run "${profileCommand('logout', name)}" again.`,
        });
      }
      let fromKeychain = false;
      let leftover: string | undefined;
      if (!answers) {
        leftover = profile?.keychain_leftover;
        if (leftover !== undefined) left.push(`${keychainName()} could not be reached to remove the earlier key kept there under "${sanitize(leftover)}" (${reason})`);
      } else {
        deletes.forEach((a, i) => {
          const r = answers[i];
          if (r?.ok && r.value === true) fromKeychain = true;
          else if (r && !r.ok && a === profile?.keychain_leftover) {
            leftover = a;
            left.push(`${keychainName()} refused to remove the earlier key kept there under "${sanitize(a)}" (${r.error})`);
          }
        });
        if (legacy?.shared) {
          const held = secretOf(answers[deletes.length]);
          if (held !== undefined && mask !== undefined && maskStoredKey(held) === mask) {
            const [gone] = (await tryBatch(env, [{ op: 'delete', account: legacy.account }], signal)).answers ?? [];
            if (gone?.ok) fromKeychain = true;
            else left.push(`${keychainName()} could not remove the entry "${sanitize(legacy.account)}" of an earlier vidpub`);
          } else if (held !== undefined) {
            left.push(`the entry "${sanitize(legacy.account)}" of an earlier vidpub holds another key (another directory's with the same VIDPUB_CONFIG_DIR?) and was left as it was`);
          }
        }
      }
      const removed = storage !== null || fromKeychain;
      // A leftover the OS store could not remove stays recorded, for the next logout.
      const rest: Profile = { base_url: profile?.base_url, keychain_leftover: leftover };
      return {
        profile: profile ? (rest.base_url || rest.keychain_leftover ? rest : null) : undefined,
        result: { removed, storage: storage ?? (fromKeychain ? ('keychain' as const) : null), keychainCopy: fromKeychain && storage === 'file', left },
      };
    },
    signal,
  );
}

const readKeys = new Map<string, Promise<string | undefined>>();

/**
 * The stored key of profile `name` (read from config.json as `profile`) of a command run in `cwd`,
 * wherever it lives; undefined when there is none. Each OS store entry is read
 * once per process. An OS store that cannot be read is an AuthError saying why.
 */
export async function readStoredKey(env: Env, cwd: string, name: string, profile: Profile | undefined, wait?: KeychainWait): Promise<string | undefined> {
  if (keyStorage(profile) !== 'keychain') return profile?.api_key;
  const { spelled, path } = configFile(env, cwd);
  const { account, legacy } = entriesOf(spelled, canonicalConfigPath(path), name);
  let read = readKeys.get(account);
  if (!read) readKeys.set(account, (read = readEntry(env, account, legacy, profile?.key_masked, name, wait)));
  const login = profileCommand('login', name);
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

/** The key under `account`, else under the entry of an earlier version (migrated on use, as the file comment says). */
async function readEntry(env: Env, account: string, legacy: LegacyEntry | undefined, masked: string | undefined, name: string, wait?: KeychainWait): Promise<string | undefined> {
  const answers = await keychain.batch(env, [{ op: 'get', account }, ...(legacy ? [{ op: 'get', account: legacy.account } as const] : [])], wait);
  if (!answers[0]?.ok) throw new KeychainUnavailable((answers[0] as { error: string }).error);
  const key = secretOf(answers[0]);
  if (key !== undefined || !legacy) return key;
  const old = secretOf(answers[1]);
  if (old === undefined) return undefined;
  if (legacy.shared && (masked === undefined || maskStoredKey(old) !== masked)) {
    throw new AuthError(
      `The key of profile "${sanitize(name)}" is not in ${keychainName()} under this config directory's entry; the entry "${sanitize(legacy.account)}" of an earlier vidpub holds another key (${maskStoredKey(old)}), which any directory with the same relative VIDPUB_CONFIG_DIR may have stored, so it is not used.`,
      { hint: `Run "${profileCommand('login', name)}" to store this directory's key under its own entry, or set VIDPUB_API_KEY.` },
    );
  }
  // Moved to this directory's entry; a shared entry stays for the other directories that use it.
  await keychain.batch(env, [{ op: 'set', account, secret: old }, ...(legacy.shared ? [] : [{ op: 'delete', account: legacy.account } as const])], wait).catch(() => undefined);
  return old;
}

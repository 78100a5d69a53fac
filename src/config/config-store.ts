/**
 * The config store: profiles (API key, base URL, workspace) in one JSON file,
 * the key itself only when it is not in the OS store (key-store.ts),
 * `config.json` in the vidpub config directory:
 *
 *   VIDPUB_CONFIG_DIR, else $XDG_CONFIG_HOME/vidpub, else ~/.config/vidpub
 *   (%APPDATA%\vidpub on Windows)
 *
 * The directory is created 0700 and the file written 0600: it holds API keys.
 *
 * Writes (login, logout) are read-modify-write under a lock (src/util/file-lock.ts),
 * so two logins at the same instant keep both profiles: take the lock, read the
 * file as it is now, change one profile, write a temporary file (0600, flushed)
 * and rename it over config.json, release the lock. A reader therefore sees the
 * old file or the new one, never half of one. Reads take no lock.
 *
 * A corrupt file (truncated JSON, empty, a bare key, the wrong shape) is an
 * error naming the file — never quoting it (it may hold a key) — and is never
 * overwritten or cleared. A file without write permission (chmod 444) is not
 * replaced either: the mode is checked explicitly, because root could
 * otherwise write it anyway. A UTF-8 byte order mark (as some Windows editors
 * save) is accepted.
 *
 * Why not conf (the usual store for a CLI's settings, and the first one here):
 * it writes its file atomically but takes no lock between processes, so two
 * logins at the same instant each wrote the profiles they had read and one
 * profile was lost (in the first of the trials of four logins at the same
 * instant that test/client/config-store.test.ts runs). Loading it, with ajv, also
 * slowed each login and logout.
 */
import { isSettingKey } from './text-defaults.js';
import { chmodSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { ConfigStore, Profile } from './profile-types.js';
import type { Clock } from '../core/clock.js';
import { VidpubError, sanitize } from '../errors.js';
import { withFileLock, type LockPurpose } from '../util/file-lock.js';
import { xdgBase } from '../util/xdg.js';
import { NotRegularFileError, readUserFileSync, unreadableFile } from '../util/user-file.js';
import { writeFileAtomic } from '../util/atomic-write.js';

type Env = Readonly<Record<string, string | undefined>>;

export const CONFIG_FILE_NAME = 'config.json';
const PROFILE_FIELDS = ['api_key', 'key_storage', 'key_masked', 'keychain_leftover', 'base_url', 'ca_file', 'workspace', 'logged_in_at'] as const;

/** The shape of config.json. Unknown top-level keys are kept as they are. */
export interface ConfigFile {
  profiles?: Record<string, Profile>;
  [key: string]: unknown;
}

/** The config directory for this environment (see the file comment), as spelled: VIDPUB_CONFIG_DIR may be relative. */
export function configDir(env: Env): string {
  if (env.VIDPUB_CONFIG_DIR?.trim()) return env.VIDPUB_CONFIG_DIR.trim();
  const xdg = xdgBase(env.XDG_CONFIG_HOME);
  if (xdg) return join(xdg, 'vidpub');
  if (platform() === 'win32' && env.APPDATA) return join(env.APPDATA, 'vidpub');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.config', 'vidpub');
}

/**
 * Where config.json is for a command run in `cwd`: `spelled` as configDir
 * gives it (what messages show, and what an earlier vidpub named its OS store
 * entry after), `path` that made absolute. A relative VIDPUB_CONFIG_DIR is
 * read against `cwd`, the Context's working directory, never the process's
 * (one rule: a command run in-process, or by a caller with a cwd of its own,
 * finds the file the built bin run there finds).
 */
export function configFile(env: Env, cwd: string): { spelled: string; path: string } {
  const spelled = join(configDir(env), CONFIG_FILE_NAME);
  return { spelled, path: resolve(cwd, spelled) };
}

/**
 * The canonical absolute location of the config file at the absolute `path`
 * (configFile's): the file's real path when it exists (links
 * followed: two directories that share one file share its profiles), else its
 * directory's real path and its name, else the path as given. The OS
 * store files keys under it (key-store.ts), so that two config directories
 * never share an entry however VIDPUB_CONFIG_DIR spells them.
 */
export function canonicalConfigPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    // not there yet: its directory's
  }
  try {
    return join(realpathSync.native(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

function corrupt(path: string, what: string): VidpubError {
  return new VidpubError(`The config file ${sanitize(path)} ${what}.`, {
    hint: 'Fix it or move it away (vidpub never overwrites it), then run "vidpub login" again.',
  });
}

/** Reads and checks config.json; {} when it does not exist. Never quotes the file's content. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readUserFileSync(path).toString('utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    if (err instanceof NotRegularFileError) throw new VidpubError(`The config file ${unreadableFile(sanitize(path), err)}.`, { hint: 'Move it away; "vidpub login" makes a new one.' });
    throw new VidpubError(`The config file ${unreadableFile(sanitize(path), err)}.`, {
      hint: code === 'EACCES' ? 'Check the permissions of the file and its directory.' : undefined,
    });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte order mark
  if (text.trim() === '') throw corrupt(path, 'is empty');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the start of the file, which may be a key: not passed on.
    throw corrupt(path, 'is not valid JSON (it may have been cut short)');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw corrupt(path, 'does not hold a JSON object');
  const profiles = (data as ConfigFile).profiles;
  if (profiles !== undefined) {
    if (!profiles || typeof profiles !== 'object' || Array.isArray(profiles)) throw corrupt(path, 'has a "profiles" entry that is not an object');
    for (const [name, p] of Object.entries(profiles)) {
      if (!p || typeof p !== 'object' || Array.isArray(p)) throw corrupt(path, `has a profile "${sanitize(name)}" that is not an object`);
      for (const field of PROFILE_FIELDS) {
        const v = (p as Record<string, unknown>)[field];
        if (v !== undefined && typeof v !== 'string') throw corrupt(path, `has a profile "${sanitize(name)}" whose ${field} is not a string`);
      }
    }
  }
  return data as ConfigFile;
}

function cleanProfile(p: Profile): Profile {
  const out: Profile = {};
  for (const field of PROFILE_FIELDS) {
    const v = p[field];
    if (typeof v === 'string' && v !== '') out[field] = v;
  }
  // The caption defaults (config set caption.suffix.instagram …): text-defaults.ts.
  for (const [k, v] of Object.entries(p)) if (isSettingKey(k) && typeof v === 'string' && v !== '') out[k] = v;
  return out;
}

/** Creates the directory 0700; tightens our own default directory if it is looser. */
function ensureDirectory(dir: string, custom: boolean): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!custom && platform() !== 'win32' && basename(dir) === 'vidpub') {
      const mode = statSync(dir).mode & 0o777;
      if (mode & 0o077) chmodSync(dir, 0o700);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new VidpubError(`Cannot create the config directory ${sanitize(dir)} (${code ?? 'error'}).`, {
      hint: 'Set VIDPUB_CONFIG_DIR to a directory you can write, or use VIDPUB_API_KEY instead of a stored profile.',
    });
  }
}

/**
 * Refuses a config file whose mode has no write bit for its owner (chmod 444):
 * someone made it read-only on purpose, and a rename would replace it anyway.
 */
function checkWritable(path: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return; // missing: it will be created
  }
  if (platform() !== 'win32' && (mode & 0o200) === 0) {
    const octal = (mode & 0o777).toString(8).padStart(3, '0');
    throw new VidpubError(`The config file ${sanitize(path)} is read-only (mode ${octal}); vidpub does not replace it, so nothing was stored.`, {
      hint: `Make it writable (chmod 600 ${sanitize(path)}) and run the command again, or pass the key with VIDPUB_API_KEY or --api-key-file instead of a stored profile.`,
    });
  }
}

/** The lock on config.json, as its errors name it. */
const LOCK_PURPOSE: LockPurpose = {
  file: 'the config file',
  holders: 'another vidpub login or logout',
  notDone: 'nothing was stored',
  directory: 'the config directory',
};

export interface OpenOptions {
  /** Create the directory and allow setProfile/deleteProfile. Without it the store is read-only and writing throws. */
  writable?: boolean;
  /** Longest wait for another vidpub's lock on the file, ms (default 10 s). */
  lockWaitMs?: number;
  /** The clock that wait runs on (the Context's; default the real one). */
  clock?: Clock;
}

/**
 * Opens the store of a command run in `cwd` (configFile): reads and checks config.json now (a corrupt file
 * throws here). `writable` (login, logout) also checks that the file may be replaced.
 */
export async function openConfigStore(env: Env, cwd: string, opts: OpenOptions = {}): Promise<ConfigStore> {
  const { spelled, path } = configFile(env, cwd);
  const dir = dirname(path);
  let data = readConfigFile(path);
  if (opts.writable) {
    ensureDirectory(dir, Boolean(env.VIDPUB_CONFIG_DIR?.trim()));
    checkWritable(path);
  }

  /**
   * Read-modify-write under the lock; `change` returns the new profiles, or
   * undefined to write nothing. It may wait (the OS store, key-store.ts): the
   * lock is held until the file is written, so a login that cannot have the
   * lock does nothing anywhere.
   */
  const update = async <T>(change: (current: Record<string, Profile>) => Promise<{ next?: Record<string, Profile>; result: T }> | { next?: Record<string, Profile>; result: T }, signal?: AbortSignal): Promise<T> => {
    if (!opts.writable) throw new Error('internal: the config store was opened read-only (openConfigStore(env, cwd, { writable: true }) to write)');
    return withFileLock(path, { purpose: LOCK_PURPOSE, waitMs: opts.lockWaitMs, clock: opts.clock, signal }, async () => {
      // Read right before writing: keep what other processes stored meanwhile,
      // and never overwrite a file that became corrupt or read-only.
      const fresh = readConfigFile(path);
      checkWritable(path);
      const { next, result } = await change({ ...(fresh.profiles ?? {}) });
      if (next) {
        const updated: ConfigFile = { ...fresh, profiles: next };
        try {
          writeFileAtomic(path, `${JSON.stringify(updated, null, '\t')}\n`);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          throw new VidpubError(`Cannot write the config file ${sanitize(path)} (${code ?? 'error'}); it was left as it was.`, {
            hint: code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'Check the permissions of the file and its directory.' : undefined,
          });
        }
        data = updated;
      } else {
        data = fresh;
      }
      return result;
    });
  };

  const profiles = () => ({ ...(data.profiles ?? {}) });

  return {
    path: spelled,
    getProfile(name) {
      const p = data.profiles?.[name];
      return p ? { ...p } : undefined;
    },
    location: () => canonicalConfigPath(path),
    async setProfile(name, profile, signal) {
      await update((current) => ({ next: { ...current, [name]: cleanProfile(profile) }, result: undefined }), signal);
    },
    updateProfile(name, change, signal) {
      return update(async (current) => {
        const { profile, result } = await change(current[name] ? { ...current[name] } : undefined);
        if (profile === undefined) return { result };
        if (profile === null) delete current[name];
        else current[name] = cleanProfile(profile);
        return { next: current, result };
      }, signal);
    },
    deleteProfile(name, signal) {
      return update((current) => {
        if (!(name in current)) return { result: false };
        delete current[name];
        return { next: current, result: true };
      }, signal);
    },
    listProfiles() {
      return Object.keys(profiles()).sort();
    },
  };
}

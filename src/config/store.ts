/**
 * The config store: profiles (API key, base URL, workspace) in one JSON file,
 * `config.json` in the vidpub config directory:
 *
 *   VIDPUB_CONFIG_DIR, else $XDG_CONFIG_HOME/vidpub, else ~/.config/vidpub
 *   (%APPDATA%\vidpub on Windows)
 *
 * The file is written by conf (atomic write, mode 0600) in a directory created
 * 0700: it holds API keys. Reads do not load conf: conf and its ajv take
 * ~90 ms to import, and every command that talks to the service reads the
 * profile, while only login and logout write it. Reads parse the same file
 * with node:fs and apply the same checks.
 *
 * A corrupt file (truncated JSON, empty, a bare key, the wrong shape) is an
 * error naming the file — never quoting it (it may hold a key) — and is never
 * overwritten or cleared.
 */
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { basename, join } from 'node:path';
import type { ConfigStore, Profile } from './types.js';
import { VidpubError, sanitize } from '../errors.js';

type Env = Readonly<Record<string, string | undefined>>;

export const CONFIG_FILE_NAME = 'config.json';
const PROFILE_FIELDS = ['api_key', 'base_url', 'workspace', 'logged_in_at'] as const;

/** The shape of config.json. Unknown top-level keys are kept as they are. */
export interface ConfigFile {
  profiles?: Record<string, Profile>;
  [key: string]: unknown;
}

/** The config directory for this environment (see the file comment). */
export function configDir(env: Env): string {
  if (env.VIDPUB_CONFIG_DIR?.trim()) return env.VIDPUB_CONFIG_DIR.trim();
  if (env.XDG_CONFIG_HOME?.trim()) return join(env.XDG_CONFIG_HOME.trim(), 'vidpub');
  if (platform() === 'win32' && env.APPDATA) return join(env.APPDATA, 'vidpub');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.config', 'vidpub');
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
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    throw new VidpubError(`Cannot read the config file ${sanitize(path)} (${code ?? 'error'}).`, {
      hint: code === 'EACCES' ? 'Check the permissions of the file and its directory.' : undefined,
    });
  }
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

export interface OpenOptions {
  /**
   * Load conf so setProfile/deleteProfile work. Without it the store is
   * read-only (cheap: no conf import) and writing throws.
   */
  writable?: boolean;
}

/** The conf instance's surface we use (so the type does not import conf eagerly). */
interface ConfLike {
  set(key: 'profiles', value: Record<string, Profile>): void;
}

/**
 * Opens the store: reads and checks config.json now (a corrupt file throws
 * here). `writable` loads conf for setProfile/deleteProfile (login, logout).
 */
export async function openConfigStore(env: Env, opts: OpenOptions = {}): Promise<ConfigStore> {
  const dir = configDir(env);
  const path = join(dir, CONFIG_FILE_NAME);
  let data = readConfigFile(path);
  let conf: ConfLike | undefined;
  if (opts.writable) {
    ensureDirectory(dir, Boolean(env.VIDPUB_CONFIG_DIR?.trim()));
    const { default: Conf } = await import('conf');
    try {
      conf = new Conf<{ profiles: Record<string, Profile> }>({
        cwd: dir,
        configName: 'config',
        fileExtension: 'json',
        projectSuffix: '',
        projectName: 'vidpub',
        configFileMode: 0o600,
        clearInvalidConfig: false,
        accessPropertiesByDotNotation: false,
      }) as unknown as ConfLike;
    } catch {
      // conf's own message quotes the file: re-check with ours (names the file only).
      readConfigFile(path);
      throw new VidpubError(`Cannot open the config file ${sanitize(path)}.`);
    }
  }

  const profiles = () => ({ ...(data.profiles ?? {}) });
  const write = (next: Record<string, Profile>) => {
    if (!conf) throw new Error('internal: the config store was opened read-only (openConfigStore(env, { writable: true }) to write)');
    // Re-read right before writing: never overwrite a file that became corrupt meanwhile.
    data = readConfigFile(path);
    try {
      conf.set('profiles', next);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new VidpubError(`Cannot write the config file ${sanitize(path)} (${code ?? 'error'}).`);
    }
    data = { ...data, profiles: next };
  };

  return {
    path,
    getProfile(name) {
      const p = data.profiles?.[name];
      return p ? { ...p } : undefined;
    },
    setProfile(name, profile) {
      const current = readConfigFile(path).profiles ?? {};
      write({ ...current, [name]: cleanProfile(profile) });
    },
    deleteProfile(name) {
      const current = { ...(readConfigFile(path).profiles ?? {}) };
      if (!(name in current)) return false;
      delete current[name];
      write(current);
      return true;
    },
    listProfiles() {
      return Object.keys(profiles()).sort();
    },
  };
}

/** One stored profile: what `vidpub login` keeps. */
export interface Profile {
  /** The key, when it lives in this file (see key-store.ts). */
  api_key?: string;
  /** "keychain": the key lives in the OS store, not in this file (key-store.ts). */
  key_storage?: string;
  /** The key masked (vp_live_…a1b2), when it lives in the OS store. */
  key_masked?: string;
  /**
   * An OS store entry (its account name) that still holds an earlier key of this profile: the key moved
   * to the file while the OS store could not be reached to remove it. Logout removes it (key-store.ts).
   */
  keychain_leftover?: string;
  base_url?: string;
  /** The CA file (absolute path) trusted besides the system's, from `login --ca-file` or VIDPUB_CA_FILE. */
  ca_file?: string;
  workspace?: string;
  logged_in_at?: string;
  /** How long the same video posted to the same destination is asked about (a duration: 30d, 12h; 0 turns the guard off). */
  duplicate_window?: string;
  /** A platform's caption prefix or suffix (`caption.suffix.instagram`: text-defaults.ts). */
  [setting: `caption.${string}`]: string | undefined;
}

/** The config store: one JSON file (0600, in a 0700 directory), written under a lock by config-store.ts. */
export interface ConfigStore {
  /** The path of the config file, as the config directory is spelled (VIDPUB_CONFIG_DIR may be relative). */
  readonly path: string;
  /** The canonical absolute path of the config file (links followed): what OS store entries are named after. */
  location(): string;
  getProfile(name: string): Profile | undefined;
  /** Waits for another process's lock on the file; `signal` (Ctrl-C, a deadline) ends the wait, rejecting with its reason. */
  setProfile(name: string, profile: Profile, signal?: AbortSignal): Promise<void>;
  deleteProfile(name: string, signal?: AbortSignal): Promise<boolean>;
  /**
   * Changes one profile under the lock on the file: `change` gets it as the file holds it now and returns
   * the new profile (null: removed; undefined: left as it is) and a result. The lock is held while `change`
   * waits, so work done there (storing a key in the OS store) happens only when the file can be written.
   */
  updateProfile<T>(name: string, change: (current: Profile | undefined) => Promise<ProfileChange<T>>, signal?: AbortSignal): Promise<T>;
  listProfiles(): string[];
}

/** What a change of one profile returns: the new profile (null: removed; undefined: unchanged) and a result. */
export interface ProfileChange<T> {
  profile?: Profile | null;
  result: T;
}

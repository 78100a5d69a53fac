/** One stored profile: what `vidpub login` keeps. */
export interface Profile {
  /** The key, when it lives in this file (see key-store.ts). */
  api_key?: string;
  /** "keychain": the key lives in the OS store, not in this file (key-store.ts). */
  key_storage?: string;
  /** The key masked (vp_live_…a1b2), when it lives in the OS store. */
  key_masked?: string;
  base_url?: string;
  /** The CA file (absolute path) trusted besides the system's, from `login --ca-file` or VIDPUB_CA_FILE. */
  ca_file?: string;
  workspace?: string;
  logged_in_at?: string;
}

/** The config store: one JSON file (0600, in a 0700 directory), written under a lock by config-store.ts. */
export interface ConfigStore {
  /** Absolute path of the config file. */
  readonly path: string;
  getProfile(name: string): Profile | undefined;
  /** Waits for another process's lock on the file; `signal` (Ctrl-C, a deadline) ends the wait, rejecting with its reason. */
  setProfile(name: string, profile: Profile, signal?: AbortSignal): Promise<void>;
  deleteProfile(name: string, signal?: AbortSignal): Promise<boolean>;
  listProfiles(): string[];
}

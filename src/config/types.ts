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

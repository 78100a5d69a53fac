/**
 * The shape of the emulator's fixture, as the emulator uses it (every default
 * filled in): accounts, workspaces, API keys, connected accounts
 * (destinations) and pre-loaded videos. The built-in one is in
 * default-fixture.ts; a user's own JSON (`--fixture FILE`) is checked and
 * normalized by fixture-check.ts.
 */
import type { Creator, DailyScope, DestinationStatus, KeyAccess, OptionType, OptionValue, PlanName, PostDestinationStatus, PostStatus } from '../contract/wire-types.js';

export interface FixtureAccount {
  id: string;
  name: string;
  plan: PlanName;
  /**
   * Allowances other than the plan's (a workspace seeded from a real one
   * keeps what the service reported), in the shape of GET /me's limits; each
   * field left out is the plan's. `used` is the daily allowance already spent
   * on the day the emulator starts (or is reset).
   */
  limits?: FixtureLimits;
}

export interface FixtureLimits {
  requests_per_minute?: { read?: number; write?: number };
  api_posts_per_day?: { limit?: number; scope?: DailyScope; used?: number };
}

export interface FixtureKey {
  key: string;
  name: string;
  access: KeyAccess;
  revoked: boolean;
  created_at: string;
}

export interface FixtureOption {
  key: string;
  label: string;
  type: OptionType;
  values: OptionValue[] | null;
  default: OptionValue | null;
  required: boolean;
}

export interface FixtureDestination {
  id: string;
  platform: string;
  handle: string;
  display_name: string;
  status: DestinationStatus;
  video_limits: { max_duration_sec: number | null; max_size_bytes: number | null; content_types: string[] };
  options: FixtureOption[];
  /** Set for short-video platforms that require creator disclosure. */
  creator: Creator | null;
  /** Longer captions are cut when published (warning caption_truncated). */
  caption_max_length: number | null;
}

export interface FixtureMedia {
  id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  duration_sec: number | null;
  status: 'ready' | 'failed';
  error_message: string | null;
  created_at: string;
}

export interface FixtureWorkspace {
  id: string;
  name: string;
  /** Id of an entry of `accounts`. */
  account: string;
  keys: FixtureKey[];
  destinations: FixtureDestination[];
  media: FixtureMedia[];
  /** Posts already made (a rehearsal of `publish ID` seeds the one it publishes). */
  posts?: FixturePost[];
}

export interface FixturePost {
  id: string;
  status: PostStatus;
  caption: string;
  /** Id of an entry of the workspace's `media`. */
  media_id: string;
  /** Required for a scheduled post. */
  publish_at: string | null;
  destinations: { destination_id: string; options: Record<string, OptionValue>; status: PostDestinationStatus }[];
  created_at: string;
}

export interface Fixture {
  accounts: FixtureAccount[];
  workspaces: FixtureWorkspace[];
}

import type { ApiClient, ClientSettings } from '../../api/client.js';
import type { ConfigStore } from '../../config/profile-types.js';
import type { Clock } from '../../core/clock.js';
import type { IO } from '../../core/io.js';
import type { Prompter } from '../../ui/prompter.js';

// The CLI's injected Context gathers interfaces that their own layers own
// (as gh's cmdutil.Factory gathers iostreams and prompter); re-exported here
// for the CLI and its tests.
export type { Clock } from '../../core/clock.js';
export { realClock, realSleep } from '../../core/clock.js';
export type { IO } from '../../core/io.js';
export type { Choice, Prompter } from '../../ui/prompter.js';
export type { ConfigStore, Profile } from '../../config/profile-types.js';

export interface Context {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** Opens the config store lazily (it may throw a VidpubError for a corrupt file). */
  config(): Promise<ConfigStore>;
  prompter(): Promise<Prompter>;
  /** Builds an API client for this invocation (base URL, key, retries, debug). */
  createClient(settings: ClientSettings): Promise<ApiClient>;
  /** Aborted on SIGINT / SIGTERM (Ctrl-C). */
  signal: AbortSignal;
  cwd: string;
  version: string;
  /** When the command started (epoch ms): the process's start for the CLI; absent, when the invocation is made. */
  startedAt?: number;
  /** The Node.js version, platform and architecture (for `vidpub version`); absent in tests that do not set it. */
  runtime?: { node: string; platform: string; arch: string };
  /** Opens a URL with the system's opener (xdg-open, open, start): --web and `vidpub open`. Absent: there is none (tests inject one). */
  openBrowser?(url: string): Promise<void>;
}


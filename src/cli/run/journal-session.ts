/**
 * The journal an invocation records to: built on first use, so a command
 * that records nothing (and --version, --help) never loads src/journal/.
 */
import type { ApiClient } from '../../api/client.js';
import type { Clock } from '../../core/clock.js';
import type { Journal } from '../../journal/journal-types.js';
import { stateDir } from '../../journal/paths.js';

export interface JournalSettings {
  env: Readonly<Record<string, string | undefined>>;
  profile: string;
  client(): Promise<ApiClient>;
  clock: Clock;
  signal: AbortSignal;
  warn(line: string): void;
}

export function lazyJournal(s: JournalSettings): Journal {
  const dir = stateDir(s.env);
  let real: Promise<Journal> | undefined;
  const get = () =>
    (real ??= import('../../journal/journal.js').then(({ createJournal }) =>
      createJournal({ dir, profile: s.profile, client: s.client, clock: s.clock, signal: s.signal, warn: s.warn }),
    ));
  return {
    dir,
    media: async (e) => (await get()).media(e),
    post: async (e) => (await get()).post(e),
    status: async (p, o) => (await get()).status(p, o),
    findByKey: async (k) => (await get()).findByKey(k),
    postIdsByKeys: async (keys) => (await get()).postIdsByKeys(keys),
    postsByKeys: async (keys) => (await get()).postsByKeys(keys),
    lastPost: async () => (await get()).lastPost(),
    find: async (id) => (await get()).find(id),
    retriesOf: async (id) => (await get()).retriesOf(id),
    setPosts: async (id) => (await get()).setPosts(id),
    history: async (q) => (await get()).history(q),
    videosByContent: async (size, sample, forgotten) => (await get()).videosByContent(size, sample, forgotten),
    videosBySize: async (sizes, forgotten) => (await get()).videosBySize(sizes, forgotten),
    runs: async (what, workspace, alike) => (await get()).runs(what, workspace, alike),
    settle: async () => (real ? (await real).settle() : undefined),
  };
}

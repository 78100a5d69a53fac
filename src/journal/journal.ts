/**
 * The journal behind Session.journal: records what vidpub created and what
 * it saw later, and reads it back folded per post (history, status without
 * an id, the rerun guard of --idempotency-key, retry). Writing never fails a
 * command: the first failure warns once and the journal stays quiet after.
 */
import type { Post } from '../contract/wire-types.js';
import { JournalStore } from './jsonl-store.js';
import { JournalOwner } from './journal-owner.js';
import { JournalReader } from './journal-reader.js';
import { mediaRecord, postRecord, statusRecord } from './journal-records.js';
import type { HistoryQuery, Journal, JournalDeps, JournalRecord, MediaEvent, PostEvent } from './journal-types.js';
import { KeyLookup } from './key-lookup.js';

/** Appends records; the first that cannot be written warns once, and the rest are dropped. */
function appender(store: JournalStore, deps: JournalDeps): (record: JournalRecord) => void {
  let broken = false;
  return (record) => {
    if (broken) return;
    try {
      store.append(record);
    } catch (err) {
      broken = true;
      const code = (err as NodeJS.ErrnoException).code;
      deps.warn(
        `Could not write to the journal in ${deps.dir}${code ? ` (${code})` : ''}: this run is not recorded there. ` +
          'The command itself is not affected (--no-journal or VIDPUB_NO_JOURNAL=1 turns the journal off).',
      );
    }
  };
}

export function createJournal(deps: JournalDeps): Journal {
  const store = new JournalStore(deps.dir, deps.segmentBytes);
  const write = appender(store, deps);
  const owner = new JournalOwner(deps);
  const reader = new JournalReader(store, deps.dir, (line) => deps.warn(line));
  const keys = new KeyLookup(reader, owner);
  const iso = () => new Date(deps.clock.now()).toISOString();

  return {
    dir: deps.dir,

    async media(e: MediaEvent) {
      try {
        write(mediaRecord(e, await owner.record(), iso()));
      } catch {
        // no client, no record: the command reports its own error
      }
    },

    async post(e: PostEvent) {
      try {
        const ctx = await owner.record();
        write(postRecord(e, ctx, await owner.workspace(), iso()));
      } catch {
        // as above
      }
    },

    async status(post: Post, outcome?: string) {
      write(statusRecord(post, deps.profile, iso(), outcome));
    },

    findByKey: (key: string) => keys.findByKey(key),
    postIdsByKeys: (wanted: Iterable<string>) => keys.postIdsByKeys(wanted),
    postsByKeys: (wanted: Iterable<string>) => keys.postsByKeys(wanted),
    lastPost: async () => reader.lastPost(deps.profile),
    find: async (postId: string) => reader.foldOne(postId),
    retriesOf: async (postId: string) => reader.retriesOf(postId),
    setPosts: async (setId: string) => reader.setPosts(setId),
    history: async (q: HistoryQuery) => reader.history(q),
    videosByContent: async (size: number, sample: string, forgotten?: boolean) => (await import('./content-lookup.js')).videosByContent(reader, owner, size, sample, forgotten),
    videosBySize: async (sizes: ReadonlySet<number>, forgotten?: boolean) => (await import('./content-lookup.js')).videosBySize(reader, owner, sizes, forgotten),

    async runs(what: unknown, workspace?: string, alike?: readonly unknown[]) {
      const ctx = await owner.record();
      const { runMemory } = await import('./runs.js');
      return runMemory({ dir: deps.dir, now: () => deps.clock.now(), ctx, what, workspace, alike });
    },

    async settle() {
      (await import('./runs.js')).settleRuns();
    },
  };
}

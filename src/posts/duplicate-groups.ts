/**
 * `history --duplicates`: the groups of the same video posted to the same destination, among
 * the posts history lists, by the duplicate guard's rule (duplicate-guard.ts): a draft is not
 * posted, a destination that failed or was cancelled has not posted it. The same video: the
 * same fingerprint (the journal's records of the videos, media/fingerprint.ts), else the same
 * video id (a video used again by its content, or with --media).
 */
import type { HistoryQuery, Journal, JournalPost, KnownVideo } from '../journal/journal-types.js';
import type { Session } from '../session/session.js';
import { postedTo } from './duplicate-guard.js';
import { journalOff } from './history-flow.js';

export interface DuplicateGroup {
  /** The video's fingerprint when the journal has it; null when the posts are known to share a video id only. */
  sha256: string | null;
  destination_id: string;
  /** "@vidpub.demo (tiktok)" when known. */
  name: string | null;
  /** Its posts, newest first. */
  posts: { post_id: string; at: string; media_id: string; file: string | null; caption: string }[];
}

/** The groups of two posts or more, the group with the newest post first. */
export async function duplicateGroups(journal: Journal, posts: readonly JournalPost[]): Promise<DuplicateGroup[]> {
  const sizes = new Set(posts.map((p) => p.size).filter((s): s is number => typeof s === 'number'));
  let known: KnownVideo[] = [];
  try {
    // Forgotten videos too: they were posted all the same.
    if (sizes.size > 0) known = await journal.videosBySize(sizes, true);
  } catch {
    // No service to tell whose videos they are (no key): by video id alone.
  }
  const shaOf = new Map<string, string>();
  for (const k of known) if (k.sha256) shaOf.set(k.media_id, k.sha256);
  const groups = new Map<string, DuplicateGroup>();
  for (const p of posts) {
    const sha256 = shaOf.get(p.media_id) ?? null;
    for (const d of p.destinations) {
      if (!postedTo(p, d)) continue;
      const key = `${sha256 ?? `media:${p.media_id}`}\n${d.id}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { sha256, destination_id: d.id, name: d.name ?? null, posts: [] }));
      g.posts.push({ post_id: p.post_id, at: p.at, media_id: p.media_id, file: p.file ?? null, caption: p.caption });
    }
  }
  return [...groups.values()].filter((g) => g.posts.length > 1);
}

/** A row per post of each group (the groups numbered from 1): what a table, a pipe and --csv show. */
export function groupRows(groups: readonly DuplicateGroup[]): { group: number; destination_id: string; name: string | null; sha256: string | null; id: string; at: string; media_id: string; file: string | null; caption: string }[] {
  return groups.flatMap((g, i) => g.posts.map((p) => ({ group: i + 1, destination_id: g.destination_id, name: g.name, sha256: g.sha256, id: p.post_id, at: p.at, media_id: p.media_id, file: p.file, caption: p.caption })));
}

/** The groups among the posts history's query picks (every one of them: --limit counts groups), with where the journal is. */
export async function runDuplicates(q: HistoryQuery, session: Session, maxPosts: number): Promise<{ groups: DuplicateGroup[]; posts: JournalPost[]; dir: string }> {
  const journal = session.journal;
  if (!journal) throw journalOff('vidpub history --duplicates');
  const groups = await duplicateGroups(journal, await journal.history({ ...q, limit: maxPosts }));
  return { groups: groups.slice(0, q.limit), posts: [], dir: journal.dir };
}

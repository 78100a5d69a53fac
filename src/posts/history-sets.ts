/**
 * The sets of posts in history (one `post` command with a caption per
 * destination makes a post per caption, their journal records joined by
 * `set`): at a terminal a set is one line, its posts beneath it in the
 * order they were made; a pipe and --json keep a line (a document) per post.
 */
import type { JournalPost } from '../journal/journal-types.js';

/** A line of history at a terminal: a post (`in`: one of the set above it), or the head of a set. */
export type HistoryRow = { post: JournalPost; in?: 'set' | 'set-last' } | { set: string; posts: JournalPost[] };

/** The worst of the states of a set's posts: failed, then publishing, scheduled, draft, completed. */
export function setState(posts: JournalPost[]): string {
  for (const s of ['failed', 'publishing', 'scheduled', 'draft']) if (posts.some((p) => p.state === s)) return s;
  return posts[0]?.state ?? 'completed';
}

/**
 * The posts (newest first) as lines: a set with two posts or more listed is put where its newest post is, a
 * head line then its posts; a set with one post listed (the others filtered out) is a plain post.
 */
export function historyRows(posts: JournalPost[]): HistoryRow[] {
  const bySet = new Map<string, JournalPost[]>();
  for (const p of posts) if (p.set) bySet.set(p.set, [...(bySet.get(p.set) ?? []), p]);
  const rows: HistoryRow[] = [];
  const done = new Set<string>();
  for (const p of posts) {
    const members = p.set ? bySet.get(p.set)! : [p];
    if (members.length < 2) {
      rows.push({ post: p });
      continue;
    }
    if (done.has(p.set!)) continue;
    done.add(p.set!);
    const made = [...members].reverse();
    rows.push({ set: p.set!, posts: made });
    made.forEach((m, i) => rows.push({ post: m, in: i === made.length - 1 ? 'set-last' : 'set' }));
  }
  return rows;
}

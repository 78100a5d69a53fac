/**
 * `vidpub history`: the posts the journal recorded, newest first, and with
 * --refresh the current state of those still in progress read again from the
 * service (one GET each, stopping short of the minute's read allowance) and
 * recorded.
 */
import { responseMeta } from '../api/client.js';
import { NotFoundError, TimeoutError, UsageError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import type { HistoryQuery, JournalPost } from '../journal/journal-types.js';

/** Reads left in the minute that --refresh leaves for other commands. */
export const READ_RESERVE = 5;
/** What --refresh reads again: posts in progress, and drafts (published since in the web app, or by a publish whose answer was lost). */
const IN_PROGRESS = new Set(['draft', 'scheduled', 'publishing']);

export interface HistoryOpts extends HistoryQuery {
  refresh: boolean;
}

export interface HistoryResult {
  posts: JournalPost[];
  dir: string;
  /** --refresh: how many were read again, and how many were left for lack of allowance or another service/key. */
  refreshed?: number;
  skipped?: number;
}

export function journalOff(what: string): UsageError {
  return new UsageError(`${what} reads the local journal, which --no-journal or VIDPUB_NO_JOURNAL=1 turns off`, {
    hint: 'Run it without --no-journal (and with VIDPUB_NO_JOURNAL unset).',
  });
}

export async function runHistory(opts: HistoryOpts, session: Session): Promise<HistoryResult> {
  const journal = session.journal;
  if (!journal) throw journalOff('vidpub history');
  const posts = await journal.history(opts);
  if (!opts.refresh) return { posts, dir: journal.dir };
  const stale = posts.filter((p) => IN_PROGRESS.has(p.state));
  if (stale.length === 0) return { posts, dir: journal.dir, refreshed: 0, skipped: 0 };

  const client = await session.client();
  let refreshed = 0;
  let skipped = 0;
  let remaining: number | undefined;
  for (const p of stale) {
    // Another service or key (--all-profiles) cannot be read with this one.
    if (p.base_url !== client.baseUrl || (p.key !== undefined && client.keyId !== undefined && p.key !== client.keyId)) {
      skipped++;
      continue;
    }
    if (remaining !== undefined && remaining <= READ_RESERVE) {
      skipped++;
      continue;
    }
    let post;
    try {
      post = await client.getPost(p.post_id, { signal: session.signal });
    } catch (err) {
      if (err instanceof TimeoutError) {
        throw new TimeoutError(`Stopped (--timeout reached) while reading post ${p.post_id} from the service; nothing more was refreshed.`, {
          hint: 'Run it again with a longer --timeout, or without --refresh to list the states last seen.',
          cause: err,
        });
      }
      // One post gone (deleted in the web app) does not hide the others.
      if (!(err instanceof NotFoundError)) throw err;
      session.log.warn(`Post ${p.post_id} was not found at the service (deleted?): its last state seen here is shown.`);
      continue;
    }
    remaining = responseMeta(post)?.rateLimit?.remaining;
    await journal.status(post);
    refreshed++;
  }
  if (skipped > 0) {
    session.log.info(
      `${skipped} post${skipped === 1 ? ' was' : 's were'} not refreshed (another profile's service or key, or to leave ${READ_RESERVE} reads of this minute's allowance); run again to refresh ${skipped === 1 ? 'it' : 'them'}.`,
    );
  }
  return { posts: await journal.history(opts), dir: journal.dir, refreshed, skipped };
}

/** "@vidpub.demo published, dst_2 failed". */
export function destinationsText(p: JournalPost): string {
  return p.destinations.map((d) => `${sanitize(d.name ?? d.id)} ${d.status ?? '?'}`).join(', ');
}

/** The first line of a caption, at most `n` characters. */
export function captionExcerpt(caption: string, n: number): string {
  const line = sanitize(caption.split(/\r?\n/)[0] ?? '');
  return line.length > n ? line.slice(0, n - 1) + '…' : line;
}

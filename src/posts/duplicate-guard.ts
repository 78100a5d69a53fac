/**
 * The duplicate guard (the one home of its rule): the same video (its content
 * fingerprint, media/fingerprint.ts) posted by vidpub to the same destination
 * within the window (the profile's `duplicate_window`, default 30 days, 0
 * off) is an earlier post of it. A draft is not a post, and a destination that
 * failed or was cancelled has not posted it. `post` asks or refuses
 * (post/duplicates.ts); batch refuses item by item.
 */
import { UsageError, sanitize } from '../errors.js';
import type { JournalPost } from '../journal/journal-types.js';
import type { Session } from '../session/session.js';
import { parseBoundedDuration } from '../time/duration.js';
import { describeRelative } from '../time/describe.js';
import type { VideoFile } from '../media/check.js';
import { isRunsOwnKey } from '../session/run-key.js';

export const DEFAULT_DUPLICATE_WINDOW = '30d';
/** Posts read back from the journal within the window, at most. */
const MAX_POSTS_READ = 100_000;

/** The window in ms from the profile's `duplicate_window` (0: the guard is off); exit 2 naming the setting when it is not a duration. */
export function duplicateWindowMs(text: string | undefined): number {
  return parseBoundedDuration(text ?? DEFAULT_DUPLICATE_WINDOW, 'duplicate_window (in the config)');
}

/** One destination an earlier post of the same video went to. */
export interface EarlierPost {
  post_id: string;
  /** When it was created (ISO). */
  at: string;
  destination_id: string;
  /** "@vidpub.demo (tiktok)" when known. */
  name?: string;
  media_id: string;
}

const NOT_POSTED = new Set(['failed', 'cancelled']);

/** Whether a new post is held to the guard: a draft posts nothing (a person publishes it later), so it is neither stopped nor counted. */
export function guarded(p: { draft: boolean }): boolean {
  return !p.draft;
}

/**
 * The run asking: its base key (run-key.ts; a batch item's key) and the --idempotency-key given.
 * The journal's entry of this same run (its `run_key`) is not an earlier post of it: the run
 * that a printed rerun or continue line carries on, or a batch run again.
 */
export interface OwnRun {
  runKey: string;
  givenKey?: string;
}

/** Whether a post is this run's own (see OwnRun): by its run key; by the key given (recorded as `idem`, so --force-new under it posts anew too). */
function isOwn(p: JournalPost, own: OwnRun | undefined): boolean {
  if (!own) return false;
  if (p.run_key !== undefined ? p.run_key === own.runKey : legacyOwn(own)) return true;
  return own.givenKey !== undefined && p.idem === own.givenKey;
}

/** A line written before the journal kept the run key: a command carrying a key vidpub made (its rerun or continue line) cannot be told from it, so it is taken as its own, as then. */
function legacyOwn(own: OwnRun): boolean {
  return isRunsOwnKey(own.givenKey);
}

/** Whether a post counts as posted to a destination: not a draft, and that destination neither failed nor was cancelled. */
export function postedTo(p: JournalPost, d: JournalPost['destinations'][number]): boolean {
  return guarded(p) && p.state !== 'draft' && !(d.status && NOT_POSTED.has(d.status));
}

/** The earlier posts in `posts` of one of `mediaIds` to one of `destinationIds` (newest first, as given), this run's own left out. */
export function earlierIn(posts: readonly JournalPost[], mediaIds: ReadonlySet<string>, destinationIds: readonly string[], own?: OwnRun): EarlierPost[] {
  const out: EarlierPost[] = [];
  for (const p of posts) {
    if (!mediaIds.has(p.media_id) || isOwn(p, own)) continue;
    for (const d of p.destinations) {
      if (!destinationIds.includes(d.id) || !postedTo(p, d)) continue;
      out.push({ post_id: p.post_id, at: p.at, destination_id: d.id, ...(d.name ? { name: d.name } : {}), media_id: p.media_id });
    }
  }
  return out;
}

/** The media ids of the journal's videos with the file's content (forgotten ones too: they were posted all the same). */
export async function sameVideos(session: Session, file: VideoFile): Promise<Set<string>> {
  const journal = session.journal;
  if (!journal) return new Set();
  const { fileContent } = await import('../media/fingerprint.js');
  const { content, known } = await fileContent(journal, file, true);
  if (!content.sha256) return new Set();
  return new Set(known.filter((k) => k.sha256 === content.sha256).map((k) => k.media_id));
}

/** The posts of this service within the window, newest first, read once for a command. */
export async function postsWithin(session: Session, windowMs: number): Promise<JournalPost[]> {
  if (!session.journal || windowMs <= 0) return [];
  const base = (await session.client()).baseUrl;
  const posts = await session.journal.history({ limit: MAX_POSTS_READ, sinceMs: session.clock.now() - windowMs });
  return posts.filter((p) => p.base_url === base);
}

/** The earlier posts of this file's video to these destinations within the window. */
export async function earlierPosts(session: Session, file: VideoFile, destinationIds: readonly string[], windowMs: number, own?: OwnRun): Promise<EarlierPost[]> {
  if (windowMs <= 0 || !session.journal) return [];
  const media = await sameVideos(session, file);
  if (media.size === 0) return [];
  return earlierIn(await postsWithin(session, windowMs), media, destinationIds, own);
}

/** "@a (tiktok) on Friday 09:00 CET, 2 d ago (…) (post post_1)", one earlier post. */
export function earlierText(e: EarlierPost, zone: string, now: number): string {
  return `${sanitize(e.name ?? e.destination_id)} ${describeRelative(Date.parse(e.at), zone, now)} (post ${e.post_id})`;
}

/** The refusal without a terminal (exit 2): the earlier posts named, and the flag that posts anyway. */
export function duplicateError(what: string, earlier: readonly EarlierPost[], zone: string, now: number, again?: string): UsageError {
  const list = earlier.map((e) => earlierText(e, zone, now)).join('; ');
  return new UsageError(`${what} was already posted to ${list}; nothing was uploaded or posted`, {
    hint: again ? `To post it again anyway: ${again} --allow-duplicate` : 'To post it again anyway, add --allow-duplicate (allow_duplicate: true for a batch item).',
    data: { duplicates: earlier },
  });
}

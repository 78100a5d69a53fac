/**
 * The duplicate guard in a batch (its rule is the post guard's, posts/duplicate-guard.ts): an
 * item whose video file is the same video (the same file, or the same fingerprint) as an earlier
 * item of the manifest that posts it to one of its destinations, or as a post the journal holds
 * there within the window, is refused on its own when the batch runs (exit 2 for it; the others
 * go on), and named by --dry-run. Not when the item says `allow_duplicate: true` or the batch
 * runs with --allow-duplicate; not an item an earlier run of the batch posted (it is replayed,
 * not posted again). A draft item is neither refused nor an earlier post (guarded()).
 * Fingerprints are taken as `post` takes them (media/fingerprint.ts): the cheap key first, the
 * whole file only when a candidate has it.
 */
import { sanitize } from '../errors.js';
import { earlierIn, earlierText, guarded, postsWithin } from '../posts/duplicate-guard.js';
import type { Session } from '../session/session.js';
import type { VideoFile } from '../media/check.js';
import { counted } from '../util/plural.js';
import type { ItemDuplicate } from './plan-local.js';
import type { BatchPlan, PlannedItem } from './plan.js';
import type { ItemRun, RunContext } from './run-context.js';

export interface DuplicateCheck {
  /** The window in ms (0: the guard is off). */
  windowMs: number;
  /** --allow-duplicate: every item may post a video posted before. */
  allowAll: boolean;
}

/** What tells two items' videos apart: the fingerprint when one was taken, else the file itself. */
function videoOf(it: PlannedItem, fingerprints: ReadonlyMap<string, string>): { id: string; sha256?: string } | undefined {
  if (it.video.kind !== 'file') return undefined;
  const sha256 = fingerprints.get(it.video.file.path);
  return sha256 !== undefined ? { id: `sha256:${sha256}`, sha256 } : { id: `file:${it.video.file.path}` };
}

/**
 * Marks the plan's items that are duplicates (`duplicate` on each) and takes them out of the posts
 * needed. Reads the journal once, and the files only as the candidate rule says.
 */
export async function markDuplicates(plan: BatchPlan, session: Session, check: DuplicateCheck): Promise<void> {
  if (check.windowMs <= 0 || check.allowAll) return;
  const held = (it: PlannedItem) => it.video.kind === 'file' && !it.alreadyPosted && !it.allowDuplicate && guarded(it);
  if (!plan.items.some(held)) return;
  const files = new Map<string, VideoFile>();
  for (const it of plan.items) if (it.video.kind === 'file') files.set(it.video.file.path, it.video.file);
  const { filesContent } = await import('../media/fingerprint.js');
  // Forgotten videos too: they were posted all the same.
  const { fingerprints, known } = await filesContent(session.journal, [...files.values()], true);
  const posts = session.journal && known.some((k) => k.sha256) ? await postsWithin(session, check.windowMs) : [];
  const mediaOf = new Map<string, Set<string>>();
  for (const k of known) if (k.sha256) mediaOf.set(k.sha256, (mediaOf.get(k.sha256) ?? new Set()).add(k.media_id));

  // Each video and destination: the first item that posts it there (not a draft, not refused).
  const posters = new Map<string, number>();
  let refused = 0;
  for (const it of plan.items) {
    const video = videoOf(it, fingerprints);
    if (video === undefined) continue;
    const dests = it.plans.map((p) => p.destination.id);
    if (held(it)) {
      const items = dests.flatMap((d) => {
        const n = posters.get(`${video.id}\n${d}`);
        return n === undefined ? [] : [{ item: n, destination_id: d }];
      });
      const media = video.sha256 !== undefined ? mediaOf.get(video.sha256) : undefined;
      // The item's own post (an earlier run of it, under its key) is not an earlier post of it.
      const earlier = media ? earlierIn(posts, media, dests, { runKey: it.key, givenKey: it.key }) : [];
      if (items.length > 0 || earlier.length > 0) {
        it.duplicate = { items, posts: earlier, message: duplicateText(items, earlier, plan.names, plan.zone, session.clock.now()) };
        refused++;
        continue;
      }
    }
    if (guarded(it)) for (const d of dests) if (!posters.has(`${video.id}\n${d}`)) posters.set(`${video.id}\n${d}`, it.n);
  }
  if (refused > 0) plan.postsNeeded = plan.items.filter((it) => !it.draft && !it.alreadyPosted && !it.duplicate).length;
}

/** "the same video as item 1 (to @vidpubdemo (youtube)); already posted to @a (tiktok) 2 d ago (post post_1)". */
function duplicateText(items: ItemDuplicate['items'], posts: ItemDuplicate['posts'], names: Record<string, string>, zone: string, now: number): string {
  const parts: string[] = [];
  const byItem = new Map<number, string[]>();
  for (const x of items) byItem.set(x.item, [...(byItem.get(x.item) ?? []), sanitize(names[x.destination_id] ?? x.destination_id)]);
  for (const [n, to] of byItem) parts.push(`the same video as item ${n}, which posts it to ${to.join(', ')}`);
  if (posts.length > 0) parts.push(`already posted to ${posts.map((e) => earlierText(e, zone, now)).join('; ')}`);
  return parts.join('; ');
}

/** What lets a refused item post: said in every refusal. */
export const ALLOW_TEXT = 'allow_duplicate: true on the item (or --allow-duplicate) posts it anyway';

/** The refused items in a line for stderr, before the run ("items 2, 3"), or undefined when none. */
export function refusedLine(plan: BatchPlan): string | undefined {
  const n = plan.items.filter((it) => it.duplicate).map((it) => it.n);
  if (n.length === 0) return undefined;
  const shown = n.length > 10 ? `${n.slice(0, 10).join(', ')}…` : n.join(', ');
  return `${counted(n.length, 'item')} ${n.length === 1 ? 'is' : 'are'} the same video to the same destination as an earlier post or item, and will be refused (item${n.length === 1 ? '' : 's'} ${shown}); ${ALLOW_TEXT}.`;
}

/** The run refuses a duplicate item before anything of it is sent: exit 2 for it, the others go on. */
export function refuseDuplicate(rc: RunContext, run: ItemRun, dup: ItemDuplicate): void {
  const { it, out } = run;
  out.status = 'refused';
  out.error = `refused as a duplicate: ${dup.message}; nothing of it was sent; ${ALLOW_TEXT}`;
  rc.troubles.set(it.n, 'duplicate');
}

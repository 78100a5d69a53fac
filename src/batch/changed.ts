/**
 * Items whose video file changed since the run that posted them. An item's
 * key comes from what the manifest says (keys.ts: the path as written and the
 * size), so a file replaced by another video of the same size keeps the key
 * of the post made from the first one: sent, it would be replayed (the old
 * post reported as this item's), and the new video never uploaded.
 *
 * The journal keeps, with each item's post, the file it was made from
 * (util/same-file.ts). Before anything is sent, an item whose file is not
 * that one any more is a problem (exit 2, naming it), unless it is marked
 * `force_new` (or the batch runs with --force-new): it then goes under a key
 * of its own made from the item's key and the file's content (its fingerprint,
 * media/fingerprint.ts: read only for the items whose file changed), the same
 * on every machine and after a mere `touch`, so that a rerun of that finds its
 * post, not a third. (vidpub before 0.1 made that key from the file's size and
 * modification time, one machine's: a post made under such a key is still found.)
 */
import type { Journal, KeyedPost } from '../journal/journal-types.js';
import { fileIdentity } from '../media/check.js';
import { fileFingerprint } from '../media/fingerprint.js';
import { sameFile } from '../util/same-file.js';
import { sanitize } from '../errors.js';
import { itemKey } from './keys.js';
import type { Problem } from './manifest.js';
import type { PlannedItem } from './plan.js';

/** The key an item's changed file is posted under (force_new): its key, with the file's content; undefined when the file changed while read. */
async function forcedKey(it: PlannedItem, journal: Journal): Promise<string | undefined> {
  if (it.video.kind !== 'file') return undefined;
  const sha256 = await fileFingerprint(journal, it.video.file);
  return sha256 === undefined ? undefined : itemKey({ changed: it.key, sha256 }, undefined);
}

/** The key an earlier vidpub posted a changed file under: with the file's size and modification time (looked up only). */
function earlierForcedKey(it: PlannedItem): string | undefined {
  if (it.video.kind !== 'file') return undefined;
  const id = fileIdentity(it.video.file);
  return itemKey({ changed: it.key, size: id.size, mtime: id.mtime }, undefined);
}

function changedProblem(it: PlannedItem, earlier: KeyedPost): Problem {
  const shown = it.video.kind === 'file' ? it.video.shown : 'its video';
  return {
    n: it.n,
    line: it.line,
    message:
      `${sanitize(shown)} changed since the run that posted it as post ${sanitize(earlier.post_id)} (${sanitize(earlier.at)}): it is another file now, or was modified. ` +
      'Nothing of it was sent; to post the file as it is now, add "force_new: true" to the item (or run the batch with --force-new)',
  };
}

/**
 * Settles each item's key against the journal (one pass): the key of a changed file posted with
 * force_new when the journal holds its post; else the item's own. Returns the posts found under the
 * keys the items now have (key → post id), and the problems of the changed items not forced.
 */
export async function settleChangedFiles(items: PlannedItem[], journal: Journal, forceAll: boolean): Promise<{ posted: Map<string, string>; problems: Problem[] }> {
  const found = await journal.postsByKeys(items.map((it) => it.key));
  const problems: Problem[] = [];
  const posted = new Map<string, string>();
  const changed: [PlannedItem, KeyedPost][] = [];
  for (const it of items) {
    const earlier = found.get(it.key);
    if (!earlier) continue;
    // A post recorded without its file (an earlier vidpub) is this item's, as it always was.
    if (it.video.kind === 'file' && earlier.file_id !== undefined && !sameFile(earlier.file_id, fileIdentity(it.video.file))) changed.push([it, earlier]);
    else posted.set(it.key, earlier.post_id);
  }
  if (changed.length === 0) return { posted, problems };
  // Only the changed files are read whole, for their content's key.
  const forced = new Map<PlannedItem, { key?: string; before?: string }>();
  for (const [it] of changed) forced.set(it, { key: await forcedKey(it, journal), before: earlierForcedKey(it) });
  const foundForced = await journal.postsByKeys([...forced.values()].flatMap((f) => [f.key, f.before].filter((k): k is string => k !== undefined)));
  for (const [it, earlier] of changed) {
    const f = forced.get(it)!;
    const hit = [f.key, f.before].find((k) => k !== undefined && foundForced.has(k));
    if (hit !== undefined) {
      // This file was posted with force_new before: its post is this item's.
      it.key = hit;
      posted.set(hit, foundForced.get(hit)!.post_id);
    } else if ((it.forceNew || forceAll) && f.key !== undefined) it.key = f.key;
    else problems.push(f.key === undefined && (it.forceNew || forceAll) ? { n: it.n, line: it.line, message: `${sanitize(it.video.kind === 'file' ? it.video.shown : 'its video')} changed while it was read; run the batch again once it is written` } : changedProblem(it, earlier));
  }
  return { posted, problems };
}

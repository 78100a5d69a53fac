/**
 * `vidpub retry SET_ID`: the posts of a set (one `post` command, a caption
 * each; their journal records joined by `set`) retried each as `retry
 * POST_ID` would, one after the other: a post with nothing failed is said and
 * left, a retry made before is reported. The exit code is the worst of them.
 */
import { InterruptedError, NotFoundError, OutcomeUnknownError, UsageError, VidpubError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import type { JournalPost } from '../journal/journal-types.js';
import { journalOff } from './history-flow.js';
import type { RetryOpts, RetryResult } from './retry-flow.js';

/** What `retry SET_ID` returns: the set and each post's retry (or what stopped it). */
export interface RetrySet {
  set: string;
  retries: { of: string; result?: RetryResult; error?: VidpubError }[];
}

export function isSetId(id: string): boolean {
  return /^set_[0-9a-f]{16}$/.test(id);
}

/** The posts of a set, from this machine's journal: exit 5 when it has none. */
export async function postsOfSet(session: Session, set: string, command: string): Promise<JournalPost[]> {
  if (!session.journal) throw journalOff(`vidpub ${command} ${set}`);
  const posts = await session.journal.setPosts(set);
  if (posts.length === 0) {
    throw new NotFoundError(`no post of set ${set} is in this machine's journal (${session.journal.dir})`, {
      hint: 'A set is made by one "vidpub post" with --caption-for; "vidpub history" lists the sets made here.',
    });
  }
  return posts;
}

export async function retrySet(opts: RetryOpts, session: Session, one: (opts: RetryOpts) => Promise<RetryResult>): Promise<RetrySet> {
  const set = opts.postId;
  if (opts.to.length > 0) {
    throw new UsageError(`retry ${set} --to: --to picks destinations of one post; give the id of the set's post that went there`, {
      hint: 'List the set\'s posts with "vidpub history" (a terminal shows each under its set), then: vidpub retry POST_ID --to DEST',
    });
  }
  const posts = await postsOfSet(session, set, 'retry');
  session.log.info(`Set ${set}: ${posts.length} posts (${posts.map((p) => p.post_id).join(', ')}); retrying what failed in each.`);
  const out: RetrySet = { set, retries: [] };
  for (const p of posts) {
    const entry: RetrySet['retries'][number] = { of: p.post_id };
    out.retries.push(entry);
    try {
      entry.result = await one({ ...opts, postId: p.post_id });
    } catch (err) {
      // Ctrl-C and an unknown outcome stop the set: its line settles the rest.
      if (!(err instanceof VidpubError) || err instanceof InterruptedError || err instanceof OutcomeUnknownError) throw err;
      entry.error = err;
    }
  }
  const failed = out.retries.filter((r) => r.error);
  if (failed.length === 0) return out;
  const worst = failed.map((r) => r.error!).reduce((a, b) => (b.exitCode > a.exitCode ? b : a));
  const Ctor = worst.constructor as new (message: string, o: ConstructorParameters<typeof VidpubError>[1]) => VidpubError;
  const message = `${failed.length} of ${out.retries.length} posts of set ${set}: ${failed.map((r) => `${r.of}: ${r.error!.message}`).join('; ')}`;
  throw new Ctor(sanitize(message), { hint: failed.map((r) => r.error!.hint).filter(Boolean).join('\n') || undefined, data: out, cause: worst });
}

/** Said on stderr by `status` and `retry` of one post of a set: its siblings, and how to see or retry them together. */
export async function setNote(session: Session, postId: string): Promise<void> {
  const p = await session.journal?.find(postId).catch(() => undefined);
  if (!p?.set) return;
  const others = (await session.journal!.setPosts(p.set).catch(() => [])).filter((o) => o.post_id !== postId);
  if (others.length === 0) return;
  const names = (o: JournalPost) => o.destinations.map((d) => sanitize(d.name ?? d.id)).join(', ');
  session.log.info(
    `Post ${postId} is one of set ${p.set} (one command, a caption each); the others: ${others.map((o) => `${o.post_id} (${names(o)})`).join('; ')}. ` +
      `All of them: vidpub history; retry the set: vidpub retry ${p.set}`,
  );
}

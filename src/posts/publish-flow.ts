/**
 * `vidpub publish` (a draft now or later; a scheduled post moved or sent now)
 * and `vidpub status` (one look, or --wait to the end), after their flags are
 * parsed.
 */
import type { ApiClient } from '../api/client.js';
import type { Post } from '../api/types.js';
import { BlockedError } from '../errors.js';
import type { Session } from '../flows/session.js';
import { recordingEnd } from './journal-notes.js';
import { blockedCreate, blockedPost, dailyLimitError, isDailyLimit } from './outcome.js';
import { blockingIssues, namesOf, type PostResult } from './render.js';
import { whenLine } from './summary.js';
import { followPost } from './watch.js';
import type { ResolvedWhen } from './when.js';

export interface PublishOpts {
  postId: string;
  when: ResolvedWhen;
  wait: boolean;
  timeoutMs: number;
  zone: string;
}

export interface StatusOpts {
  postId: string;
  wait: boolean;
  timeoutMs: number;
  zone: string;
}

/** Names for the destinations of a post ("@vidpub.demo (tiktok)"); ids when the list cannot be read. */
async function destinationNames(client: ApiClient, signal: AbortSignal): Promise<Record<string, string>> {
  try {
    return namesOf(await client.listDestinations({ signal }));
  } catch {
    return {};
  }
}

export async function runPublish(opts: PublishOpts, session: Session): Promise<PostResult> {
  const client = await session.client();
  const { signal } = session;
  const names = await destinationNames(client, signal);
  session.log.info(`Publishing post ${opts.postId}: ${whenLine(opts.when)}`);
  if (opts.when.note) session.log.warn(opts.when.note);
  let post: Post;
  try {
    post = await client.publishPost(opts.postId, { publish_at: opts.when.publishAt }, { signal });
  } catch (err) {
    if (isDailyLimit(err)) {
      throw dailyLimitError(
        err,
        `post ${opts.postId} was not published and stays as it was (a draft stays a draft)`,
        `Publish it after the reset (vidpub publish ${opts.postId}), add --wait-for-quota to wait for it, or schedule it for after the reset with --at.`,
        opts.zone,
        session.clock.now(),
      );
    }
    if (err instanceof BlockedError) {
      const current = await client.getPost(opts.postId, { signal }).catch(() => undefined);
      if (current) {
        await session.journal?.status(current, 'blocked');
        throw blockedPost({ post: current, names, zone: opts.zone }, 'published');
      }
      throw blockedCreate(err, names);
    }
    throw err;
  }
  const r: PostResult = { post, names, zone: opts.zone };
  return recordingEnd(
    session,
    async () => {
      if (blockingIssues(post.issues).length > 0 && post.status === 'draft') throw blockedPost(r, 'published');
      if (post.status === 'scheduled') return { ...r, headline: 'Scheduled.' };
      return followPost(session, client, { ...r, headline: 'Publishing.' }, opts);
    },
    post,
  );
}

export async function runStatus(opts: StatusOpts, session: Session): Promise<PostResult> {
  const client = await session.client();
  const { signal } = session;
  const post = await client.getPost(opts.postId, { signal });
  const r: PostResult = { post, names: await destinationNames(client, signal), zone: opts.zone };
  if (!opts.wait) {
    await session.journal?.status(post);
    return r;
  }
  if (post.status === 'draft') {
    await session.journal?.status(post);
    session.log.info(`Post ${post.id} is a draft: nothing to wait for. Publish it with: vidpub publish ${post.id}`);
    return r;
  }
  return recordingEnd(session, () => followPost(session, client, r, opts), post);
}

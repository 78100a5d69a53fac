/**
 * `vidpub publish` (a draft now or later; a scheduled post moved or sent now)
 * and `vidpub status` (one look, or --wait to the end), after their flags are
 * parsed.
 */
import type { ApiClient } from '../api/client.js';
import type { Post } from '../api/types.js';
import type { Invocation } from '../cli/command.js';
import { BlockedError } from '../errors.js';
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

export async function runPublish(opts: PublishOpts, inv: Invocation): Promise<PostResult> {
  const { ctx } = inv;
  const client = await inv.client();
  const names = await destinationNames(client, ctx.signal);
  inv.log.info(`Publishing post ${opts.postId}: ${whenLine(opts.when)}`);
  if (opts.when.note) inv.log.warn(opts.when.note);
  let post: Post;
  try {
    post = await client.publishPost(opts.postId, { publish_at: opts.when.publishAt }, { signal: ctx.signal });
  } catch (err) {
    if (isDailyLimit(err)) {
      throw dailyLimitError(
        err,
        `post ${opts.postId} was not published and stays as it was (a draft stays a draft)`,
        `Publish it after the reset (vidpub publish ${opts.postId}), add --wait-for-quota to wait for it, or schedule it for after the reset with --at.`,
        opts.zone,
        ctx.clock.now(),
      );
    }
    if (err instanceof BlockedError) {
      const current = await client.getPost(opts.postId, { signal: ctx.signal }).catch(() => undefined);
      if (current) throw blockedPost({ post: current, names, zone: opts.zone }, 'published');
      throw blockedCreate(err, names);
    }
    throw err;
  }
  const r: PostResult = { post, names, zone: opts.zone };
  if (blockingIssues(post.issues).length > 0 && post.status === 'draft') throw blockedPost(r, 'published');
  if (post.status === 'scheduled') return { ...r, headline: 'Scheduled.' };
  return followPost(inv, client, { ...r, headline: 'Publishing.' }, opts);
}

export async function runStatus(opts: StatusOpts, inv: Invocation): Promise<PostResult> {
  const { ctx } = inv;
  const client = await inv.client();
  const post = await client.getPost(opts.postId, { signal: ctx.signal });
  const r: PostResult = { post, names: await destinationNames(client, ctx.signal), zone: opts.zone };
  if (!opts.wait) return r;
  if (post.status === 'draft') {
    inv.log.info(`Post ${post.id} is a draft: nothing to wait for. Publish it with: vidpub publish ${post.id}`);
    return r;
  }
  return followPost(inv, client, r, opts);
}

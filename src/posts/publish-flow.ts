/**
 * `vidpub publish` (a draft now or later; a scheduled post moved or sent now)
 * and `vidpub status` (one look, or --wait to the end), after their flags are
 * parsed.
 */
import type { ApiClient } from '../api/client.js';
import type { Post } from '../api/types.js';
import { BlockedError, OutcomeUnknownError, TimeoutError } from '../errors.js';
import { bindDeadline, lookUp } from '../flows/deadline.js';
import type { Session } from '../flows/session.js';
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

/** Runs `fn` with the session bound to the command's deadline (--timeout), told in words when reached. */
async function withinTimeout<T>(outer: Session, timeoutMs: number, what: string, fn: (session: Session) => Promise<T>): Promise<T> {
  const bound = bindDeadline(outer, outer.clock.now() + timeoutMs, timeoutMs);
  try {
    return await fn(bound.session);
  } catch (err) {
    if (err instanceof TimeoutError && err.data === undefined) {
      throw new TimeoutError(`Stopped (--timeout reached) ${what}.`, { hint: 'Run the command again, with a longer --timeout.', cause: err });
    }
    throw err;
  } finally {
    bound.dispose();
  }
}

export async function runPublish(opts: PublishOpts, outer: Session): Promise<PostResult> {
  try {
    return await withinTimeout(outer, opts.timeoutMs, `before post ${opts.postId} was sent to publish; it stays as it was`, (session) => publishWithin(opts, session));
  } catch (err) {
    throw await settledPublish(outer, opts, err);
  }
}

/**
 * A publish cut off by the deadline, looked up (GET /posts/{id}): a post that
 * is no longer a draft was sent to publish, so the outcome is known (exit 7
 * with its record); otherwise it stays unknown.
 */
async function settledPublish(outer: Session, opts: PublishOpts, err: unknown): Promise<unknown> {
  if (!(err instanceof OutcomeUnknownError) || err.reason !== 'deadline') return err;
  const client = await outer.client();
  const post = await lookUp(outer, (signal) => client.getPost(opts.postId, { signal }));
  if (!post || post.status === 'draft') return err;
  const r: PostResult = { post, names: {}, zone: opts.zone };
  return new TimeoutError(`Stopped (--timeout reached): post ${post.id} was sent to publish (${post.status}); it goes on at the service.`, {
    hint: `Check on it later with: vidpub status ${post.id} --wait`,
    data: r,
    cause: err,
  });
}

async function publishWithin(opts: PublishOpts, session: Session): Promise<PostResult> {
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
    if (err instanceof OutcomeUnknownError) {
      throw err.retold(`The outcome is unknown: post ${opts.postId} may have been sent to publish; ${err.why}.`, {
        known: { post_id: opts.postId },
        hint: `See where it stands with: vidpub status ${opts.postId}`,
      });
    }
    if (err instanceof BlockedError) {
      const current = await client.getPost(opts.postId, { signal }).catch(() => undefined);
      if (current) throw blockedPost({ post: current, names, zone: opts.zone }, 'published');
      throw blockedCreate(err, names);
    }
    throw err;
  }
  const r: PostResult = { post, names, zone: opts.zone };
  if (blockingIssues(post.issues).length > 0 && post.status === 'draft') throw blockedPost(r, 'published');
  if (post.status === 'scheduled') return { ...r, headline: 'Scheduled.' };
  return followPost(session, client, { ...r, headline: 'Publishing.' }, opts);
}

export function runStatus(opts: StatusOpts, outer: Session): Promise<PostResult> {
  if (!opts.wait) return statusWithin(opts, outer);
  return withinTimeout(outer, opts.timeoutMs, `before post ${opts.postId} could be read`, (session) => statusWithin(opts, session));
}

async function statusWithin(opts: StatusOpts, session: Session): Promise<PostResult> {
  const client = await session.client();
  const { signal } = session;
  const post = await client.getPost(opts.postId, { signal });
  const r: PostResult = { post, names: await destinationNames(client, signal), zone: opts.zone };
  if (!opts.wait) return r;
  if (post.status === 'draft') {
    session.log.info(`Post ${post.id} is a draft: nothing to wait for. Publish it with: vidpub publish ${post.id}`);
    return r;
  }
  return followPost(session, client, r, opts);
}

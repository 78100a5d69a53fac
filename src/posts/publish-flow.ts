/**
 * `vidpub publish` (a draft now or later; a scheduled post moved or sent now),
 * after its flags are parsed; and withinTimeout, the command's deadline
 * (--timeout) that publish, status and retry all run within.
 */
import { responseMeta, type ApiClient } from '../api/client.js';
import type { Destination, Me, Post } from '../contract/wire-types.js';
import { BlockedError, CancelledError, ConflictError, InterruptedError, OutcomeUnknownError, RateLimitError, TimeoutError, VidpubError, sanitize } from '../errors.js';
import { QuotaWaitInterrupted } from '../api/send/rate-limit-wait.js';
import { bindDeadline, lookUp } from '../session/deadline.js';
import type { Session } from '../session/session.js';
import { recordingEnd } from './journal-notes.js';
import { ask, type DestinationPlan } from './options.js';
import { blockedCreate, blockedPost, dailyLimitError, isDailyLimit, resetText } from './settle.js';
import { blockingIssues, destinationLabel, namesOf, nextCommand, type PostResult } from './view.js';
import { dailySpendText, summaryLines, whenLine } from './summary.js';
import { wrapLine } from '../ui/wrap.js';
import { publishAtRefusal, refuse } from '../core/post-rules.js';
import { followPost } from './watch.js';
import type { ResolvedWhen } from '../time/parse-when.js';

export interface PublishOpts {
  postId: string;
  when: ResolvedWhen;
  /** --at as typed, for the commands suggested in messages. */
  atText?: string;
  /** --yes: no confirmation on a terminal. */
  yes?: boolean;
  wait: boolean;
  timeoutMs: number;
  zone: string;
}

/** exit 10: the post is neither a draft nor scheduled, so there is nothing to publish. */
function notPublishable(post: Pick<Post, 'id' | 'status'>, cause?: VidpubError): ConflictError {
  const state = sanitize(String(post.status));
  const what = state === 'completed' ? 'it has already been published (completed)' : state === 'publishing' ? 'it is being published right now' : `it is ${state}`;
  return new ConflictError(`Post ${post.id} cannot be published: ${what}; only a draft or a scheduled post can be.`, {
    hint: `See each destination with: vidpub status ${post.id}`,
    http: cause?.http,
    cause,
  });
}

/** The allowance line of the publish summary: what publishing spends of today's API posts. */
function allowanceLine(post: Post, me: Me | undefined, zone: string, now: number): string {
  if (post.status === 'scheduled') return 'none: it was counted when it was scheduled';
  return dailySpendText(me?.limits?.api_posts_per_day, zone, now);
}

/** On a terminal: what is about to be published, and a confirmation. Declining sends nothing. */
async function confirmPublish(opts: PublishOpts, session: Session, client: ApiClient, all: Destination[]): Promise<void> {
  const { signal } = session;
  const post = await client.getPost(opts.postId, { signal });
  if (post.status !== 'draft' && post.status !== 'scheduled') throw notPublishable(post);
  // Issues that block it: exit 8 at once with them, no question the answer to which cannot matter.
  if (blockingIssues(post.issues).length > 0) throw blockedPost({ post, names: namesOf(all), zone: opts.zone, now: session.clock.now() }, 'published');
  const [media, me] = await Promise.all([
    client.getMedia(post.media_id, { signal }).catch(() => undefined),
    client.getMe({ signal }).catch(() => undefined),
  ]);
  const plans: DestinationPlan[] = (post.destinations ?? []).map((d) => {
    const destination = all.find((x) => x.id === d.destination_id) ?? ({ id: d.destination_id } as Destination);
    return {
      name: destinationLabel(destination),
      destination,
      options: { options: [] } as unknown as DestinationPlan['options'],
      values: Object.entries(d.options ?? {}).map(([key, value]) => ({ key, label: key, value, source: 'flag' as const })),
      missing: [],
    };
  });
  const now = session.clock.now();
  const lines = summaryLines(
    {
      video: media ? `${media.filename ?? media.id} (video ${media.id})` : `video ${post.media_id}`,
      sizeBytes: media?.size_bytes ?? undefined,
      durationSec: media?.duration_sec ?? undefined,
      caption: post.caption ?? '',
      plans,
      when: opts.when,
      now,
      heading: `About to ${post.status === 'scheduled' ? (opts.when.now ? 'send now' : 'move') : 'publish'} ${post.id} (${sanitize(String(post.status))})`,
      allowance: allowanceLine(post, me, opts.zone, now),
    },
    session.screen.colors,
  );
  for (const line of lines) session.screen.write(wrapLine(line, session.screen.columns, 9, 9) + '\n');
  const prompter = await session.prompter();
  const message = post.status === 'scheduled' ? (opts.when.now ? 'Send it now?' : 'Move it to this time?') : opts.when.now ? 'Publish it now?' : 'Schedule it?';
  const cancelled = `Cancelled: post ${post.id} was not published; it is still ${sanitize(String(post.status))}.`;
  const yes = await ask(() => prompter.confirm({ message, default: true }), cancelled);
  if (!yes) throw new CancelledError(cancelled, { hint: `Publish it without the question: vidpub publish ${post.id}${opts.atText ? ` --at ${JSON.stringify(opts.atText)}` : ''} --yes` });
}

/** The daily allowance used up (exit 4), or Ctrl-C while --wait-for-quota waited for its reset (exit 130): the post stays as it was. */
function publishAllowanceStop(err: RateLimitError | QuotaWaitInterrupted, opts: PublishOpts, now: number): VidpubError {
  const outcome = `post ${opts.postId} was not published and stays as it was (a draft stays a draft)`;
  const hint = `Run "vidpub publish ${opts.postId}" again after the reset, or add --wait-for-quota to wait for it (scheduling with --at spends today's allowance too).`;
  if (err instanceof RateLimitError) return dailyLimitError(err, outcome, { hint }, opts.zone, now);
  return new InterruptedError(`Interrupted while waiting for the daily post allowance to reset; ${outcome}. It resets at ${resetText(err, opts.zone, now)}.`, { hint, cause: err });
}

/** Runs `fn` with the session bound to the command's deadline (--timeout), told in words when reached. */
export async function withinTimeout<T>(outer: Session, timeoutMs: number, what: string, fn: (session: Session) => Promise<T>): Promise<T> {
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
  const all = await client.listDestinations({ signal, cached: true }).catch(() => [] as Destination[]);
  const names = namesOf(all);
  if (session.interactive && !opts.yes) await confirmPublish(opts, session, client, all);
  session.log.info(`Publishing post ${opts.postId}: ${whenLine(opts.when, session.clock.now())}`);
  if (opts.when.note) session.log.warn(opts.when.note);
  // The time held to the service's range once more: it may have passed while the person read the summary.
  refuse(publishAtRefusal(opts.when.publishAt, session.clock.now(), '--at'));
  let post: Post;
  try {
    post = await client.publishPost(opts.postId, { publish_at: opts.when.publishAt }, { signal });
  } catch (err) {
    if (err instanceof VidpubError && err.http?.status === 409 && err.http.code !== 'post_has_blocking_issues' && err.http.code !== 'media_not_ready') {
      const current = await client.getPost(opts.postId, { signal }).catch(() => undefined);
      if (current && current.status !== 'draft' && current.status !== 'scheduled') throw notPublishable(current, err);
    }
    if (isDailyLimit(err) || err instanceof QuotaWaitInterrupted) throw publishAllowanceStop(err, opts, session.clock.now());
    if (err instanceof OutcomeUnknownError) {
      throw err.retold(`The outcome is unknown: post ${opts.postId} may have been sent to publish; ${err.why}.`, {
        known: { post_id: opts.postId },
        hint: `See where it stands with: vidpub status ${opts.postId}`,
      });
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
  const r: PostResult = { post, names, zone: opts.zone, now: session.clock.now() };
  return recordingEnd(
    session,
    async () => {
      if (blockingIssues(post.issues).length > 0 && post.status === 'draft') throw blockedPost(r, 'published');
      if (post.status === 'scheduled') return { ...r, headline: 'Scheduled.', next: nextCommand(post) };
      const startedNow = opts.when.now && responseMeta(post)?.replayed !== true;
      const followed = await followPost(session, client, { ...r, headline: 'Publishing.' }, { ...opts, startedNow });
      return { ...followed, now: session.clock.now() };
    },
    post,
  );
}

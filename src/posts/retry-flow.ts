/**
 * `vidpub retry POST_ID`: the same video, caption and options posted again,
 * as a new post, to the destinations of POST_ID that failed or were
 * cancelled (or --to some of them). Its Idempotency-Key comes from the
 * original post and the destination set, so running the retry again creates
 * nothing: the service replays it for 24 hours, the journal after that.
 */
import { createHash } from 'node:crypto';
import { responseMeta } from '../api/client.js';
import type { CreatePostRequest, Me, Post, PostDestination } from '../contract/wire-types.js';
import { BlockedError, InterruptedError, OutcomeUnknownError, UsageError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import type { JournalPost } from '../journal/journal-types.js';
import { recordingEnd } from './journal-notes.js';
import { ask } from './options.js';
import { resolveDestination } from './destinations.js';
import { blockedCreate, blockedPost, dailyLimitError, isDailyLimit } from './settle.js';
import { blockingIssues, failedDestinations, namesOf, type PostResult } from './view.js';
import { reportEarlier } from './rerun.js';
import { dailySpendText, whenLine } from './summary.js';
import { postRefusal, refuse } from '../core/post-rules.js';
import { followPost } from './watch.js';
import type { ResolvedWhen } from '../time/parse-when.js';
import { emitCreated } from '../events/post-events.js';

export interface RetryOpts {
  postId: string;
  /** --to: names of some of the failed destinations (empty: all of them). */
  to: string[];
  when: ResolvedWhen;
  yes: boolean;
  wait: boolean;
  timeoutMs: number;
  zone: string;
}

export type RetryResult = PostResult & { nothing?: boolean; retryOf: string };

/** The Idempotency-Key of a retry: the original post and the destinations retried. */
export function retryKey(postId: string, destinationIds: string[]): string {
  const ids = [...new Set(destinationIds)].sort().join(',');
  const key = `vidpub-retry:${postId}:${ids}`;
  return key.length <= 200 ? key : `vidpub-retry:${postId}:${createHash('sha256').update(ids).digest('hex').slice(0, 24)}`;
}

export async function runRetry(opts: RetryOpts, outer: Session): Promise<RetryResult> {
  // One deadline for the whole command (--timeout): the reads, the post and the wait.
  const { withinTimeout } = await import('./publish-flow.js');
  try {
    return await withinTimeout(outer, opts.timeoutMs, `before the retry of post ${opts.postId} was sent; nothing was posted`, (session) => retryWithin(opts, session));
  } catch (err) {
    if (!(err instanceof OutcomeUnknownError)) throw err;
    // Its key comes from the post and the destinations, so the same command settles it (it takes no --idempotency-key),
    // with the time it sent: a relative --at ("+2h") is another time on each run, and another body under the key.
    throw err.retold(`The outcome is unknown: the retry of post ${opts.postId} may have been created; ${err.why}.`, {
      rerunAsTyped: true,
      rerunFlags: opts.when.now ? {} : { '--at': opts.when.publishAt },
      hint: 'Run the same command again to settle it (the line below carries the time that was sent): a retry already made is reported, not made twice.',
    });
  }
}

/** One retry: what its steps share. */
interface RetryRun {
  opts: RetryOpts;
  session: Session;
  deadlineMs: number;
  original: Post;
  names: Record<string, string>;
}

async function retryWithin(opts: RetryOpts, session: Session): Promise<RetryResult> {
  const client = await session.client();
  const { signal, clock } = session;
  const deadlineMs = session.deadlineMs ?? clock.now() + opts.timeoutMs;
  const original = await readOriginal(opts.postId, session);
  const all = await client.listDestinations({ signal, cached: true }).catch(() => []);
  const run: RetryRun = { opts, session, deadlineMs, original, names: namesOf(all) };
  const nothing: RetryResult = { post: original, names: run.names, zone: opts.zone, nothing: true, retryOf: original.id };
  const failed = failedDestinations(original);
  if (failed.length === 0) {
    const total = original.destinations?.length ?? 0;
    session.log.info(
      `Post ${original.id} has no destination that failed or was cancelled (${total} destination${total === 1 ? '' : 's'}, post ${sanitize(String(original.status))}): nothing to retry, nothing was sent.`,
    );
    return nothing;
  }
  const todo = await leftToRetry(run, pick(failed, opts.to, all, run.names, original.id));
  if (todo.chosen.length === 0) {
    session.log.info(`Post ${original.id}: nothing to retry, nothing was sent.`);
    return nothing;
  }
  if (todo.earlier) return { ...(await reportRetried(run, todo.chosen, todo.key, todo.earlier)), retryOf: original.id };
  await confirmRetry(run, todo.chosen);
  const post = await createRetry(run, todo.chosen, todo.key);
  return { ...(await followRetry(run, post, todo.key)), retryOf: original.id };
}

async function readOriginal(postId: string, session: Session): Promise<Post> {
  try {
    return await (await session.client()).getPost(postId, { signal: session.signal });
  } catch (err) {
    const { journalKnows } = await import('./status-flow.js');
    throw await journalKnows(err, postId, session, 'retry');
  }
}

/**
 * The destinations still to retry and the key of their retry, with the
 * retry of them this machine's journal holds (any age), if any. A
 * destination an earlier retry of another set already posted to (retry --to
 * one, then retry) is not posted again: none left is nothing to retry.
 */
async function leftToRetry(run: RetryRun, picked: PostDestination[]): Promise<{ chosen: PostDestination[]; key: string; earlier?: JournalPost }> {
  const { session, original, names } = run;
  let chosen = picked;
  let key = retryKey(original.id, chosen.map((d) => d.destination_id));
  const earlier = await session.journal?.findByKey(key);
  if (earlier) return { chosen, key, earlier };
  const done = await retriedBefore(session, original.id);
  for (const d of chosen) {
    const by = done.get(d.destination_id);
    if (!by) continue;
    session.log.info(
      `${sanitize(names[d.destination_id] ?? d.destination_id)} was already retried as post ${by.post_id} on ${by.at} (this machine's journal): not posted again.` +
        (by.status === 'failed' || by.status === 'cancelled' ? ` It ${by.status} there too: vidpub retry ${by.post_id}` : ''),
    );
  }
  const left = chosen.filter((d) => !done.has(d.destination_id));
  if (left.length === 0 || left.length === chosen.length) return { chosen: left, key };
  chosen = left;
  key = retryKey(original.id, chosen.map((d) => d.destination_id));
  return { chosen, key, earlier: await session.journal?.findByKey(key) };
}

/** These destinations were retried before from this machine: that post is reported as it is now, nothing is created. */
async function reportRetried(run: RetryRun, chosen: PostDestination[], key: string, earlier: JournalPost): Promise<PostResult> {
  const { opts, session, original } = run;
  const message =
    `${chosen.length === 1 ? 'This destination' : 'These destinations'} of post ${original.id} ${chosen.length === 1 ? 'was' : 'were'} already retried ` +
    `as post ${earlier.post_id} on ${earlier.at} (this machine's journal): nothing new is created; reporting that post as it is now.` +
    (earlier.state === 'failed' ? ` It failed too: vidpub retry ${earlier.post_id}` : '');
  const client = await session.client();
  return reportEarlier(session, client, earlier, { key, wait: opts.wait, timeoutMs: opts.timeoutMs, deadlineMs: run.deadlineMs, zone: opts.zone, message });
}

/** What is retried and why it failed, when, and what it spends: asked on a terminal (without --yes), logged elsewhere. */
async function confirmRetry(run: RetryRun, chosen: PostDestination[]): Promise<void> {
  const { opts, session, original, names } = run;
  const lines = [`Retry of post ${original.id}: a new post of video ${sanitize(String(original.media_id))} with the same caption and options to:`];
  for (const d of chosen) {
    const why = d.failure?.message ? `: ${sanitize(d.failure.message)}${d.failure.code ? ` (${sanitize(d.failure.code)})` : ''}` : '';
    lines.push(`  ${sanitize(names[d.destination_id] ?? d.destination_id)}  ${d.status}${why}`);
  }
  lines.push(`When: ${whenLine(opts.when, session.clock.now())}`);
  lines.push(await allowanceLine(session, opts.zone));
  if (!session.interactive || opts.yes) {
    for (const line of lines) session.log.info(line);
    return;
  }
  for (const line of lines) session.screen.write(line + '\n');
  const prompter = await session.prompter();
  const yes = await ask(() => prompter.confirm({ message: opts.when.now ? 'Post it now?' : 'Schedule it?', default: true }));
  if (!yes) throw new InterruptedError('Cancelled: nothing was posted.');
}

/** The new post: the original's video, caption and options to the destinations chosen, under the retry's key. */
async function createRetry(run: RetryRun, chosen: PostDestination[], key: string): Promise<Post> {
  const { opts, session, original, names } = run;
  const { clock, signal } = session;
  const body: CreatePostRequest = {
    media_id: original.media_id,
    caption: original.caption ?? '',
    destinations: chosen.map((d) => ({ destination_id: d.destination_id, options: d.options ?? {} })),
    publish_at: opts.when.publishAt,
  };
  if (!opts.when.now && opts.when.ms <= clock.now()) throw new UsageError(`the time ${opts.when.local} for --at has passed; nothing was posted`);
  refuse(postRefusal(body, clock.now()));
  const client = await session.client();
  try {
    return await client.createPost(body, { idempotencyKey: key, signal });
  } catch (err) {
    if (isDailyLimit(err)) {
      throw dailyLimitError(err, 'no post was created', { hint: `Run "vidpub retry ${original.id}" again after the reset, or add --wait-for-quota to wait for it.` }, opts.zone, clock.now());
    }
    if (err instanceof BlockedError) throw blockedCreate(err, names);
    // The key of this retry was sent before with another body: only publish_at can differ (the rest comes from the post).
    if (err instanceof UsageError && err.http?.code === 'idempotency_key_reused') {
      const dests = chosen.map((d) => sanitize(names[d.destination_id] ?? d.destination_id)).join(', ');
      throw new UsageError(
        `an earlier retry of post ${original.id} to ${dests} was sent with another time and may have made a post (this machine's journal has none from it); nothing was posted now`,
        { hint: "Settle it with the command that retry's error gave (with the --at it sent); it reports the post if it was made.", http: err.http, cause: err },
      );
    }
    throw err;
  }
}

/** The journal told of the new post (a replayed one read as it is now first), then followed like post does. */
async function followRetry(run: RetryRun, created: Post, key: string): Promise<PostResult> {
  const { opts, session, original, names, deadlineMs } = run;
  const client = await session.client();
  let post = created;
  const replayed = responseMeta(post)?.replayed === true;
  if (replayed) {
    session.log.info(`Post ${post.id} was already created by an earlier retry of ${original.id}; reporting it.`);
    post = await client.getPost(post.id, { signal: session.signal });
  }
  await session.journal?.post({ post, names, idem: key, outcome: replayed ? 'replayed' : 'created', retryOf: original.id });
  emitCreated(session.events, post, names);
  const result: PostResult = { post, names, zone: opts.zone };
  return recordingEnd(
    session,
    async () => {
      if (blockingIssues(post.issues).length > 0) throw blockedPost(result, 'published');
      if (post.status === 'scheduled') return { ...result, headline: 'Scheduled.' };
      return followPost(session, client, { ...result, headline: 'Publishing.' }, { wait: opts.wait, timeoutMs: opts.timeoutMs, deadlineMs });
    },
    post,
  );
}

/** The destinations earlier retries of `postId` posted to, from this machine's journal: id → that retry post, its time and the destination's state there. */
async function retriedBefore(session: Session, postId: string): Promise<Map<string, { post_id: string; at: string; status?: string }>> {
  const done = new Map<string, { post_id: string; at: string; status?: string }>();
  const journal = session.journal;
  if (!journal) return done;
  // Newest first: the newest retry of a destination is the one to name.
  for (const retry of await journal.retriesOf(postId)) {
    for (const d of retry.destinations) if (!done.has(d.id)) done.set(d.id, { post_id: retry.post_id, at: retry.at, status: d.status });
  }
  return done;
}

/** The failed destinations --to names (all of them without --to). */
function pick(failed: PostDestination[], to: string[], all: Parameters<typeof namesOf>[0], names: Record<string, string>, postId: string): PostDestination[] {
  if (to.length === 0) return failed;
  const list = failed.map((d) => `${names[d.destination_id] ?? d.destination_id} (${d.status})`).join(', ');
  const out: PostDestination[] = [];
  for (const name of to) {
    // An id, @handle or platform, resolved as post --to does (an unknown name is refused there).
    const id = all.some((d) => d.id === name) || all.length === 0 ? name : resolveDestination(name, all).id;
    const d = failed.find((f) => f.destination_id === id);
    if (!d) {
      throw new UsageError(`${sanitize(name)} is not a destination of post ${postId} that failed or was cancelled`, {
        hint: `Its destinations to retry: ${sanitize(list)}.`,
      });
    }
    if (!out.includes(d)) out.push(d);
  }
  return out;
}

/** "Spends: 1 API post of 28 left today (of 30; resets …)", as publish says it. */
async function allowanceLine(session: Session, zone: string): Promise<string> {
  let daily: Me['limits']['api_posts_per_day'] | undefined;
  try {
    daily = (await (await session.client()).getMe({ signal: session.signal }))?.limits?.api_posts_per_day;
  } catch {
    // the post itself says when the allowance is used up
  }
  return `Spends: ${dailySpendText(daily, zone, session.clock.now())}`;
}

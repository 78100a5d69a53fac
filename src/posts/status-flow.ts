/**
 * `vidpub status` in its three forms: no id (the last post made from this
 * machine with this profile, from the journal), a video id (med_…: its
 * state, progress and error; --wait waits like upload does), or a post id
 * (one look, or --wait to the end).
 */
import type { ApiClient } from '../api/client.js';
import type { Media } from '../contract/wire-types.js';
import { InterruptedError, NotFoundError, TimeoutError, isDeadline, sanitize } from '../errors.js';
import { shellWord } from '../util/shell.js';
import type { Session } from '../session/session.js';
import { journalOff } from './history-flow.js';
import { withinTimeout } from './publish-flow.js';
import { namesOf, type PostResult } from './view.js';
import { postSettled } from '../contract/wire-types.js';
import { recordingEnd } from './journal-notes.js';
import { settle } from './settle.js';
import { followPost } from './watch.js';

export interface StatusOpts {
  postId: string;
  wait: boolean;
  timeoutMs: number;
  zone: string;
}

export type StatusTarget = { kind: 'last' } | { kind: 'media'; id: string } | { kind: 'post'; id: string };

export type StatusData = { kind: 'post'; result: PostResult } | { kind: 'media'; media: Media };

export interface AnyStatusOpts extends Omit<StatusOpts, 'postId'> {
  target: StatusTarget;
}

export async function runAnyStatus(opts: AnyStatusOpts, session: Session): Promise<StatusData> {
  const t = opts.target;
  if (t.kind === 'media') {
    return { kind: 'media', media: await withinTimeout(session, opts.timeoutMs, `before video ${t.id} could be read`, (bound) => mediaStatus(t.id, opts, bound)) };
  }
  const postId = t.kind === 'post' ? t.id : await lastPostId(session, 'status');
  try {
    return { kind: 'post', result: await runStatus({ ...opts, postId }, session) };
  } catch (err) {
    throw await journalKnows(err, postId, session);
  }
}

/** The last post made from this machine with this profile (the journal), for a command given no id (`status`, `open`); said on stderr. */
export async function lastPostId(session: Session, command: string): Promise<string> {
  if (!session.journal) throw journalOff(`vidpub ${command} without an id`);
  const last = await session.journal.lastPost();
  if (!last) {
    throw new NotFoundError(`no post made from this machine is in the journal (${session.journal.dir}) for this profile`, {
      hint: `Give the post id: vidpub ${command} POST_ID ("vidpub history --all-profiles" lists the posts of every profile).`,
    });
  }
  session.log.info(`The last post made here: ${last.post_id} (${last.at}).`);
  return last.post_id;
}

/** A post the service does not know (404) that this machine made: the error says what the journal remembers of it. */
export async function journalKnows(err: unknown, postId: string, session: Session, command = 'status'): Promise<unknown> {
  if (!(err instanceof NotFoundError) || !session.journal) return err;
  const p = await session.journal.find(postId).catch(() => undefined);
  if (!p) return err;
  const client = await session.client();
  const otherKey = p.base_url !== client.baseUrl || (p.key !== undefined && client.keyId !== undefined && p.key !== client.keyId);
  const known =
    `This machine's journal has it: made on ${p.at} with profile "${sanitize(p.profile)}"${p.workspace ? ` in workspace ${sanitize(p.workspace)}` : ''}, ` +
    `last seen ${p.state} on ${p.seen_at}`;
  const hint = otherKey
    ? `${known}, with another key or service than this one. Look with that profile: vidpub --profile ${shellWord(p.profile)} ${command} ${postId}`
    : `${known} (vidpub history --json for all it recorded). The service no longer has it: deleted in the web app, or dropped as an old finished post.`;
  return new NotFoundError(err.message, { hint, cause: err, ...(err.http ? { http: err.http } : {}) });
}

async function mediaStatus(id: string, opts: AnyStatusOpts, session: Session): Promise<Media> {
  const client = await session.client();
  const media = opts.wait ? await firstLook(session, (look) => client.getMedia(id, { signal: look }), `video ${id}`, `vidpub status ${id} --wait`) : await client.getMedia(id, { signal: session.signal });
  const { isMediaSettled, mediaFailedError, waitForMedia } = await import('../media/wait.js');
  if (!opts.wait) return media;
  if (isMediaSettled(media)) {
    if (media.status === 'failed') throw mediaFailedError(media);
    return media;
  }
  const progress = await session.progress();
  return waitForMedia(session, id, { deadlineMs: session.deadlineMs ?? session.clock.now() + opts.timeoutMs, progress, current: media });
}

/** Names for the destinations of a post ("@vidpub.demo (tiktok)"); ids when the list cannot be read. */
async function destinationNames(client: ApiClient, signal: AbortSignal): Promise<Record<string, string>> {
  try {
    return namesOf(await client.listDestinations({ signal, cached: true }));
  } catch {
    return {};
  }
}

export function runStatus(opts: StatusOpts, outer: Session): Promise<PostResult> {
  return withinTimeout(outer, opts.timeoutMs, `before post ${opts.postId} could be read`, (session) => statusWithin(opts, session));
}

async function statusWithin(opts: StatusOpts, session: Session): Promise<PostResult> {
  const client = await session.client();
  const { signal } = session;
  const post = opts.wait
    ? await firstLook(session, (look) => client.getPost(opts.postId, { signal: look }), `post ${opts.postId}`, `vidpub status ${opts.postId} --wait`)
    : await client.getPost(opts.postId, { signal });
  const r: PostResult = { post, names: await destinationNames(client, signal), zone: opts.zone, now: session.clock.now() };
  if (!opts.wait) {
    await session.journal?.status(post);
    // Over with a destination failed or cancelled: exit 6, as --wait and post end.
    return postSettled(post) ? settle(r) : r;
  }
  if (post.status === 'draft') {
    await session.journal?.status(post);
    session.log.info(`Post ${post.id} is a draft: nothing to wait for. Publish it with: vidpub publish ${post.id}`);
    return r;
  }
  return recordingEnd(session, () => followPost(session, client, r, opts), post);
}

/**
 * The first look of `status --wait`, riding out an outage until the deadline like every later look of the wait;
 * Ctrl-C says what it stopped waiting for (`what`) and the command (`again`) that looks again.
 */
export async function firstLook<T>(session: Session, fetch: (signal: AbortSignal) => Promise<T>, what: string, again: string): Promise<T> {
  const { readThrough } = await import('../api/wait/poll.js');
  const { signal, clock } = session;
  const cut = (err: unknown) => new TimeoutError('Stopped: the --timeout of the command was reached.', { cause: err });
  return readThrough<T>({
    fetch: ({ signal: look }) => fetch(look),
    clock,
    signal,
    deadlineMs: session.deadlineMs,
    onDeadline: cut,
    onStopped: (err) =>
      isDeadline(signal)
        ? cut(err)
        : new InterruptedError(`Interrupted: stopped waiting for ${what}; it goes on at the service.`, { hint: `Check on it later with: ${again}`, cause: err }),
  });
}

/**
 * wait_for_post of `vidpub mcp`: a post followed until every destination has ended, as `status --wait`
 * follows it (posts/watch.ts), with each change the event model sees (src/events/) told as an MCP
 * progress notification: `progress` is what has ended (the destinations, then the post), out of `total`
 * (the destinations plus the post), strictly increasing as the spec requires; `message` says it in words.
 */
import type { ApiClient } from '../api/client.js';
import type { Post } from '../contract/wire-types.js';
import type { ToolCallExtra } from '../contract/mcp-tools.js';
import { TimeoutError, sanitize } from '../errors.js';
import { createEmitter, type VidpubEvent } from '../events/event.js';
import { emitPost } from '../events/post-events.js';
import type { Session } from '../session/session.js';

/** The longest wait_for_post follows a post: within the 50 s an MCP client gives a call, with room to answer. */
export const WAIT_FOR_POST_MS = 45_000;

const ENDS = new Set(['post.destination.published', 'post.destination.failed', 'post.destination.cancelled']);

/** An event in words, for a progress notification's message. */
export function eventLine(e: VidpubEvent): string {
  const dest = sanitize(e.destination ?? e.destination_id ?? '');
  switch (e.type) {
    case 'post.destination.published':
      return `${dest}: published${e.url ? ` ${sanitize(e.url)}` : ''}`;
    case 'post.destination.failed':
      return `${dest}: failed${e.failure ? `: ${sanitize(e.failure.message)}` : ''}`;
    case 'post.destination.cancelled':
      return `${dest}: cancelled`;
    case 'post.completed':
      return `Post ${e.post_id}: published to every destination`;
    case 'post.failed':
      return `Post ${e.post_id}: done, a destination failed or was cancelled`;
    default:
      return `Post ${e.post_id}: ${sanitize(e.status ?? e.type)}`;
  }
}

/** A sink of events sending progress notifications for a post of `destinations` destinations. */
export function progressSink(notify: NonNullable<ToolCallExtra['progress']>, destinations: number): (e: VidpubEvent) => void {
  const total = destinations + 1;
  let ended = 0;
  let shown = -1;
  return (e) => {
    if (ENDS.has(e.type)) ended += 1;
    if (e.type === 'post.completed' || e.type === 'post.failed') ended = total;
    // Each notification carries a larger value than the one before, even for a change that ends nothing.
    const value = Math.max(Math.min(ended, total), Math.round((shown + 0.01) * 100) / 100);
    if (value > total) return;
    shown = value;
    notify(value, total, eventLine(e));
  };
}

/**
 * Follows post `postId` to its end (or WAIT_FOR_POST_MS), telling its changes through `extra.progress`
 * when the client asked for them; returns the post as it last was. A draft or a scheduled post is
 * returned at once: nothing is going out now.
 */
export async function waitForPostTool(session: Session, client: ApiClient, postId: string, extra: ToolCallExtra, profile: string): Promise<Post> {
  const { signal } = extra;
  const post = await client.getPost(postId, { signal });
  const [{ namesOf }, { waitForPost }, { postSettled }] = await Promise.all([import('../posts/view.js'), import('../posts/watch.js'), import('../contract/wire-types.js')]);
  const names = namesOf(await client.listDestinations({ signal, cached: true }).catch(() => []));
  const notify = extra.progress;
  const events = notify ? createEmitter({ profile, clock: session.clock, sink: progressSink(notify, post.destinations?.length ?? 0) }) : undefined;
  if (post.status === 'draft' || post.status === 'scheduled' || postSettled(post)) {
    emitPost(events, post, names);
    await session.journal?.status(post);
    return post;
  }
  emitPost(events, post, names);
  const deadlineMs = session.clock.now() + WAIT_FOR_POST_MS;
  try {
    const r = await waitForPost({ ...session, signal, events }, client, { post, names, zone: 'UTC' }, { deadlineMs });
    await session.journal?.status(r.post);
    return r.post;
  } catch (err) {
    // Its own time is up: the post as it is now (publishing), for the assistant to call again.
    const last = (err as { data?: { post?: Post } }).data?.post;
    if (err instanceof TimeoutError && last && !signal.aborted) return last;
    throw err;
  }
}

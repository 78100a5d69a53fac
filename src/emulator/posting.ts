/**
 * A post going out: the scheduler (emulator clock), the simulated posting to
 * each destination, and what the web app does to a post under way: cancel
 * (the post, or one destination) and retry a destination that failed. The
 * API and the web app share these; neither spends the daily allowance here
 * (posts.ts decides that before a post goes out).
 */
import { TERMINAL_DESTINATION_STATUSES, type Notice } from '../contract/wire-types.js';
import { serviceChars } from '../contract/service-rules.js';
import type { Core } from './core.js';
import { conflict, notFound } from './service-errors.js';
import type { DestinationState, MediaState, PostDestState, PostState } from './state.js';

/** A destination as messages name it: "@handle (platform)". */
export const who = (d: DestinationState): string => `${d.handle} (${d.platform})`;

/** Scheduled posts whose time has come (emulator clock) start publishing. */
export function releaseDuePosts(core: Core): number {
  const now = core.clock.now();
  let n = 0;
  for (const ws of core.state.workspaces.values()) {
    for (const p of ws.posts.values()) {
      if (p.status === 'scheduled' && p.dueAtMs !== null && p.dueAtMs <= now) {
        p.dueAtMs = null;
        goOut(core, p);
        n++;
      }
    }
  }
  return n;
}

function platformWarning(d: DestinationState, media: MediaState | undefined, caption: string): Notice | null {
  const notes: string[] = [];
  const codes: string[] = [];
  if (d.caption_max_length !== null && serviceChars(caption) > d.caption_max_length) {
    codes.push('caption_truncated');
    notes.push(`The caption was cut to ${d.caption_max_length} characters.`);
  }
  if (media && !d.video_limits.content_types.includes(media.content_type)) {
    codes.push('video_converted');
    notes.push(`The video was converted from ${media.content_type} to MP4.`);
  }
  return codes.length ? { code: codes[0]!, message: notes.join(' ') } : null;
}

/** One destination sent, after `delayMs`: published, or failed (inactive account, a destination_fail fault). */
function send(core: Core, post: PostState, pd: PostDestState, delayMs: number): void {
  pd.status = 'publishing';
  pd.failure = null;
  core.timers.after(delayMs, () => {
    if (pd.status !== 'publishing') return; // cancelled meanwhile
    const ws = core.state.workspace(post.workspaceId);
    const d = ws.destinations.get(pd.destination_id);
    if (!d || d.status !== 'active') {
      pd.status = 'failed';
      pd.failure = { code: 'destination_inactive', message: `${d ? who(d) : pd.destination_id} is ${d?.status ?? 'gone'}: reconnect it in the web app and post again.` };
    } else if (core.faults.destinationFails(d.id)) {
      pd.status = 'failed';
      pd.failure = { code: 'platform_rejected', message: `${d.platform} refused the video for ${d.handle}: the platform reported an error while publishing. Try again later.` };
    } else {
      pd.status = 'published';
      pd.url = `${core.origin}/_emulator/published/${post.id}/${d.id}`;
      pd.warning = platformWarning(d, ws.media.get(post.media_id), post.caption);
    }
    settle(post);
  });
}

export function goOut(core: Core, post: PostState): void {
  post.status = 'publishing';
  // Each destination takes publishMs, one after another, as --publish-ms says.
  post.destinations.forEach((pd, i) => {
    if (pd.status === 'pending') send(core, post, pd, core.settings.publishMs * (i + 1));
  });
  settle(post);
}

function settle(post: PostState): void {
  if (post.destinations.every((d) => TERMINAL_DESTINATION_STATUSES.includes(d.status))) post.status = 'completed';
}

function destinationOf(post: PostState, destinationId: string): PostDestState {
  const pd = post.destinations.find((d) => d.destination_id === destinationId);
  if (!pd) throw notFound('destination of the post', destinationId);
  return pd;
}

/**
 * The web app's cancel: the destinations not yet out (pending or publishing) become
 * cancelled, every one of them or only `destinationId`'s; a scheduled post whose
 * destinations are all cancelled no longer goes out. Published or failed ones stay.
 */
export function cancelPost(post: PostState, destinationId?: string): void {
  if (destinationId !== undefined) {
    const pd = destinationOf(post, destinationId);
    if (pd.status !== 'pending' && pd.status !== 'publishing') {
      throw conflict('destination_not_cancellable', `The post's destination ${destinationId} is ${pd.status}; only one still pending or publishing can be cancelled.`, { post_id: post.id });
    }
    pd.status = 'cancelled';
  } else {
    for (const d of post.destinations) {
      if (d.status === 'pending' || d.status === 'publishing') d.status = 'cancelled';
    }
  }
  if (post.destinations.every((d) => d.status !== 'pending')) post.dueAtMs = null;
  settle(post);
}

/** The web app's retry: a destination that failed or was cancelled is sent again (the post publishes again until it is out). */
export function retryDestination(core: Core, post: PostState, destinationId: string): void {
  const pd = destinationOf(post, destinationId);
  if (pd.status !== 'failed' && pd.status !== 'cancelled') {
    throw conflict('destination_not_retryable', `The post's destination ${destinationId} is ${pd.status}; only one that failed or was cancelled can be retried.`, { post_id: post.id });
  }
  if (post.status !== 'publishing' && post.status !== 'completed') {
    throw conflict('post_not_retryable', `The post is ${post.status}: ${post.status === 'draft' ? 'publish it' : 'it goes out at its time'}; a destination is retried once the post has gone out.`, { post_id: post.id });
  }
  post.status = 'publishing';
  post.dueAtMs = null;
  send(core, post, pd, core.settings.publishMs);
}

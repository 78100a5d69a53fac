/**
 * The events a look at a post tells (what `vidpub watch` and `status --wait` report): each destination
 * published, failed or cancelled, the post publishing, and the post's end (completed, or failed when a
 * destination failed or was cancelled). A look says all it sees; what was already reported is dropped by
 * the event ids (./event.ts), which are the same for the same change.
 */
import type { Media, Post } from '../contract/wire-types.js';
import type { EventEmitter, EventInput } from './event.js';

const ENDED: Record<string, EventInput['type'] | undefined> = {
  published: 'post.destination.published',
  failed: 'post.destination.failed',
  cancelled: 'post.destination.cancelled',
};

/** What a look at `post` tells, in order: the destinations' ends, then the post's. `names`: destination id -> "@handle (platform)". */
export function postEvents(post: Post, names: Readonly<Record<string, string>> = {}): EventInput[] {
  const out: EventInput[] = [];
  const base = { post_id: post.id, media_id: post.media_id };
  if (post.status === 'scheduled') out.push({ type: 'post.scheduled', ...base, status: post.status, publish_at: post.publish_at });
  if (post.status === 'publishing') out.push({ type: 'post.publishing', ...base, status: post.status });
  const dests = Array.isArray(post.destinations) ? post.destinations : [];
  for (const d of dests) {
    const type = d.status === undefined ? undefined : ENDED[d.status];
    if (!type) continue;
    const e: EventInput = { type, ...base, destination_id: d.destination_id, status: d.status };
    if (names[d.destination_id]) e.destination = names[d.destination_id];
    if (d.url) e.url = d.url;
    if (d.warning) e.warning = { code: d.warning.code, message: d.warning.message };
    if (d.failure) e.failure = { code: d.failure.code, message: d.failure.message };
    out.push(e);
  }
  const all = dests.length > 0 && dests.every((d) => d.status !== undefined && ENDED[d.status] !== undefined);
  if (post.status === 'completed' || all) {
    const bad = dests.some((d) => d.status === 'failed' || d.status === 'cancelled');
    out.push({ type: bad ? 'post.failed' : 'post.completed', ...base, status: 'completed' });
  }
  return out;
}

/** Tells what a look at a post shows (the emitter drops what it already told). */
export function emitPost(events: EventEmitter | undefined, post: Post, names?: Readonly<Record<string, string>>): void {
  if (!events) return;
  for (const e of postEvents(post, names)) events.emit(e);
}

/** A post the service has just created: post.created, then what its record shows (scheduled...). */
export function emitCreated(events: EventEmitter | undefined, post: Post, names?: Readonly<Record<string, string>>): void {
  if (!events) return;
  events.emit({ type: 'post.created', post_id: post.id, media_id: post.media_id, status: post.status, publish_at: post.publish_at });
  emitPost(events, post, names);
}

const MEDIA: Record<string, EventInput['type'] | undefined> = { processing: 'media.processing', ready: 'media.ready', failed: 'media.failed', uploading: 'media.uploading' };

/** A video's state as a flow saw it: media.ready, media.failed, media.processing (with its percent when known). */
export function mediaEvent(media: Media): EventInput | undefined {
  const type = MEDIA[String(media.status)];
  if (!type) return undefined;
  const e: EventInput = { type, media_id: media.id, status: String(media.status) };
  if (typeof media.progress?.percent === 'number') e.progress = Math.max(0, Math.min(100, media.progress.percent));
  if (media.error) e.failure = { code: media.error.code ?? 'failed', message: media.error.message };
  return e;
}

/** Tells a video's state (./progress-events.ts paces the progress of one that is not through). */
export function emitMedia(events: EventEmitter | undefined, media: Media): void {
  const e = events && mediaEvent(media);
  if (e) events.emit(e);
}

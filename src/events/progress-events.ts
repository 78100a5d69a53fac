/**
 * Progress events (media.uploading, media.processing) at the pace an --events reader can take: the first
 * of a video's phase at once, then one each time the percent has moved on 5 points, or a second (on the
 * session's clock) has passed and it moved at all. Whatever the upload reports (every chunk of bytes), at
 * most 21 + one a second reach the reader. Other events pass through unchanged.
 */
import type { Clock } from '../core/clock.js';
import { percentSent } from '../util/bytes.js';
import type { EventEmitter, EventInput } from './event.js';

/** Points of progress between two events of the same phase. */
export const PROGRESS_STEP = 5;
/** Or this much time, when it moved less. */
export const PROGRESS_EVERY_MS = 1000;

export type ProgressTeller = (e: EventInput) => void;

/** A teller of `events` that paces its progress events (absent events: tells nothing). */
export function pacedProgress(events: EventEmitter | undefined, clock: Pick<Clock, 'now'>): ProgressTeller {
  if (!events) return () => {};
  const last = new Map<string, { pct: number | undefined; at: number }>();
  return (e) => {
    if (e.type !== 'media.uploading' && e.type !== 'media.processing') {
      events.emit(e);
      return;
    }
    const key = `${e.type} ${e.media_id ?? ''}`;
    const before = last.get(key);
    const now = clock.now();
    if (before) {
      const moved = e.progress !== undefined && before.pct !== undefined ? e.progress - before.pct : 0;
      if (moved <= 0) return;
      if (moved < PROGRESS_STEP && now - before.at < PROGRESS_EVERY_MS) return;
    }
    last.set(key, { pct: e.progress, at: now });
    events.emit(e);
  };
}

/** media.uploading of a video `sent` bytes of `size` into its upload. */
export function uploadingEvent(mediaId: string, sent: number, size: number): EventInput {
  return { type: 'media.uploading', media_id: mediaId, status: 'uploading', progress: percentSent(sent, size) };
}

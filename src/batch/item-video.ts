/** The video of a batch item against each of its destinations (plan.ts): duration (src/core/post-rules.ts), size, type. */
import { sanitize } from '../errors.js';
import { tooLongFor } from '../core/post-rules.js';
import type { DestinationPlan } from '../posts/options.js';
import { destinationLabel } from '../posts/view.js';
import { formatDuration } from '../time/duration.js';
import type { Media } from '../contract/wire-types.js';
import type { LocalVideo } from './plan-local.js';

/** An item's video once the service has been asked: a file, a link, or the video named by id as the service has it. */
export type ItemVideo = Exclude<LocalVideo, { kind: 'media' }> | { kind: 'media'; id: string; media: Media };

/** The video against each destination: duration (src/core/post-rules.ts), size, type. */
export function checkVideo(video: ItemVideo, plans: DestinationPlan[], add: (message: string) => void): void {
  const durationSec = video.kind === 'file' ? video.durationSec : video.kind === 'media' ? video.media.duration_sec : undefined;
  const size = video.kind === 'file' ? video.file.size : video.kind === 'media' ? video.media.size_bytes ?? undefined : undefined;
  const type = video.kind === 'file' ? video.file.contentType : video.kind === 'media' ? video.media.content_type : undefined;
  for (const t of tooLongFor(durationSec, plans)) {
    add(`the video is ${formatDuration(durationSec! * 1000)} long; ${destinationLabel(t.destination.destination)} takes at most ${formatDuration(t.maxSec * 1000)}`);
  }
  for (const p of plans) {
    const maxSize = p.destination.video_limits?.max_size_bytes;
    if (size !== undefined && typeof maxSize === 'number' && size > maxSize) {
      add(`the video is ${size.toLocaleString('en-US')} bytes; ${destinationLabel(p.destination)} takes at most ${maxSize.toLocaleString('en-US')}`);
    }
    const types = p.destination.video_limits?.content_types;
    if (type && Array.isArray(types) && types.length > 0 && !types.includes(type)) {
      add(`${destinationLabel(p.destination)} does not take ${sanitize(type)} video (it takes ${types.join(', ')})`);
    }
  }
}


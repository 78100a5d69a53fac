/**
 * The import flow: POST /media/imports (the service downloads the link in
 * the background), then (optionally) wait until ready. A 429
 * imports_in_flight is waited out by the client within --max-wait, with a
 * notice; past it, RateLimitError (exit 4).
 */
import type { Media } from '../api/types.js';
import { InterruptedError, isInterruption } from '../errors.js';
import { stepKey, type Session } from '../flows/session.js';
import { silentProgress } from '../ui/progress.js';
import { checkImportUrl } from './import-url.js';
import { noteWait } from './upload.js';
import { waitForMedia, type MediaFlowOptions } from './wait.js';

export interface ImportLinkOptions extends MediaFlowOptions {
  /** The name the video gets at the service (default: the link's file name). */
  filename?: string;
}

/**
 * Imports a video from an https link straight to the file. Checks the link
 * first (UsageError, exit 2, no request); returns the media record
 * (downloading with `wait: false`, ready otherwise).
 */
export async function importLink(session: Session, url: string, opts: ImportLinkOptions): Promise<Media> {
  const link = checkImportUrl(url);
  const client = await session.client();
  const signal = opts.signal ? AbortSignal.any([session.signal, opts.signal]) : session.signal;
  const progress = opts.progress ?? silentProgress;
  let media: Media;
  try {
    media = await client.createImport(
      { url: link.url, ...(opts.filename ? { filename: opts.filename } : {}) },
      { idempotencyKey: stepKey(opts.idempotencyBase, 'import'), signal },
    );
  } catch (err) {
    if (isInterruption(err, signal)) {
      throw new InterruptedError('Interrupted while starting the import.', { cause: err });
    }
    throw err;
  }
  opts.onMedia?.(media);
  const note = async (m: Media, outcome: string) => session.journal?.media({ media: m, link: link.url, idem: opts.idempotencyBase, outcome });
  if (!opts.wait || media.status === 'ready') {
    progress.stop();
    await note(media, String(media.status));
    return media;
  }
  return noteWait(media, () => waitForMedia(session, media.id, { deadlineMs: opts.deadlineMs, signal, progress, current: media }), note);
}

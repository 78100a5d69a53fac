/**
 * The import flow: POST /media/imports (the service downloads the link in
 * the background), then (optionally) wait until ready. A 429
 * imports_in_flight is waited out by the client within --max-wait, with a
 * notice; past it, RateLimitError (exit 4).
 */
import type { Media } from '../contract/wire-types.js';
import { InterruptedError, OutcomeUnknownError, TimeoutError, isInterruption } from '../errors.js';
import { bindDeadline } from '../session/deadline.js';
import { runKey } from '../session/run-key.js';
import { stepKey, type Session } from '../session/session.js';
import { silentProgress } from '../ui/progress.js';
import { checkImportUrl } from './import-url.js';
import { noteWait } from './upload-flow.js';
import { waitForMedia, type MediaFlowOptions } from './wait.js';
import { withLinkedSignal } from '../util/any-signal.js';
import { emitMedia } from '../events/post-events.js';

export interface ImportLinkOptions extends MediaFlowOptions {
  /** The name the video gets at the service (default: the link's file name). */
  filename?: string;
}

/**
 * Imports a video from an https link straight to the file. Checks the link
 * first (UsageError, exit 2, no request); returns the media record
 * (downloading with `wait: false`, ready otherwise).
 */
export async function importLink(outer: Session, url: string, opts: ImportLinkOptions): Promise<Media> {
  const link = checkImportUrl(url);
  const bound = bindDeadline(outer, opts.deadlineMs);
  try {
    return await importWithin(bound.session, link, opts);
  } finally {
    bound.dispose();
  }
}

async function importWithin(session: Session, link: { url: string }, opts: ImportLinkOptions): Promise<Media> {
  // Its own signal follows the session's and the caller's until it ends (util/any-signal.ts).
  return withLinkedSignal([session.signal, opts.signal], (signal) => importWithinLinked(session, link, opts, signal));
}

async function importWithinLinked(session: Session, link: { url: string }, opts: ImportLinkOptions, signal: AbortSignal): Promise<Media> {
  const base = opts.idempotencyBase ?? runKey(undefined).key;
  const client = await session.client();
  const progress = opts.progress ?? silentProgress;
  let media: Media;
  try {
    media = await client.createImport(
      { url: link.url, ...(opts.filename ? { filename: opts.filename } : {}) },
      { idempotencyKey: stepKey(base, 'import'), signal },
    );
  } catch (err) {
    if (err instanceof OutcomeUnknownError) {
      throw err.retold(`The outcome is unknown: the import of ${link.url} may have been started at the service; ${err.why}.`, {
        idempotencyKey: base,
        hint: 'Run the same command again with this --idempotency-key: an import already started is reported, not started twice.',
      });
    }
    if (err instanceof TimeoutError) {
      throw new TimeoutError('Stopped (--timeout reached) before the import was accepted; nothing was imported.', { hint: 'Run the command again, with a longer --timeout.', cause: err });
    }
    if (isInterruption(err, signal)) {
      throw new InterruptedError('Interrupted while starting the import.', { cause: err });
    }
    throw err;
  }
  opts.onMedia?.(media);
  const note = async (m: Media, outcome: string) => {
    await session.journal?.media({ media: m, link: link.url, idem: opts.idempotencyBase, outcome });
    emitMedia(session.events, m);
  };
  if (!opts.wait || media.status === 'ready') {
    progress.stop();
    await note(media, String(media.status));
    return media;
  }
  return noteWait(media, () => waitForMedia(session, media.id, { deadlineMs: opts.deadlineMs, signal, progress, current: media, postLine: opts.postLine }), note);
}

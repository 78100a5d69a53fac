/**
 * The upload flow (contract rule 2): POST /media/uploads, PUT the bytes to
 * upload.url, POST /media/{id}/complete, then (optionally) wait until ready.
 * `vidpub upload` and `vidpub post FILE` both run it.
 */
import { responseMeta } from '../api/client.js';
import { createDebugLogger } from '../api/send/debug.js';
import type { CreateUploadResponse, Media } from '../contract/wire-types.js';
import { putFile, UploadFailedError, UploadLinkRefusedError } from '../api/upload/put-file.js';
import { InterruptedError, OutcomeUnknownError, ServiceError, TimeoutError, VidpubError, isInterruption } from '../errors.js';
import { interruptibleSleep } from '../api/send/backoff.js';
import { bindDeadline, lookUp, withGrace } from '../session/deadline.js';
import { runKey } from '../session/run-key.js';
import { stepKey, type Session } from '../session/session.js';
import { outcomeOfError } from '../journal/error-outcome.js';
import { silentProgress } from '../ui/progress.js';
import { formatDuration } from '../time/duration.js';
import { fileIdentity, type VideoFile } from './check.js';
import { lookForContent, type UploadedMedia } from './reuse.js';
import { postItHint, waitForMedia, type MediaFlowOptions, type PostLine } from './wait.js';
import { withLinkedSignal } from '../util/any-signal.js';
import { emitMedia } from '../events/post-events.js';
import { pacedProgress, uploadingEvent } from '../events/progress-events.js';

/** New links we ask for when the storage refuses one (expired, used, tampered). */
const MAX_LINK_RENEWALS = 2;
/**
 * Once every byte has arrived, the complete still gets this long after Ctrl-C,
 * SIGTERM or the deadline: the upload is finished rather than left half-done.
 */
export const COMPLETE_GRACE_MS = 700;
/** While the link is in use by another upload: looks at the video this often, this many times, before sending once more. */
const IN_USE_LOOK_MS = 2_000;
const IN_USE_LOOKS = 3;

export interface UploadFileOptions extends MediaFlowOptions {
  /** Upload even when a ready video of the same content is known (reuse.ts). */
  reupload?: boolean;
}

/**
 * Uploads a checked file (see checkVideoFile) and returns its media record:
 * processing with `wait: false`, ready otherwise. Throws WorkFailedError
 * (exit 6), TimeoutError (exit 7), InterruptedError (exit 130, naming the
 * media id), UsageError (the file changed size, exit 2) or a client error.
 */
export async function uploadFile(outer: Session, file: VideoFile, opts: UploadFileOptions): Promise<UploadedMedia> {
  const bound = bindDeadline(outer, opts.deadlineMs);
  try {
    return await uploadWithin(bound.session, file, opts);
  } catch (err) {
    throw await settledComplete(outer, err, opts.postLine);
  } finally {
    bound.dispose();
  }
}

/**
 * A complete cut off by the deadline, looked up (GET /media/{id}): a video
 * past "uploading" was completed, so the outcome is known after all (exit 7
 * with the record); otherwise it stays unknown.
 */
async function settledComplete(outer: Session, err: unknown, postLine?: PostLine): Promise<unknown> {
  const id = err instanceof OutcomeUnknownError ? err.known.media_id : undefined;
  if (!id || !(err instanceof OutcomeUnknownError) || err.reason !== 'deadline') return err;
  const client = await outer.client();
  const media = await lookUp(outer, (signal) => client.getMedia(id, { signal }));
  if (!media || media.status === 'uploading') return err;
  const state = media.status === 'ready' ? 'is ready' : media.status === 'failed' ? 'failed' : 'was uploaded and is processing';
  return new TimeoutError(`Stopped (--timeout reached): video ${id} ${state}; it goes on at the service.`, { hint: postItHint(id, postLine), data: media, cause: err });
}

async function uploadWithin(session: Session, file: VideoFile, opts: UploadFileOptions): Promise<UploadedMedia> {
  // Its own signal follows the session's and the caller's until it ends (util/any-signal.ts).
  return withLinkedSignal([session.signal, opts.signal], (signal) => uploadWithinLinked(session, file, opts, signal));
}

async function uploadWithinLinked(session: Session, file: VideoFile, opts: UploadFileOptions, signal: AbortSignal): Promise<UploadedMedia> {
  const client = await session.client();
  const base = opts.idempotencyBase ?? runKey(undefined).key;
  const progress = opts.progress ?? silentProgress;
  const look = await lookForContent(session, file, { reupload: opts.reupload, signal, progress, ownKey: opts.idempotencyBase });
  if (look.media) {
    // A ready video of the same content, used instead of sent: --events says it is ready.
    emitMedia(session.events, look.media);
    return look.media;
  }
  /** The fingerprint the PUT took of the bytes it sent. */
  let sha256: string | undefined;
  const debug = createDebugLogger({ out: session.debugOut, now: () => session.clock.now() });
  const request = { filename: file.filename, size_bytes: file.size, content_type: file.contentType };

  let media: Media | undefined;
  let sent = 0;
  /** The video in the local journal, with how this flow ended for it. */
  const note = async (m: Media | undefined, outcome: string) => {
    const content = look.content && { ...look.content, ...(sha256 ? { sha256 } : {}), fileId: fileIdentity(file) };
    if (m) await session.journal?.media({ media: m, file: file.path, size: file.size, idem: opts.idempotencyBase, outcome, ...(content ? { content } : {}) });
    if (m) emitMedia(session.events, m);
  };
  const create = async (step: string): Promise<{ res: CreateUploadResponse; replayed: boolean }> => {
    const res = await client.createUpload(request, { idempotencyKey: stepKey(base, step), signal });
    const replayed = responseMeta(res)?.replayed === true;
    media = res.media;
    opts.onMedia?.(res.media);
    return { res, replayed };
  };
  /** complete, or undefined when the service says the bytes have not all arrived. */
  const tryComplete = async (id: string): Promise<Media | undefined> => {
    try {
      return await client.completeUpload(id, { signal });
    } catch (err) {
      if (err instanceof VidpubError && err.http?.status === 409) return undefined;
      throw err;
    }
  };

  let inUseRounds = 0;
  // media.uploading from the bytes the PUT has sent, paced (events/progress-events.ts).
  const tell = pacedProgress(session.events, session.clock);
  try {
    let current = await create('upload');
    for (let round = 0; ; round++) {
      const { res, replayed } = current;
      let m = res.media;
      // A replayed create (a rerun) may be past uploading already: nothing to send, nothing to complete.
      if (replayed || m.status !== 'uploading') m = await client.getMedia(m.id, { signal });
      media = m;
      if (m.status !== 'uploading') break;
      try {
        progress.startBytes(`Uploading ${file.filename}`, file.size);
        tell(uploadingEvent(m.id, 0, file.size));
        const put = await putFile({
          fingerprint: look.content !== undefined,
          target: res.upload,
          path: file.path,
          name: file.filename,
          size: file.size,
          clock: session.clock,
          signal,
          debug,
          net: client.net,
          onProgress: (n) => {
            sent = n;
            progress.bytes(n);
            tell(uploadingEvent(m.id, n, file.size));
          },
          onRetry: ({ attempt, reason, delayMs }) => progress.note(`Upload interrupted (${reason}); sending it again from the start in ${formatDuration(delayMs)} (attempt ${attempt}).`),
        });
        sha256 = put.fingerprint;
        // Every byte arrived: the complete is sent even if Ctrl-C or the deadline comes now.
        const grace = withGrace(signal, COMPLETE_GRACE_MS);
        try {
          media = await client.completeUpload(m.id, { idempotencyKey: stepKey(base, `complete:${m.id}`), signal: grace.signal, signalOnly: true });
        } finally {
          grace.dispose();
        }
        break;
      } catch (err) {
        if (!(err instanceof UploadLinkRefusedError)) throw err;
        if (err.inUse) {
          // Not a dropped connection: another upload to this very link is being received (another run with this
          // --idempotency-key, or an attempt of ours the storage has not let go yet). Wait for it; do not send again.
          progress.note(`The upload link of video ${m.id} is in use by another upload; waiting for it rather than sending the file again.`);
          for (let look = 0; look < IN_USE_LOOKS; look++) {
            await interruptibleSleep(session.clock, IN_USE_LOOK_MS, signal);
            const now = await client.getMedia(m.id, { signal });
            if (now.status !== 'uploading') {
              media = now;
              break;
            }
          }
          if (media && media.status !== 'uploading') break;
          if (inUseRounds++ === 0) continue; // let go by now: send once more on the same link
          throw new ServiceError(`The upload link of video ${m.id} stayed in use by another upload; the file was not sent again.`, {
            hint: 'If another vidpub run with the same --idempotency-key is uploading this file, let it finish; otherwise run the command again.',
            data: media,
          });
        }
        // The bytes may be there already: the link was used, an earlier attempt sent them all, or this is a rerun.
        if (err.status === 409 || err.bytesMayHaveArrived || replayed) {
          const done = await tryComplete(m.id);
          if (done) {
            media = done;
            break;
          }
        }
        if (round >= MAX_LINK_RENEWALS) throw err;
        progress.note(`The upload link was refused (${err.message.replace(/^the upload link was refused: /, '')}); starting a new upload.`);
        current = await create(`upload:${round + 2}`);
      }
    }
  } catch (err) {
    progress.stop();
    await note(media, outcomeOfError(err, signal));
    if (err instanceof OutcomeUnknownError) {
      const id = media?.id;
      const what = id
        ? `video ${id} (${file.filename}) may or may not have been completed`
        : `the upload of ${file.filename} may have been created at the service`;
      throw err.retold(`The outcome is unknown: ${what}; ${err.why}.`, {
        idempotencyKey: base,
        known: id ? { media_id: id } : {},
        data: media,
        hint: 'Run the same command again with this --idempotency-key: what was done is reported, not done twice.',
      });
    }
    if (err instanceof TimeoutError) {
      const where = media
        ? `during the upload of ${file.filename} (video ${media.id}, ${file.size ? Math.floor((sent / file.size) * 100) : 0}% sent); it was not completed`
        : `before the upload of ${file.filename} started; nothing was uploaded`;
      // A video left "uploading" never becomes ready by itself: the rerun under this run's key finishes it.
      const hint = media
        ? `Run the same command again with --idempotency-key ${base} to finish video ${media.id} (a longer --timeout helps); without it the file is uploaded again as a new video.`
        : 'Run the command again, with a longer --timeout.';
      throw new TimeoutError(`Stopped (--timeout reached) ${where}.`, { hint, data: media, cause: err });
    }
    if (isInterruption(err, signal)) {
      const where = media
        ? `during the upload of ${file.filename} (video ${media.id}, ${file.size ? Math.floor((sent / file.size) * 100) : 0}% sent); it was not completed`
        : `before the upload of ${file.filename} started`;
      throw new InterruptedError(`Interrupted ${where}.`, { hint: 'Run the command again to upload the file.', data: media, cause: err });
    }
    if (err instanceof UploadFailedError && media) {
      // The video exists, "uploading": its id is printed (the record on stdout with --json) to look at it or post it once uploaded.
      throw new ServiceError(`${err.message.replace(/^the upload/, `the upload of ${file.filename} (video ${media.id})`).replace(/\.$/, '')}; the video stays "uploading".`, {
        hint: `Check your connection and run the command again; see the video with: vidpub status ${media.id}`,
        data: media,
        cause: err,
      });
    }
    throw err;
  }

  if (!opts.wait || media!.status === 'ready') {
    progress.stop();
    await note(media, String(media!.status));
    return media!;
  }
  return noteWait(media!, () => waitForMedia(session, media!.id, { deadlineMs: opts.deadlineMs, signal, progress, current: media, postLine: opts.postLine }), note);
}

/** Runs a wait for a video and notes how it ended (ready, failed, timeout, interrupted). */
export async function noteWait(media: Media, wait: () => Promise<Media>, note: (m: Media, outcome: string) => Promise<void>): Promise<Media> {
  try {
    const ready = await wait();
    await note(ready, String(ready.status));
    return ready;
  } catch (err) {
    const data = (err as { data?: unknown }).data as Media | undefined;
    await note(data && typeof data === 'object' && data.id ? data : media, outcomeOfError(err));
    throw err;
  }
}


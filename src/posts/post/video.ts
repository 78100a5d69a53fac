/**
 * The video of a post: the one given with --media read before anything is
 * sent, then uploaded, imported or waited for once the post is confirmed.
 */
import type { Media } from '../../api/wire-types.js';
import { InterruptedError, OutcomeUnknownError, VidpubError } from '../../errors.js';
import type { Session } from '../../session/session.js';
import { rerunLine, type PostOpts } from './types.js';
import type { PostRun, Ready } from './run.js';

/** The video given with --media, as the service has it (exit 1 when it failed there); undefined for a file or a link. */
export async function knownMedia(opts: PostOpts, session: Session): Promise<Media | undefined> {
  if (opts.source.kind !== 'media') return undefined;
  const client = await session.client();
  const known = await client.getMedia(opts.source.id, { signal: session.signal });
  if (known.status === 'failed') {
    const { mediaFailedError } = await import('../../media/wait.js');
    throw mediaFailedError(known);
  }
  return known;
}

/**
 * Uploads, imports or takes the video; waits until it is ready when `ready` is needed. A hint
 * after a stop names the command that posts the video where this run was to post it.
 */
export async function obtainMedia(run: PostRun, chosen: Ready, ready: boolean): Promise<Media> {
  const { session, deadlineMs, key } = run;
  const progress = await session.progress();
  const s = run.opts.source;
  const known = chosen.known;
  const postLine = (id: string) => rerunLine({ ...run.opts, source: { kind: 'media', id } }, chosen, chosen.caption);
  const common = { idempotencyBase: key.key, wait: ready, deadlineMs, progress, postLine };
  if (s.kind === 'file') {
    const { uploadFile } = await import('../../media/upload-flow.js');
    return uploadFile(session, s.file, common);
  }
  if (s.kind === 'url') {
    const { importLink } = await import('../../media/import-flow.js');
    return importLink(session, s.url, common);
  }
  const media = known!;
  if (!ready || media.status === 'ready') {
    progress.stop();
    return media;
  }
  const { waitForMedia } = await import('../../media/wait.js');
  return waitForMedia(session, media.id, { deadlineMs, progress, current: media, postLine });
}

/**
 * A refusal that comes after the video was uploaded names it, so the next
 * run posts it with --media instead of uploading it again.
 */
export function namingMedia(err: unknown, media: Media, uploaded: boolean): unknown {
  if (!uploaded || !(err instanceof VidpubError) || err instanceof OutcomeUnknownError || err instanceof InterruptedError) return err;
  if (err.message.includes(media.id) || err.hint?.includes(media.id)) return err;
  const Ctor = err.constructor as new (message: string, o: ConstructorParameters<typeof VidpubError>[1]) => VidpubError;
  const copy = new Ctor(`${err.message} (the video is uploaded: ${media.id}; post it with --media ${media.id})`, {
    hint: err.hint,
    data: err.data,
    http: err.http,
    cause: err,
  });
  return Object.assign(copy, { code: (err as { code?: unknown }).code, resetAt: (err as { resetAt?: unknown }).resetAt, retryAfterSec: (err as { retryAfterSec?: unknown }).retryAfterSec });
}

/**
 * Uploads by content: a file whose fingerprint (fingerprint.ts) is that of a
 * video this service and workspace still has ready is not sent again; its
 * media id is used (one GET /media/{id} says it is still there and ready).
 * One the service no longer knows (404) or that failed is forgotten in the
 * journal, said once, and the file is uploaded. Without a journal nothing is
 * looked up and no fingerprint is taken.
 */
import type { Media } from '../contract/wire-types.js';
import { VidpubError } from '../errors.js';
import type { Session } from '../session/session.js';
import type { Progress } from '../ui/progress.js';
import { fileIdentity, type VideoFile } from './check.js';
import { fileContent, sampleKey, type FileContent } from './fingerprint.js';

/** A media record as a flow returns it, with whether an earlier upload was used instead of sending the file. */
export type UploadedMedia = Media & { reused?: true };

export interface ContentLook {
  /** The ready video with this content, when there is one. */
  media?: UploadedMedia;
  /** What is known of the file's content (undefined when even its sampled blocks could not be read). */
  content?: FileContent;
}

/** The date a video was uploaded, for a line ("2026-11-20"). */
function day(iso: string | undefined): string {
  return iso && /^\d{4}-\d\d-\d\d/.test(iso) ? iso.slice(0, 10) : 'earlier';
}

/**
 * Finds a ready video of the same content, unless `reupload`. Reading the file
 * for its key or hash never fails the upload: it only goes without reuse.
 */
export async function lookForContent(
  session: Session,
  file: VideoFile,
  o: { reupload?: boolean; signal: AbortSignal; progress: Progress; ownKey?: string },
): Promise<ContentLook> {
  // No journal (--no-journal): nowhere to find a video by its content nor to keep the fingerprint, so none is taken.
  if (!session.journal) return {};
  let content: FileContent;
  let known: Awaited<ReturnType<typeof fileContent>>['known'] = [];
  try {
    if (o.reupload) content = { sample: await sampleKey(file.path, file.size) };
    else ({ content, known } = await fileContent(session.journal, file));
  } catch {
    return {};
  }
  if (!content.sha256) return { content };
  const client = await session.client();
  // A video this very command (or batch item) uploaded under its key is the only one it may take: its post's key was
  // sent with that video, and the service refuses the same key with another (a rerun of a batch whose items share a
  // file took another item's video, and its post was refused).
  const own = o.ownKey === undefined ? [] : known.filter((k) => k.idem === o.ownKey);
  for (const k of own.length > 0 ? own : known) {
    if (k.sha256 !== content.sha256) continue;
    let media: Media | undefined;
    try {
      media = await client.getMedia(k.media_id, { signal: o.signal });
    } catch (err) {
      if (!(err instanceof VidpubError && err.http?.status === 404)) throw err;
    }
    if (media?.status === 'ready') {
      o.progress.stop();
      o.progress.note(`uses video ${media.id} uploaded ${day(media.created_at ?? k.at)}; nothing to upload`);
      await session.journal?.media({ media, file: file.path, size: file.size, outcome: 'reused', content: { ...content, fileId: fileIdentity(file) } });
      return { media: { ...media, reused: true }, content };
    }
    if (media && media.status !== 'failed') continue; // still processing: not ready to be used, and not forgotten either
    const why = media ? 'failed at the service' : 'is no longer known to the service';
    o.progress.note(`Video ${k.media_id} (uploaded ${day(k.at)}, the same content) ${why}; uploading the file again.`);
    await session.journal?.media({ media: { id: k.media_id, status: media ? 'failed' : 'gone' }, file: file.path, size: file.size, outcome: 'forgotten', content });
  }
  return { content };
}

/**
 * The signed upload link the emulator serves itself:
 *   PUT {origin}/_uploads/<media id>?expires=<unix s>&sig=<hmac-sha256 hex>
 * Single use, expiring on the emulator clock, refused with an Authorization
 * header, a different Content-Type or a different byte count. The body is
 * streamed and counted (the first 256 KiB and a small tail are looked at for
 * an MP4/MOV `mvhd` duration); a file of up to 64 MB is kept for the web
 * app's player (video-store.ts: its bytes count against the store's total
 * while they arrive), a larger one is not kept.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { UploadTarget } from '../contract/wire-types.js';
import { IsoCache } from './offset-clock.js';
import type { Core } from './core.js';
import { ServiceError } from './service-errors.js';
import type { MediaState } from './state.js';
import type { VideoBytes } from './video-store.js';

export const UPLOAD_PATH_PREFIX = '/_uploads/';
/** Signed header the PUT must carry, like every header of upload.headers. */
export const UPLOAD_LENGTH_HEADER = 'X-Upload-Length';

const SNIFF_HEAD_BYTES = 256 * 1024;
const SNIFF_TAIL_CHUNKS = 16;

/** The expiry of the links made in the same second is formatted once. */
const expiresIso = new IsoCache();

function sign(core: Core, mediaId: string, expiresSec: number, contentType: string, size: number): string {
  return createHmac('sha256', core.secret).update(`${mediaId}\n${expiresSec}\n${contentType}\n${size}`).digest('hex');
}

/** Creates the signed link of a new upload (sets m.upload). */
export function uploadTarget(core: Core, m: MediaState): UploadTarget {
  const expiresSec = Math.floor(core.clock.now() / 1000) + core.settings.uploadLinkTtlSec;
  const sig = sign(core, m.id, expiresSec, m.content_type, m.size_bytes ?? 0);
  m.upload = { expiresAtSec: expiresSec, sig, state: 'open' };
  return {
    url: `${core.storageOrigin ?? core.origin}${UPLOAD_PATH_PREFIX}${encodeURIComponent(m.id)}?expires=${expiresSec}&sig=${sig}`,
    method: 'PUT',
    headers: { 'Content-Type': m.content_type, [UPLOAD_LENGTH_HEADER]: String(m.size_bytes) },
    expires_at: expiresIso.at(expiresSec * 1000),
  };
}

export interface UploadRequest {
  mediaId: string;
  expires: string | undefined;
  sig: string | undefined;
  headers: IncomingHttpHeaders;
  /** The raw body stream; undefined when the request has no body. */
  body: Readable | undefined;
}

export interface UploadOutcome {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** True when the body was not (fully) read: the connection must close after the response. */
  closeConnection: boolean;
}

function refuse(err: ServiceError, bodyUnread: boolean): UploadOutcome {
  return { status: err.status, body: err.toBody(), headers: err.headers, closeConnection: bodyUnread };
}

const invalidLink = (): ServiceError =>
  new ServiceError(403, 'upload_link_invalid', 'The upload link is not valid: it was changed, or it is not a link returned by POST /v1/media/uploads. Use upload.url exactly as returned.');

function headerValue(h: string | string[] | undefined): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

/** Checks the link and headers, then streams and counts the body. null = the client went away. */
export async function receiveUpload(core: Core, req: UploadRequest): Promise<UploadOutcome | null> {
  const hasBody = req.body !== undefined;
  if (req.headers.authorization !== undefined) {
    return refuse(new ServiceError(400, 'authorization_not_allowed', 'The upload link is already signed: send the file without an Authorization header (do not send the API key to upload.url).'), hasBody);
  }
  const m = core.state.findMedia(req.mediaId);
  const link = m?.upload;
  if (!m || !link || !req.expires || !req.sig || !/^\d+$/.test(req.expires) || !/^[0-9a-f]{64}$/.test(req.sig)) return refuse(invalidLink(), hasBody);
  const expected = Buffer.from(sign(core, m.id, Number(req.expires), m.content_type, m.size_bytes ?? 0), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(req.sig, 'hex')) || Number(req.expires) !== link.expiresAtSec) return refuse(invalidLink(), hasBody);
  if (core.clock.now() / 1000 > link.expiresAtSec) {
    return refuse(new ServiceError(403, 'upload_link_expired', `The upload link expired at ${new Date(link.expiresAtSec * 1000).toISOString()}. Start a new upload with POST /v1/media/uploads.`), hasBody);
  }
  if (link.state !== 'open' || m.status !== 'uploading') {
    const msg = link.state === 'receiving'
      ? 'Another upload to this link is in progress; an upload link takes one upload at a time.'
      : 'This upload link was already used: the file arrived. Call POST /v1/media/{id}/complete, or start a new upload.';
    return refuse(new ServiceError(409, 'upload_link_used', msg), hasBody);
  }
  const size = m.size_bytes ?? 0;
  const ct = headerValue(req.headers['content-type'])?.trim().toLowerCase();
  if (ct !== m.content_type) {
    return refuse(new ServiceError(400, 'content_type_mismatch', `Content-Type must be exactly "${m.content_type}" as returned in upload.headers${ct ? `, got "${ct}"` : ' (none was sent)'}.`), hasBody);
  }
  const declared = headerValue(req.headers[UPLOAD_LENGTH_HEADER.toLowerCase()]);
  if (declared === undefined) {
    return refuse(new ServiceError(400, 'missing_field', `Send every header of upload.headers as returned: ${UPLOAD_LENGTH_HEADER} is missing.`, { param: UPLOAD_LENGTH_HEADER }), hasBody);
  }
  if (declared.trim() !== String(size)) {
    return refuse(new ServiceError(400, 'size_mismatch', `${UPLOAD_LENGTH_HEADER} must be ${size} as returned in upload.headers, got "${declared}".`), hasBody);
  }
  const contentLength = headerValue(req.headers['content-length']);
  if (contentLength !== undefined && Number(contentLength) !== size) {
    return refuse(new ServiceError(400, 'size_mismatch', `The upload is ${contentLength} bytes but the video was declared as ${size} bytes (size_bytes). Send exactly the file that was declared.`), hasBody);
  }
  if (!req.body) {
    return refuse(new ServiceError(400, 'size_mismatch', `The upload had no body; ${size} bytes were expected.`), false);
  }

  link.state = 'receiving';
  m.receivedBytes = 0;
  const sniff = m.content_type === 'video/mp4' || m.content_type === 'video/quicktime';
  const result = await count(req.body, size, sniff, (n) => { m.receivedBytes = n; }, size <= core.videos.maxVideoBytes ? core.videos : null);
  if (m.upload !== link) return null; // emulator was reset meanwhile
  if (result.kind === 'aborted') {
    link.state = 'open';
    return null;
  }
  if (result.kind === 'overflow' || result.bytes !== size) {
    link.state = 'open';
    return refuse(
      new ServiceError(400, 'size_mismatch', `${result.kind === 'overflow' ? 'More than' : 'Only'} ${result.kind === 'overflow' ? size : result.bytes} bytes arrived but the video was declared as ${size} bytes (size_bytes). Send exactly the file that was declared.`),
      result.kind === 'overflow',
    );
  }
  link.state = 'used';
  m.bytesComplete = true;
  if (result.durationSec !== null) m.duration_sec = result.durationSec;
  if (result.kept) core.videos.keep(m.id, result.kept);
  return { status: 200, body: { media_id: m.id, received_bytes: result.bytes }, headers: {}, closeConnection: false };
}

type CountResult = { kind: 'end'; bytes: number; durationSec: number | null; kept: Buffer | null } | { kind: 'overflow' } | { kind: 'aborted' };

/**
 * Counts an upload's body as it arrives. `videos`: its bytes are kept for the player, each chunk
 * within the room the store gives (reserved as it arrives, given back when the upload ends); once
 * there is none, what was held is let go and nothing more is kept.
 */
function count(stream: Readable, limit: number, sniff: boolean, progress: (n: number) => void, videos: VideoBytes | null): Promise<CountResult> {
  // The client went away before the body was read (e.g. while a delay fault held the request):
  // the stream was destroyed and will emit nothing more, so waiting for it would hold the link for good.
  if (stream.destroyed) return Promise.resolve({ kind: 'aborted' });
  return new Promise((resolve) => {
    let bytes = 0;
    let settled = false;
    const head: Buffer[] = [];
    let headBytes = 0;
    const tail: Buffer[] = [];
    let all: Buffer[] = [];
    let keep = videos !== null;
    let reserved = 0;
    const letGo = (): void => {
      videos?.release(reserved);
      reserved = 0;
      all = [];
    };
    const settle = (r: CountResult): void => {
      if (settled) return;
      settled = true;
      stream.removeListener('data', onData);
      letGo();
      resolve(r);
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      progress(bytes);
      if (bytes > limit) {
        settle({ kind: 'overflow' });
        return;
      }
      if (keep && videos!.reserve(chunk.length)) {
        reserved += chunk.length;
        // A copy of its exact size: the chunk is a view of the socket's read buffer, which it would keep whole.
        all.push(Buffer.from(chunk));
      } else if (keep) {
        keep = false;
        letGo();
      }
      if (!sniff) return;
      if (headBytes < SNIFF_HEAD_BYTES) {
        head.push(chunk);
        headBytes += chunk.length;
      } else {
        tail.push(chunk);
        if (tail.length > SNIFF_TAIL_CHUNKS) tail.shift();
      }
    };
    stream.on('data', onData);
    stream.once('end', () => {
      let durationSec: number | null = null;
      if (sniff) durationSec = mvhdDuration(Buffer.concat(head)) ?? (tail.length ? mvhdDuration(Buffer.concat(tail)) : null);
      settle({ kind: 'end', bytes, durationSec, kept: keep ? Buffer.concat(all, bytes) : null });
    });
    stream.once('error', () => settle({ kind: 'aborted' }));
    stream.once('close', () => settle({ kind: 'aborted' }));
  });
}

/** Duration in seconds from the first plausible MP4/MOV `mvhd` box in buf, or null. */
export function mvhdDuration(buf: Buffer): number | null {
  for (let i = buf.indexOf('mvhd'); i >= 4; i = buf.indexOf('mvhd', i + 4)) {
    const boxSize = buf.readUInt32BE(i - 4);
    const version = buf[i + 4];
    let timescale: number;
    let duration: number;
    if (version === 0 && boxSize >= 108 && boxSize < 4096 && i + 24 <= buf.length) {
      timescale = buf.readUInt32BE(i + 16);
      duration = buf.readUInt32BE(i + 20);
      if (duration === 0xffffffff) continue;
    } else if (version === 1 && boxSize >= 120 && boxSize < 4096 && i + 36 <= buf.length) {
      timescale = buf.readUInt32BE(i + 24);
      duration = Number(buf.readBigUInt64BE(i + 28));
    } else {
      continue;
    }
    if (timescale > 0 && duration > 0) return Math.round((duration / timescale) * 100) / 100;
  }
  return null;
}

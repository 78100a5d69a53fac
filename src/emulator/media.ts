/**
 * Videos: upload creation, completion, imports from links, reads, and the
 * simulated background work (download, processing) with progress.
 */
import {
  EXTENSION_CONTENT_TYPES,
  IMPORTS_IN_FLIGHT_RETRY_AFTER_SEC,
  MAX_IMPORTS_IN_FLIGHT,
  SUPPORTED_CONTENT_TYPES,
} from '../contract/wire-types.js';
import { MAX_FILE_SIZE_BYTES, fileTooLargeWords } from '../contract/service-rules.js';
import type { Core } from './core.js';
import { ServiceError, badRequest, conflict, invalidField, missingField, notFound } from './service-errors.js';
import type { AuthContext } from './limits.js';
import { mediaRecord } from './records.js';
import { ok, type Result } from './result.js';
import { newId, type MediaState } from './state.js';
import { uploadTarget } from './uploads.js';
import { asObject, optionalString, requiredString } from './validate.js';
import { isPrivateHost, normaliseHost } from '../contract/addresses.js';
import { isIPv4 } from 'node:net';

/** Size an imported video gets when the link does not say (see docs/api-notes.md). */
export const IMPORT_DEFAULT_SIZE_BYTES = 10_000_000;
/** Duration an imported video gets when the link does not say. */
export const IMPORT_DEFAULT_DURATION_SEC = 30;

const CONTENT_TYPE_NAMES: Record<string, string> = {
  'video/mp4': 'MP4',
  'video/quicktime': 'MOV',
  'video/webm': 'WebM',
  'video/x-msvideo': 'AVI',
  'video/mp2t': 'MTS',
};

/** Sites whose links open a page that plays the video, never the file. */
const PAGE_HOSTS = [
  'youtube.com', 'youtu.be', 'vimeo.com', 'tiktok.com', 'instagram.com', 'facebook.com', 'fb.watch',
  'twitter.com', 'x.com', 'dailymotion.com', 'twitch.tv', 'loom.com',
];
/** A path segment like these means the server answers with a player page (checked during the download). */
const PAGE_SEGMENTS = ['watch', 'embed', 'player', 'share'];

function processingFailedMessage(): string {
  return 'The video could not be processed: the file is damaged or is not a video the service can read. Check that it plays on your computer, then upload it again.';
}

// ------------------------------------------------------------------ background steps

/** Runs a step of `totalMs` in 4 parts, reporting 0/25/50/75 percent, then calls done. */
function runStep(core: Core, totalMs: number, onPercent: (p: number) => void, done: () => void): void {
  onPercent(0);
  const parts = 4;
  for (let i = 1; i < parts; i++) core.timers.after((totalMs * i) / parts, () => onPercent((100 * i) / parts));
  core.timers.after(totalMs, done);
}

export function startProcessing(core: Core, m: MediaState): void {
  m.status = 'processing';
  m.phase = 'processing';
  runStep(core, core.settings.processingMs, (p) => { m.percent = p; }, () => {
    m.phase = null;
    if (core.faults.mediaFails(m.filename, m.importUrl)) {
      m.status = 'failed';
      m.error = { code: 'processing_failed', message: processingFailedMessage() };
      return;
    }
    m.status = 'ready';
    m.percent = 100;
  });
}

// ------------------------------------------------------------------ uploads

/** A new video in its first state: uploading (bytes or download still to come). */
function newMedia(
  core: Core,
  workspaceId: string,
  fields: Pick<MediaState, 'filename' | 'content_type' | 'size_bytes' | 'source' | 'phase' | 'importUrl'>,
): MediaState {
  return {
    id: newId('med'),
    workspaceId,
    status: 'uploading',
    // The fields one by one (not a spread in the middle of the literal, which V8 builds slowly).
    filename: fields.filename,
    content_type: fields.content_type,
    size_bytes: fields.size_bytes,
    source: fields.source,
    phase: fields.phase,
    importUrl: fields.importUrl,
    percent: 0,
    receivedBytes: 0,
    bytesComplete: false,
    error: null,
    duration_sec: null,
    created_at: core.clock.iso(),
    upload: null,
  };
}

export function createUpload(core: Core, auth: AuthContext, body: unknown): Result {
  const o = asObject(body);
  const filename = requiredString(o, 'filename', 'the name of the video file', 255);
  const size = o.size_bytes;
  if (size === undefined || size === null) throw missingField('size_bytes', 'the size of the file in bytes');
  if (typeof size !== 'number' || !Number.isInteger(size)) throw invalidField('size_bytes', 'size_bytes must be a whole number of bytes.');
  if (size < 1) throw invalidField('size_bytes', 'size_bytes must be at least 1: the file is empty.');
  if (size > MAX_FILE_SIZE_BYTES) {
    throw badRequest('file_too_large', `The file is ${fileTooLargeWords(size)}.`, 'size_bytes');
  }
  const rawType = requiredString(o, 'content_type', 'the video type, e.g. video/mp4', 255);
  const contentType = rawType.trim().toLowerCase();
  if (!(SUPPORTED_CONTENT_TYPES as readonly string[]).includes(contentType)) {
    const list = SUPPORTED_CONTENT_TYPES.map((t) => `${t} (${CONTENT_TYPE_NAMES[t]})`).join(', ');
    throw badRequest('unsupported_content_type', `Unsupported content type "${rawType}": use one of ${list}.`, 'content_type');
  }

  const m = newMedia(core, auth.workspace.id, {
    filename,
    content_type: contentType,
    size_bytes: size,
    source: 'upload',
    phase: 'uploading',
    importUrl: null,
  });
  const upload = uploadTarget(core, m);
  auth.workspace.media.set(m.id, m);
  return ok({ media: mediaRecord(m), upload }, 201);
}

export function completeUpload(core: Core, auth: AuthContext, id: string): Result {
  const m = auth.workspace.media.get(id);
  if (!m) throw notFound('video', id);
  if (m.source === 'upload' && m.status === 'uploading') {
    if (!m.bytesComplete) {
      const size = m.size_bytes ?? 0;
      const how = m.upload?.state === 'receiving'
        ? `the upload is still in progress (${m.receivedBytes} of ${size} bytes so far)`
        : `the file has not been sent to upload.url yet${m.receivedBytes > 0 ? ` (an earlier attempt stopped after ${m.receivedBytes} of ${size} bytes)` : ''}`;
      throw conflict('upload_incomplete', `Not all bytes of the file have arrived: ${how}. PUT the whole file to upload.url, then call complete again.`);
    }
    startProcessing(core, m);
  }
  // Already complete, processing, ready or failed, or an import: nothing to do; the video as it is.
  return ok(mediaRecord(m));
}

// ------------------------------------------------------------------ imports

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const matchesHost = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`);

function invalidUrl(message: string): ServiceError {
  return badRequest('invalid_url', message, 'url');
}

const DIRECT_LINK_HINT = 'It must be a direct link to the video file itself (ending in .mp4, .mov, .webm, .avi or .mts), not a page that plays it.';

/** The checks made when the import is requested (400 invalid_url). */
export function checkImportUrl(raw: string): { url: URL; extension: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalidUrl(`"${raw}" is not a valid link. ${DIRECT_LINK_HINT}`);
  }
  if (url.protocol !== 'https:') throw invalidUrl(`The link must use HTTPS (https://...), got ${url.protocol.replace(':', '')}. ${DIRECT_LINK_HINT}`);
  if (url.username || url.password) throw invalidUrl('The link must not contain a user name or password: it must be public.');
  const host = normaliseHost(url.hostname);
  if (isPrivateHost(host)) {
    // An IPv6 address that carries an IPv4 one is named by both.
    const shown = isIPv4(host) && host !== url.hostname ? `${url.hostname} (${host})` : url.hostname;
    throw invalidUrl(`The link must be public: ${shown} is a local or private address the service cannot reach.`);
  }
  const site = PAGE_HOSTS.find((d) => matchesHost(host, d));
  if (site) throw invalidUrl(`${site} links open a page that plays the video, not the video file. ${DIRECT_LINK_HINT}`);
  const last = safeDecode(url.pathname.split('/').pop() ?? '');
  const dot = last.lastIndexOf('.');
  const extension = dot > 0 ? last.slice(dot + 1).toLowerCase() : '';
  if (!EXTENSION_CONTENT_TYPES[extension]) {
    throw invalidUrl(`The link does not point to a video file${last ? ` ("${last}" is not an MP4, MOV, WebM, AVI or MTS file)` : ''}. ${DIRECT_LINK_HINT}`);
  }
  return { url, extension };
}

/** Why the simulated download fails, or null when it succeeds. */
function downloadFailure(url: URL): { code: string; message: string } | null {
  const host = normaliseHost(url.hostname);
  if (host === 'invalid' || host.endsWith('.invalid')) {
    return { code: 'download_failed', message: `The link could not be downloaded: the server ${host} was not found. Check that the link is public and opens the file itself.` };
  }
  const segments = url.pathname.toLowerCase().split('/');
  const dropboxPage = matchesHost(host, 'dropbox.com') && url.searchParams.get('dl') !== '1' && url.searchParams.get('raw') !== '1';
  if (dropboxPage || segments.some((s) => PAGE_SEGMENTS.includes(s))) {
    return {
      code: 'not_a_video_file',
      message: 'The link opened a web page (text/html), not a video file. Use a direct link to the file itself, not a page that plays it.',
    };
  }
  return null;
}

function hint(url: URL, name: string, max: number): number | null {
  const v = url.searchParams.get(name);
  if (v === null || !/^\d+(\.\d+)?$/.test(v)) return null;
  const n = Number(v);
  return n > 0 && n <= max ? n : null;
}

export function createImport(core: Core, auth: AuthContext, body: unknown): Result {
  const o = asObject(body);
  const raw = requiredString(o, 'url', 'a public HTTPS link straight to the video file', 2048);
  const filenameGiven = optionalString(o, 'filename', 255);
  const { url, extension } = checkImportUrl(raw);

  const ws = auth.workspace;
  const inFlight = [...ws.media.values()].filter((m) => m.source === 'import' && m.status === 'uploading').length;
  if (inFlight >= MAX_IMPORTS_IN_FLIGHT) {
    throw new ServiceError(
      429,
      'imports_in_flight',
      `${inFlight} imports are still downloading in this workspace; at most ${MAX_IMPORTS_IN_FLIGHT} may download at once. Retry in ${IMPORTS_IN_FLIGHT_RETRY_AFTER_SEC} s.`,
      { headers: { 'Retry-After': String(IMPORTS_IN_FLIGHT_RETRY_AFTER_SEC) } },
    );
  }

  const lastSegment = safeDecode(url.pathname.split('/').pop() ?? '');
  const m = newMedia(core, ws.id, {
    filename: filenameGiven?.trim() || lastSegment,
    content_type: EXTENSION_CONTENT_TYPES[extension]!,
    size_bytes: null,
    source: 'import',
    phase: 'downloading',
    importUrl: url.toString(),
  });
  ws.media.set(m.id, m);
  startDownload(core, m);
  return ok(mediaRecord(m), 201);
}

/** The simulated download of an import, then its processing (again after a restart, --state). */
export function startDownload(core: Core, m: MediaState): void {
  const url = new URL(m.importUrl!);
  runStep(core, core.settings.processingMs, (p) => { m.percent = p; }, () => {
    const failure = downloadFailure(url);
    if (failure) {
      m.status = 'failed';
      m.phase = null;
      m.error = failure;
      return;
    }
    m.size_bytes = hint(url, 'size_bytes', MAX_FILE_SIZE_BYTES) ?? IMPORT_DEFAULT_SIZE_BYTES;
    m.receivedBytes = m.size_bytes;
    m.bytesComplete = true;
    m.duration_sec = hint(url, 'duration_sec', 86_400) ?? IMPORT_DEFAULT_DURATION_SEC;
    startProcessing(core, m);
  });
}

export function getMedia(auth: AuthContext, id: string): Result {
  const m = auth.workspace.media.get(id);
  if (!m) throw notFound('video', id);
  return ok(mediaRecord(m));
}

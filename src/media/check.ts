/**
 * Local checks of a video file before anything is sent: it exists, is a
 * regular readable non-empty file of at most 1 GB, and is MP4, MOV, WebM, AVI
 * or MTS by its extension, confirmed by its leading bytes. Reads at most a few
 * hundred bytes of the file.
 */
import { basename, extname, resolve } from 'node:path';
import { closeFd, openForReading, readAt, realPath, statPath } from '../util/fs-calls.js';
import { UsageError } from '../errors.js';
import type { FileIdentity } from '../util/same-file.js';
import { NotRegularFileError, fileKind, unreadableFile } from '../util/user-file.js';
import { EXTENSION_CONTENT_TYPES, type SupportedContentType } from '../contract/wire-types.js';
import { MAX_FILE_SIZE_BYTES, fileTooLargeWords } from '../contract/service-rules.js';

export interface VideoFile {
  /** Absolute path. */
  path: string;
  size: number;
  /** When the file was last changed (epoch ms): a rerun on a changed file is another post. */
  mtimeMs?: number;
  /**
   * The file itself, however it was named (util/same-file.ts): its path with the symbolic links resolved,
   * and its device and inode (the same through a bind mount or a hard link).
   */
  real?: string;
  dev?: number;
  ino?: number;
  contentType: SupportedContentType;
  /** The name sent to the service (the file's base name). */
  filename: string;
}

/** Container families told apart by their leading bytes. */
export type Container = 'isobmff' | 'webm' | 'avi' | 'mpegts';

const CONTAINER_NAMES: Record<Container, string> = {
  isobmff: 'MP4/MOV',
  webm: 'WebM',
  avi: 'AVI',
  mpegts: 'MPEG transport stream (MTS)',
};

const EXTENSION_CONTAINERS: Record<string, Container> = {
  mp4: 'isobmff',
  m4v: 'isobmff',
  mov: 'isobmff',
  webm: 'webm',
  avi: 'avi',
  mts: 'mpegts',
  m2ts: 'mpegts',
};

export const SUPPORTED_FORMATS_TEXT = 'MP4, MOV, WebM, AVI or MTS';
const EXTENSIONS_TEXT = '.mp4, .mov, .webm, .avi or .mts';

/** QuickTime atoms an old .mov may start with instead of `ftyp`. */
const QUICKTIME_LEADING_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
const TS_PACKET = 188;
const SNIFF_BYTES = 4 + TS_PACKET * 4;

export interface Sniffed {
  container: Container;
  /** ISO BMFF only: the ftyp major brand, e.g. "isom", "qt  ". */
  brand?: string;
}

/** What the leading bytes of a file say it is, or undefined when they match no supported container. */
export function sniffContainer(head: Uint8Array): Sniffed | undefined {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp') {
    return { container: 'isobmff', brand: b.toString('latin1', 8, 12) };
  }
  if (b.length >= 8 && QUICKTIME_LEADING_ATOMS.has(b.toString('latin1', 4, 8)) && b.readUInt32BE(0) >= 8) {
    return { container: 'isobmff', brand: 'qt  ' };
  }
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return { container: 'webm' };
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'AVI ') {
    return { container: 'avi' };
  }
  if (looksLikeTransportStream(b, 0, TS_PACKET) || looksLikeTransportStream(b, 4, TS_PACKET + 4)) return { container: 'mpegts' };
  return undefined;
}

/** 0x47 sync byte at `first`, then every `stride` bytes, for every packet start the head holds. */
function looksLikeTransportStream(b: Buffer, first: number, stride: number): boolean {
  if (b.length <= first || b[first] !== 0x47) return false;
  let checked = 0;
  for (let i = first; i < b.length; i += stride) {
    if (b[i] !== 0x47) return false;
    checked++;
  }
  // One sync byte alone is a 1-in-256 coincidence; require two unless the file is a single packet.
  return checked >= 2 || b.length < first + stride;
}

function describeContent(b: Buffer): string | undefined {
  const s = sniffContainer(b);
  if (s) return `${CONTAINER_NAMES[s.container]} data`;
  if (b.length >= 4 && b.toString('latin1', 0, 4) === 'RIFF') return 'RIFF data that is not AVI';
  if (b.length >= 4 && b.toString('latin1', 0, 4) === '%PDF') return 'a PDF document';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'a JPEG image';
  if (b.length >= 8 && b.toString('latin1', 1, 4) === 'PNG') return 'a PNG image';
  if (b.length >= 4 && b.toString('latin1', 0, 4) === 'PK\u0003\u0004') return 'a ZIP archive';
  const text = b.toString('latin1');
  if (/^\s*<(!doctype html|html)/i.test(text)) return 'an HTML page';
  // eslint-disable-next-line no-control-regex
  if (b.length > 0 && !/[\u0000-\u0008\u000e-\u001f]/.test(text)) return 'text';
  return undefined;
}

/** Extension (lower case, no dot) of a file name or URL path. */
export function extensionOf(name: string): string {
  return extname(name).slice(1).toLowerCase();
}

export function isSupportedExtension(ext: string): boolean {
  return ext in EXTENSION_CONTAINERS;
}

/**
 * Checks a local video file; throws UsageError (exit 2) naming the reason.
 * The content type follows the content: an ISO BMFF file with the QuickTime
 * brand, or named .mov, is video/quicktime.
 */
export async function checkVideoFile(path: string, cwd?: string): Promise<VideoFile> {
  const abs = cwd ? resolve(cwd, path) : resolve(path);
  const shown = path;
  let st;
  try {
    st = await statPath(abs);
  } catch (err) {
    throw fileError(err, shown);
  }
  if (!st.isFile()) {
    const hint = st.isDirectory() ? 'Give the path of a video file.' : 'Give the path of a video file (not a device, pipe or socket).';
    throw new UsageError(unreadableFile(shown, new NotRegularFileError(shown, fileKind(st))), { hint });
  }

  const ext = extensionOf(abs);
  const expected = EXTENSION_CONTAINERS[ext];
  if (!expected) {
    throw new UsageError(
      ext ? `${shown}: unsupported file type ".${ext}"; the service accepts ${SUPPORTED_FORMATS_TEXT}` : `${shown} has no file extension; the service accepts ${SUPPORTED_FORMATS_TEXT}`,
      { hint: `Convert it, or rename it if it really is one of those (${EXTENSIONS_TEXT}).` },
    );
  }
  if (st.size === 0) throw new UsageError(`${shown} is empty (0 bytes)`);
  if (st.size > MAX_FILE_SIZE_BYTES) {
    throw new UsageError(`${shown} is too large: ${fileTooLargeWords(st.size)}`, {
      hint: 'Shorten or re-encode it to a lower bitrate.',
    });
  }

  let head: Buffer;
  try {
    const fd = await openForReading(abs);
    try {
      const buf = Buffer.alloc(Math.min(SNIFF_BYTES, st.size));
      head = buf.subarray(0, await readAt(fd, buf, buf.length, 0));
    } finally {
      await closeFd(fd);
    }
  } catch (err) {
    throw fileError(err, shown);
  }

  const sniffed = sniffContainer(head);
  if (!sniffed || sniffed.container !== expected) {
    const found = describeContent(head);
    throw new UsageError(
      `${shown} is named .${ext} but ${found ? `contains ${found}` : `does not look like ${CONTAINER_NAMES[expected]} video`}`,
      { hint: `The service accepts ${SUPPORTED_FORMATS_TEXT} video; check that the file is what its name says.` },
    );
  }
  const contentType: SupportedContentType =
    sniffed.container === 'isobmff' && (ext === 'mov' || sniffed.brand === 'qt  ') ? 'video/quicktime' : EXTENSION_CONTENT_TYPES[ext]!;
  // The name the service is given is the file's own, not a link's: a rerun through a link sends what the first run sent.
  const real = await realPath(abs).catch(() => abs);
  return { path: abs, size: st.size, mtimeMs: st.mtimeMs, real, dev: st.dev, ino: st.ino, contentType, filename: basename(real) };
}

/** The identity of a video file, as a rerun compares it (util/same-file.ts). */
export function fileIdentity(f: VideoFile): FileIdentity {
  return { real: f.real ?? f.path, ...(f.dev !== undefined && f.ino !== undefined ? { dev: f.dev, ino: f.ino } : {}), size: f.size, mtime: f.mtimeMs ?? null };
}

function fileError(err: unknown, shown: string): UsageError {
  const code = (err as NodeJS.ErrnoException).code;
  const hint = code === 'ENOENT' && !shown.includes('\ufffd') ? 'Check the path (it is relative to the current directory).' : code === 'EACCES' || code === 'EPERM' ? 'Check the file permissions.' : undefined;
  return new UsageError(unreadableFile(shown, err), hint ? { hint } : {});
}

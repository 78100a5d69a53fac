/**
 * Reads the duration of an MP4/MOV file from its movie header (moov/mvhd),
 * walking box headers with positioned reads: the moov box is often at the end
 * of the file, and the file is never loaded whole.
 */
import { closeFd, openForReading, readAt as readInto, statFd } from '../util/fs-calls.js';

interface BoxHeader {
  type: string;
  /** Offset of the box's first byte. */
  start: number;
  /** Offset of the box's payload. */
  body: number;
  /** Offset just past the box. */
  end: number;
}

/** Bounded walk: a hostile file cannot make us read forever. */
const MAX_BOXES = 10_000;

async function readAt(fd: number, pos: number, len: number): Promise<Buffer> {
  const buf = Buffer.alloc(len);
  const bytesRead = await readInto(fd, buf, len, pos);
  return buf.subarray(0, bytesRead);
}

async function readBoxHeader(fd: number, pos: number, limit: number): Promise<BoxHeader | undefined> {
  if (pos + 8 > limit) return undefined;
  const h = await readAt(fd, pos, 16);
  if (h.length < 8) return undefined;
  let size = h.readUInt32BE(0);
  const type = h.toString('latin1', 4, 8);
  let body = pos + 8;
  if (size === 1) {
    if (h.length < 16) return undefined;
    size = Number(h.readBigUInt64BE(8));
    body = pos + 16;
  } else if (size === 0) {
    size = limit - pos; // to the end of the enclosing box / file
  }
  if (size < body - pos || pos + size > limit) return undefined;
  return { type, start: pos, body, end: pos + size };
}

async function findChild(fd: number, from: number, to: number, type: string): Promise<BoxHeader | undefined> {
  let pos = from;
  for (let n = 0; n < MAX_BOXES && pos < to; n++) {
    const box = await readBoxHeader(fd, pos, to);
    if (!box) return undefined;
    if (box.type === type) return box;
    pos = box.end;
  }
  return undefined;
}

/** Parses an mvhd payload (version 0 or 1) into seconds. */
export function parseMvhd(payload: Buffer): number | undefined {
  if (payload.length < 4) return undefined;
  const version = payload[0];
  let timescale: number;
  let duration: number;
  if (version === 1) {
    if (payload.length < 32) return undefined;
    timescale = payload.readUInt32BE(20);
    const d = payload.readBigUInt64BE(24);
    if (d === 0xffffffffffffffffn) return undefined;
    duration = Number(d);
  } else if (version === 0) {
    if (payload.length < 20) return undefined;
    timescale = payload.readUInt32BE(12);
    duration = payload.readUInt32BE(16);
    if (duration === 0xffffffff) return undefined;
  } else {
    return undefined;
  }
  if (timescale === 0) return undefined;
  return duration / timescale;
}

/**
 * Duration in seconds of an MP4/MOV file, or undefined when the file is not
 * ISO BMFF or has no readable movie header.
 */
export async function readDurationSec(path: string): Promise<number | undefined> {
  let fd: number | undefined;
  try {
    fd = await openForReading(path);
    const { size } = await statFd(fd);
    const moov = await findChild(fd, 0, size, 'moov');
    if (!moov) return undefined;
    const mvhd = await findChild(fd, moov.body, moov.end, 'mvhd');
    if (!mvhd) return undefined;
    return parseMvhd(await readAt(fd, mvhd.body, Math.min(mvhd.end - mvhd.body, 32)));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) await closeFd(fd).catch(() => undefined);
  }
}

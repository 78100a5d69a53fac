/**
 * A video's content fingerprint (the one home of the rule): SHA-256 of its
 * bytes (util/content-hash.ts), taken while an upload reads them (put-file.ts,
 * `fingerprint: true`) and kept in the journal with the media id. A cheap key
 * (the size and a hash of a few sampled blocks) finds the candidates first:
 * a whole file is read to hash it only when the journal knows a video with
 * the same key, and not even then when the journal has the fingerprint of
 * this very file, unchanged (util/same-file.ts).
 */
import { sameFile } from '../util/same-file.js';
import { contentHash } from '../util/content-hash.js';
import { closeFd, openForReading, readAt, statPath } from '../util/fs-calls.js';
import type { Journal, KnownVideo } from '../journal/journal-types.js';
import { fileIdentity, type VideoFile } from './check.js';

/** Blocks the cheap key reads: the first, the last, and three between. */
const SAMPLE_BLOCKS = 5;
const SAMPLE_BYTES = 64 * 1024;
/** Reads of a whole-file hash. */
const HASH_READ_BYTES = 1024 * 1024;

/** A file's content as far as it is known: its cheap key, and its fingerprint once taken. */
export interface FileContent {
  sample: string;
  sha256?: string;
}

/** The size and a hash of SAMPLE_BLOCKS blocks spread over the file (the whole file when it is small), hex. */
export async function sampleKey(path: string, size: number): Promise<string> {
  const h = contentHash();
  h.update(`${size}:`);
  const fd = await openForReading(path);
  try {
    const buf = Buffer.allocUnsafe(SAMPLE_BYTES);
    const span = Math.max(0, size - SAMPLE_BYTES);
    const starts = new Set(Array.from({ length: SAMPLE_BLOCKS }, (_, i) => Math.floor((span * i) / (SAMPLE_BLOCKS - 1))));
    for (const start of starts) {
      const n = await readAt(fd, buf, Math.min(SAMPLE_BYTES, size - start), start);
      h.update(buf.subarray(0, n));
    }
  } finally {
    await closeFd(fd).catch(() => undefined);
  }
  return h.digest('hex').slice(0, 32);
}

/** SHA-256 of the whole file, or undefined when it changed (size or time) while it was read. */
export async function hashWholeFile(path: string): Promise<string | undefined> {
  const before = await statPath(path);
  const h = contentHash();
  const fd = await openForReading(path);
  let total = 0;
  try {
    // Two buffers: the next block is read (on libuv's threads) while this one is hashed (on this thread), so a
    // file the page cache holds takes the hash's time, not the hash's and the reads' one after the other.
    const bufs = [Buffer.allocUnsafe(HASH_READ_BYTES), Buffer.allocUnsafe(HASH_READ_BYTES)];
    let next = readAt(fd, bufs[0]!, HASH_READ_BYTES, 0);
    for (let i = 0; ; i ^= 1) {
      const n = await next;
      if (n === 0) break;
      next = readAt(fd, bufs[i ^ 1]!, HASH_READ_BYTES, total + n);
      h.update(bufs[i]!.subarray(0, n));
      total += n;
    }
  } finally {
    await closeFd(fd).catch(() => undefined);
  }
  const after = await statPath(path);
  if (total !== before.size || after.size !== before.size || after.mtimeMs !== before.mtimeMs) return undefined;
  return h.digest('hex');
}

/** Whole files hashed by this process, by the file's identity (path, inode, size, time): a post's guard and its upload read a file once. */
const HASHED = new Map<string, string>();
const MAX_HASHED = 256;

/** SHA-256 of the whole file, read once per process while it is unchanged (undefined if it changed while read). */
async function hashOnce(file: VideoFile): Promise<string | undefined> {
  const id = JSON.stringify(fileIdentity(file));
  const known = HASHED.get(id);
  if (known !== undefined) return known;
  const sha256 = await hashWholeFile(file.path);
  if (sha256 === undefined) return undefined;
  if (HASHED.size >= MAX_HASHED) HASHED.delete(HASHED.keys().next().value!);
  HASHED.set(id, sha256);
  return sha256;
}

/** The fingerprint the journal holds for this very file, unchanged since it was taken. */
function recordedFor(file: VideoFile, known: readonly KnownVideo[]): string | undefined {
  const me = fileIdentity(file);
  return known.find((k) => k.sha256 && k.file_id && sameFile(k.file_id, me))?.sha256;
}

/**
 * A file's content: its cheap key, the journal's videos with the same key, and
 * its fingerprint when one of them has one, or when the caller has a candidate
 * of its own (`candidate`: another file of a batch with the same cheap key):
 * from the journal for the same file unchanged, else the whole file hashed.
 * No candidate: no fingerprint, and nothing read but the sampled blocks.
 */
export async function fileContent(journal: Journal | undefined, file: VideoFile, forgotten = false, candidate = false): Promise<{ content: FileContent; known: KnownVideo[] }> {
  const sample = await sampleKey(file.path, file.size);
  const known = journal ? await journal.videosByContent(file.size, sample, forgotten) : [];
  if (!candidate && !known.some((k) => k.sha256)) return { content: { sample }, known };
  const sha256 = recordedFor(file, known) ?? (await hashOnce(file));
  return { content: { sample, ...(sha256 ? { sha256 } : {}) }, known };
}

/** A file's fingerprint: from the journal when it knows this file unchanged, else read and hashed (undefined if it changed meanwhile). */
export async function fileFingerprint(journal: Journal | undefined, file: VideoFile): Promise<string | undefined> {
  const { content, known } = await fileContent(journal, file);
  return content.sha256 ?? recordedFor(file, known) ?? hashOnce(file);
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The fingerprints of many files at once (a batch's, each path once), by the same rule: a file is
 * sampled only when another of them, or a video the journal knows with a fingerprint, has its
 * size; hashed whole only when one of those has its cheap key too (from the journal when it knows
 * this file unchanged). The journal is read once. `known`: its videos of those sizes.
 */
export async function filesContent(journal: Journal | undefined, files: readonly VideoFile[], forgotten = false): Promise<{ fingerprints: Map<string, string>; known: KnownVideo[] }> {
  const bySize = new Map<number, VideoFile[]>();
  for (const f of files) push(bySize, f.size, f);
  const known = journal && bySize.size > 0 ? await journal.videosBySize(new Set(bySize.keys()), forgotten) : [];
  const fingerprints = new Map<string, string>();
  for (const [size, group] of bySize) {
    const inJournal = known.filter((k) => k.size === size && k.sha256);
    if (group.length < 2 && inJournal.length === 0) continue;
    const bySample = new Map<string, VideoFile[]>();
    for (const f of group) {
      const sample = await sampleKey(f.path, size).catch(() => undefined);
      if (sample !== undefined) push(bySample, sample, f);
    }
    for (const [sample, same] of bySample) {
      const candidates = inJournal.filter((k) => k.sample === sample);
      if (same.length < 2 && candidates.length === 0) continue;
      for (const f of same) {
        const sha256 = recordedFor(f, candidates) ?? (await hashOnce(f).catch(() => undefined));
        if (sha256) fingerprints.set(f.path, sha256);
      }
    }
  }
  return { fingerprints, known };
}

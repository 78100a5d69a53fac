/**
 * The journal on disk: JSON Lines in the XDG state directory, appended with
 * one write() of one whole line to a file opened with O_APPEND (the kernel
 * serialises such appends, so cron jobs firing together lose and tear
 * nothing), files 0600 in a 0700 directory. Past SEGMENT_BYTES the active
 * file is renamed to a numbered segment (under the lock of src/util/file-lock.ts,
 * journal.jsonl.lock, so two processes never both rotate); readers go newest first, the active file
 * then the segments from the newest, and stop as soon as they have enough.
 * A line that does not parse is skipped with one warning naming the file and
 * line; nothing is ever rewritten.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, writeSync, constants } from 'node:fs';
import { tryFileLock } from '../util/file-lock.js';
import { NotRegularFileError, readUserFileSync } from '../util/user-file.js';
import { join } from 'node:path';
import type { JournalRecord } from './journal-types.js';

export const ACTIVE_FILE = 'journal.jsonl';
/** A segment is rotated out past this size (about 8,000 records). */
export const SEGMENT_BYTES = 4 * 1024 * 1024;
/** A record longer than this is cut down (options dropped) before it is written. */
export const MAX_RECORD_BYTES = 4096;
const SEGMENT = /^journal\.(\d{6})\.jsonl$/;

export { stateDir } from './paths.js';

export interface Damage {
  file: string;
  line: number;
}

/** One line read back: the record, where it came from. */
export interface ReadLine {
  text: string;
  file: string;
  line: number;
}

export class JournalStore {
  constructor(
    readonly dir: string,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {}

  get activePath(): string {
    return join(this.dir, ACTIVE_FILE);
  }

  /** Appends one record as one line; throws the file system's error (the caller warns). */
  append(record: JournalRecord): void {
    const line = encode(record);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // O_NONBLOCK: a FIFO put in its place fails at once (ENXIO) instead of waiting for a reader.
    const fd = openSync(this.activePath, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0), 0o600);
    let size: number;
    try {
      const n = writeSync(fd, line);
      if (n !== line.length) throw Object.assign(new Error(`short write (${n} of ${line.length} bytes)`), { code: 'ENOSPC' });
      size = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
    if (size > this.segmentBytes) this.rotate();
  }

  /** Renames the active file to the next numbered segment, once, whoever gets the lock (the others skip it). */
  rotate(): void {
    tryFileLock(this.activePath, () => {
      let size = 0;
      try {
        size = statSync(this.activePath).size;
      } catch {
        return;
      }
      if (size <= this.segmentBytes) return;
      const next = Math.max(0, ...this.segments().map((s) => s.n)) + 1;
      renameSync(this.activePath, join(this.dir, `journal.${String(next).padStart(6, '0')}.jsonl`));
    });
  }

  /** Numbered segments, newest first. */
  segments(): { n: number; path: string }[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .map((name) => ({ m: SEGMENT.exec(name), name }))
      .filter((x) => x.m)
      .map((x) => ({ n: Number(x.m![1]), path: join(this.dir, x.name) }))
      .sort((a, b) => b.n - a.n);
  }

  /** Every file, newest first: the active file, then the segments. */
  files(): string[] {
    return [this.activePath, ...this.segments().map((s) => s.path)];
  }

  /**
   * The lines of the journal, newest first. `needle`: only lines containing
   * it (found in the raw bytes before anything is parsed).
   */
  *linesNewestFirst(needle?: string): Generator<ReadLine> {
    const probe = needle === undefined ? undefined : Buffer.from(needle);
    for (const file of this.files()) {
      let buf: Buffer;
      try {
        // Only a regular file is read: a directory or a FIFO is an error. A device (a link to /dev/null, the
        // journal turned off by hand; /dev/full, which would never end) is read as empty, as before.
        buf = readUserFileSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        if (err instanceof NotRegularFileError && err.device) continue;
        throw err;
      }
      if (probe && buf.indexOf(probe) < 0) continue;
      // A last line without its newline is being written right now (or was cut short): not read yet.
      let end = buf.length;
      if (end > 0 && buf[end - 1] !== 0x0a) end = buf.lastIndexOf(0x0a, end - 1) + 1;
      let lineCount = -1;
      const lineNo = (start: number) => {
        if (lineCount < 0) {
          lineCount = 0;
          for (let i = buf.indexOf(0x0a); i >= 0 && i < start; i = buf.indexOf(0x0a, i + 1)) lineCount++;
        }
        return lineCount + 1;
      };
      const emit = (start: number, stop: number): ReadLine => ({
        text: buf.toString('utf8', start, stop),
        file,
        get line() {
          return lineNo(start);
        },
      });
      if (probe) {
        // Only the lines holding the needle, found in the bytes.
        const starts: [number, number][] = [];
        for (let i = buf.indexOf(probe); i >= 0 && i < end; i = buf.indexOf(probe, i + 1)) {
          const start = buf.lastIndexOf(0x0a, i) + 1;
          const stop = buf.indexOf(0x0a, i);
          if (starts.length === 0 || starts[starts.length - 1]![0] !== start) starts.push([start, stop]);
          i = stop;
        }
        for (let k = starts.length - 1; k >= 0; k--) yield emit(starts[k]![0], starts[k]![1]);
        continue;
      }
      let stop = end - 1; // the newline ending the current line
      while (stop > 0) {
        const start = buf.lastIndexOf(0x0a, stop - 1) + 1;
        if (stop > start) yield emit(start, stop);
        stop = start - 1;
      }
    }
  }
}

/** One record as one line, cut down to MAX_RECORD_BYTES (options, then the caption, go first). */
export function encode(record: JournalRecord): Buffer {
  let line = Buffer.from(JSON.stringify(record) + '\n');
  if (line.length <= MAX_RECORD_BYTES) return line;
  const slim = { ...record, truncated: true } as Record<string, unknown>;
  if (Array.isArray(slim.destinations)) slim.destinations = (slim.destinations as Record<string, unknown>[]).map(({ options: _o, ...d }) => d);
  line = Buffer.from(JSON.stringify(slim) + '\n');
  if (line.length <= MAX_RECORD_BYTES) return line;
  for (const k of ['caption', 'file', 'link']) if (typeof slim[k] === 'string') slim[k] = (slim[k] as string).slice(0, 40);
  if (Array.isArray(slim.destinations)) slim.destinations = (slim.destinations as { id: string; status?: string }[]).slice(0, 20).map((d) => ({ id: d.id, status: d.status }));
  return Buffer.from(JSON.stringify(slim) + '\n');
}

/**
 * Parses one line. A line that does not parse may be a record written after
 * a cut-short one (a crash mid-write leaves no newline): the last record
 * start in it is tried before giving up.
 */
export function decode(text: string): { record?: JournalRecord; damaged: boolean } {
  try {
    const r = JSON.parse(text) as JournalRecord;
    if (wellFormed(r)) return { record: r, damaged: false };
  } catch {
    // below
  }
  const at = text.lastIndexOf('{"v":1,');
  if (at > 0) {
    try {
      const r = JSON.parse(text.slice(at)) as JournalRecord;
      if (wellFormed(r)) return { record: r, damaged: true };
    } catch {
      // damaged through
    }
  }
  return { damaged: true };
}

/**
 * A record of the shape vidpub writes, as far as readers rely on it: a line
 * that is JSON but not such a record (an edit by hand) counts as damaged, so
 * it is skipped with the warning rather than failing history or status.
 */
function wellFormed(r: unknown): r is JournalRecord {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return false;
  const o = r as Record<string, unknown>;
  const text = (v: unknown) => v === undefined || typeof v === 'string';
  const destinations = () =>
    Array.isArray(o.destinations) &&
    o.destinations.every((d) => {
      if (!d || typeof d !== 'object') return false;
      const x = d as Record<string, unknown>;
      return typeof x.id === 'string' && text(x.name) && text(x.status) && text(x.url) && text(x.failure);
    });
  switch (o.kind) {
    case 'media':
      return typeof o.media_id === 'string';
    case 'post':
      return (
        typeof o.post_id === 'string' &&
        typeof o.at === 'string' &&
        !Number.isNaN(Date.parse(o.at)) &&
        typeof o.caption === 'string' &&
        typeof o.status === 'string' &&
        destinations()
      );
    case 'status':
      return typeof o.post_id === 'string' && typeof o.status === 'string' && destinations();
    default:
      return typeof o.kind === 'string'; // a kind of a later version: read past, as before
  }
}

/**
 * Reading a file the user named (a key file, config.json, the journal, a
 * manifest, a caption file) without ever blocking the event loop: the file is
 * opened with O_NONBLOCK (opening a FIFO waits for a writer otherwise), and
 * what it is is asked of the open handle (fstat, no race with a stat before).
 * A regular file is read; anything else (a directory, a FIFO, a device, a
 * socket) is refused with NotRegularFileError, which names what it is — except
 * a pipe where the caller allows one (`pipes`: process substitution, /dev/stdin),
 * read as a stream that ends when `signal` aborts (--timeout, Ctrl-C, SIGTERM).
 */
import { closeSync, constants, fstatSync, openSync, readFile, readFileSync, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { sanitize } from '../errors.js';
import { openForReading, statFd } from './fs-calls.js';

/** Open flags: never wait on a FIFO, never take a terminal as the controlling one. */
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What a non-regular file is, as a sentence puts it ("… is a directory"). */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a device (character device)';
  if (st.isBlockDevice()) return 'a device (block device)';
  if (st.isSocket()) return 'a socket';
  return st.isFile() ? 'a regular file' : 'not a regular file';
}

/** A user's path that is not a regular file. */
export class NotRegularFileError extends Error {
  /** A character or block device (/dev/null, /dev/full). */
  readonly device: boolean;
  constructor(
    readonly path: string,
    /** What it is instead: "a directory", "a pipe (FIFO)"… */
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
    this.device = kind.startsWith('a device');
    this.name = 'NotRegularFileError';
  }
}

/**
 * Why a name with U+FFFD (�) is not found: the command line reaches vidpub as UTF-8, and each
 * byte of a name that is not valid UTF-8 (a Latin-1 name from an old archive or a Windows share)
 * arrives as U+FFFD, so the name asked for is no longer the file's.
 */
const NOT_UTF8 = 'Its name is not valid UTF-8 (each \ufffd stands for bytes that are not), so it reached vidpub changed and '
  + 'cannot be opened by it: rename the file to a UTF-8 name (in a shell, mv with a pattern that matches it, e.g. mv ./clip*.mp4 clip.mp4; '
  + 'or convmv -f latin1 -t utf-8 --notest), then run the command again with the new name.';

/**
 * The one wording for a user's file that cannot be read, after its name
 * (`shown`): "x: no such file", "x is a directory, not a regular file",
 * "x cannot be read: permission denied (EACCES)", "x cannot be read (EIO)".
 */
export function unreadableFile(shown: string, err: unknown): string {
  if (err instanceof NotRegularFileError) return `${shown} is ${err.kind}, not a regular file`;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' && shown.includes('\ufffd')) return `${shown}: no such file. ${NOT_UTF8}`;
  if (code === 'ENOENT') return `${shown}: no such file`;
  if (code === 'ENOTDIR') return `${shown}: no such file (a part of the path is not a directory)`;
  if (code === 'EISDIR') return `${shown} is a directory, not a regular file`;
  if (code === 'EACCES' || code === 'EPERM') return `${shown} cannot be read: permission denied (${code})`;
  if (code) return `${shown} cannot be read (${code})`;
  return `${shown} cannot be read: ${sanitize(err instanceof Error ? err.message : String(err))}`;
}

function refuseUnlessRegular(fd: number, st: Stats, path: string): void {
  if (st.isFile()) return;
  closeSync(fd);
  throw new NotRegularFileError(path, fileKind(st));
}

/** A regular file's bytes, synchronously; anything else is refused at once (see the module's comment). */
export function readUserFileSync(path: string, inspect?: (st: Stats) => void): Buffer {
  const fd = openSync(path, FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(path, fileKind(st));
    inspect?.(st);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface ReadUserFileOptions {
  /** A pipe (a FIFO, process substitution, /dev/stdin on a pipe) is read too, until it ends or `signal` aborts. */
  pipes?: boolean;
  /** Ends the read of a pipe (with the signal's reason). */
  signal?: AbortSignal;
  /** Sees the file's fstat before it is read (e.g. to refuse a file too big by throwing). */
  inspect?(st: Stats): void;
  /** The most bytes a pipe may give; more is an error (a regular file: use `inspect`). */
  maxBytes?: number;
}

/** A file's bytes, without blocking: a regular file, or a pipe where `pipes` allows it. */
export async function readUserFile(path: string, opts: ReadUserFileOptions = {}): Promise<Buffer> {
  opts.signal?.throwIfAborted();
  const fd = await openForReading(path, FLAGS);
  let st: Stats;
  try {
    st = await statFd(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (st.isFIFO() && opts.pipes) return readPipe(fd, path, opts);
  refuseUnlessRegular(fd, st, path);
  try {
    opts.inspect?.(st);
    return await promisify(readFile)(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A pipe read as a stream on the event loop (the descriptor is non-blocking;
 * the socket closes it), until the writer closes it, `maxBytes` is passed or
 * `signal` aborts.
 */
async function readPipe(fd: number, path: string, opts: ReadUserFileOptions): Promise<Buffer> {
  const { Socket } = await import('node:net');
  const pipe = new Socket({ fd, readable: true, writable: false });
  const chunks: Buffer[] = [];
  let size = 0;
  const { signal, maxBytes } = opts;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const onAbort = () => reject(signal!.reason as Error);
      // Aborted while the file was being opened: an abort event is not sent twice.
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      pipe.once('close', () => signal?.removeEventListener('abort', onAbort));
      pipe.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (maxBytes !== undefined && size > maxBytes) reject(Object.assign(new Error(`${path} gave more than ${maxBytes} bytes`), { code: 'EFBIG' }));
        else chunks.push(chunk);
      });
      pipe.once('end', () => resolve(Buffer.concat(chunks)));
      pipe.once('error', reject);
    });
  } finally {
    pipe.destroy();
  }
}


/**
 * Text a command reads from where its command line says: all of a stream
 * (stdin, for `--caption-file -` and `vidpub batch -`) up to a limit, or a
 * file it names (`--caption-file PATH`, a batch manifest) through
 * util/user-file.ts: a FIFO or a directory in its place is refused at once,
 * `inspect` sees its fstat before anything is read (a size limit throws
 * there), and what goes wrong is a UsageError (exit 2) naming it as `shown`; so is text that
 * is not UTF-8 (core/text-rules.ts).
 */
import type { Stats } from 'node:fs';
import { decodeUtf8 } from '../../core/text-rules.js';
import { InterruptedError, TimeoutError, UsageError } from '../../errors.js';
import { clockTimeout, type Clock } from '../../core/clock.js';
import { formatDuration } from '../../time/duration.js';
import { NotRegularFileError, readUserFile, unreadableFile } from '../../util/user-file.js';
import { exactBytes } from '../../util/bytes.js';

/** `bytes` as UTF-8 text; bytes that are not UTF-8 (a Latin-1 file) are a UsageError naming it as `what`, with the offset. */
function utf8Of(bytes: Buffer, what: string): string {
  const text = decodeUtf8(bytes, what);
  if (typeof text !== 'string') throw new UsageError(text.message, { hint: text.hint });
  return text;
}

/** What ends a wait on input: Ctrl-C or a signal, and the command's --timeout (from when the wait begins). */
export interface InputWait {
  signal: AbortSignal;
  clock: Clock;
  timeoutMs: number;
}

/**
 * All of `stream` as UTF-8; more than `limit` bytes is a UsageError naming it as `what`. A writer that
 * never closes it does not hold the command: the read ends at --timeout (TimeoutError, exit 7) or on
 * Ctrl-C, SIGTERM, SIGHUP (InterruptedError, exit 130, 143, 129), with nothing sent.
 */
export async function readAll(stream: NodeJS.ReadableStream, limit: number, what: string, wait?: InputWait): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const expired = new AbortController();
  const timer = wait ? clockTimeout(wait.clock, wait.timeoutMs, () => expired.abort()) : undefined;
  const stop = wait ? AbortSignal.any([wait.signal, expired.signal]) : undefined;
  let onData: (chunk: string | Buffer) => void = () => undefined;
  let onEnd: () => void = () => undefined;
  let onError: (err: Error) => void = () => undefined;
  let onStop: () => void = () => undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onData = (chunk) => {
        const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        size += b.length;
        if (size > limit) reject(new UsageError(`${what} is longer than ${exactBytes(limit)}`));
        else chunks.push(b);
      };
      onEnd = resolve;
      onError = reject;
      onStop = () => reject(stopped(what, wait!, expired.signal.aborted));
      if (stop?.aborted) return onStop();
      stop?.addEventListener('abort', onStop, { once: true });
      stream.on('data', onData).once('end', onEnd).once('error', onError);
      stream.resume();
    });
  } finally {
    timer?.clear();
    stop?.removeEventListener('abort', onStop);
    stream.off('data', onData).off('end', onEnd).off('error', onError);
    // Not read any further: a writer that never closes it holds nothing of this process.
    stream.pause();
  }
  return utf8Of(Buffer.concat(chunks), what);
}

function stopped(what: string, wait: InputWait, deadline: boolean): Error {
  if (deadline) {
    return new TimeoutError(`Stopped: the --timeout (${formatDuration(wait.timeoutMs)}) was reached while reading ${what}, which was never closed; nothing was sent.`, {
      hint: 'Close the input when it is written (end the program that writes it, or press Ctrl-D at a terminal), or give a longer --timeout.',
    });
  }
  return new InterruptedError(`Interrupted while reading ${what}; nothing was sent.`);
}

/** The file at `path`, as UTF-8 (see above). */
export async function readNamedFile(path: string, shown: string, inspect?: (st: Stats) => void): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readUserFile(path, { inspect });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // Named for what it is: "is a directory, not a regular file", "is a pipe (FIFO), not a regular file".
    if (err instanceof NotRegularFileError) throw new UsageError(unreadableFile(shown, err), { hint: 'Name a regular file, or - to read stdin.' });
    throw new UsageError(unreadableFile(shown, err));
  }
  return utf8Of(bytes, shown);
}

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
import { decodeUtf8 } from '../core/text-rules.js';
import { UsageError } from '../errors.js';
import { NotRegularFileError, readUserFile } from '../util/user-file.js';

/** `bytes` as UTF-8 text; bytes that are not UTF-8 (a Latin-1 file) are a UsageError naming it as `what`, with the offset. */
function utf8Of(bytes: Buffer, what: string): string {
  const text = decodeUtf8(bytes, what);
  if (typeof text !== 'string') throw new UsageError(text.message, { hint: text.hint });
  return text;
}

/** All of `stream` as UTF-8; more than `limit` bytes is a UsageError naming it as `what`. */
export async function readAll(stream: NodeJS.ReadableStream, limit: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > limit) throw new UsageError(`${what} is longer than ${limit.toLocaleString('en-US')} bytes`);
    chunks.push(b);
  }
  return utf8Of(Buffer.concat(chunks), what);
}

/** The file at `path`, as UTF-8 (see above). */
export async function readNamedFile(path: string, shown: string, inspect?: (st: Stats) => void): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readUserFile(path, { inspect });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (err instanceof NotRegularFileError) throw new UsageError(`${shown} is not a file`);
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${shown} cannot be read${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`);
  }
  return utf8Of(bytes, shown);
}

/**
 * Text a command reads from where its command line says: all of a stream
 * (stdin, for `--caption-file -` and `vidpub batch -`) up to a limit, or a
 * file it names (`--caption-file PATH`, a batch manifest) through
 * util/user-file.ts: a FIFO or a directory in its place is refused at once,
 * `inspect` sees its fstat before anything is read (a size limit throws
 * there), and what goes wrong is a UsageError (exit 2) naming it as `shown`.
 */
import type { Stats } from 'node:fs';
import { UsageError } from '../errors.js';
import { NotRegularFileError, readUserFile } from '../util/user-file.js';

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
  return Buffer.concat(chunks).toString('utf8');
}

/** The file at `path`, as UTF-8 (see above). */
export async function readNamedFile(path: string, shown: string, inspect?: (st: Stats) => void): Promise<string> {
  try {
    return (await readUserFile(path, { inspect })).toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // Named for what it is: "is a directory, not a regular file", "is a pipe (FIFO), not a regular file".
    if (err instanceof NotRegularFileError) throw new UsageError(`${shown} is ${err.kind}, not a regular file`, { hint: 'Name a regular file, or - to read stdin.' });
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${shown} cannot be read${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`);
  }
}

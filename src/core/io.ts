import type { Readable, Writable } from 'node:stream';

/** The streams a command talks through, with what they are connected to. */
export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width when stderr or stdout is a TTY. */
  columns?: number;
}

/** The errors of a stream whose reader has gone (`| head -1`, `2>&-`, a closed terminal). */
const GONE = new Set(['EPIPE', 'EBADF', 'ECONNRESET', 'ERR_STREAM_DESTROYED']);

const guarded = new WeakSet<Writable>();

/**
 * Makes a reader that has gone no failure of the command: from the first
 * EPIPE/EBADF on, every write to `stream` is dropped (progress and notices
 * stop) and the command goes on to the exit code it would have had. Without
 * this, Node throws the error from the stream's 'error' event and the process
 * dies with exit 1, mid-upload or right after a post. Any other error is
 * thrown as before. Returns the stream.
 */
export function guardGoneReader<S extends Writable>(stream: S): S {
  if (guarded.has(stream)) return stream;
  guarded.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (!GONE.has(err?.code ?? '')) throw err;
    stream.write = dropWrite;
  });
  return stream;
}

/** Writable.write that drops the chunk and says all is well (callback called, no 'drain' needed). */
function dropWrite(this: Writable, _chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
  const done = typeof encoding === 'function' ? encoding : cb;
  if (typeof done === 'function') queueMicrotask(done as () => void);
  return true;
}

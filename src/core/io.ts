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

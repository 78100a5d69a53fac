import type { Writable } from 'node:stream';
import type { NoticeSink } from '../api/backoff.js';

/**
 * The client's notices on a stream (stderr): a line each, and on a terminal
 * a status line rewritten in place for countdowns.
 */
export function streamNotices(stream: Writable, tty: boolean): NoticeSink {
  return {
    line: (text) => {
      stream.write(text + '\n');
    },
    status: tty
      ? (text) => {
          stream.write(`\r\u001b[2K${text}`);
        }
      : undefined,
  };
}

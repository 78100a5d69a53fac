import type { Writable } from 'node:stream';
import type { NoticeSink } from '../api/send/backoff.js';
import { truncateWords } from './table.js';

/**
 * The client's notices on a stream (stderr): a line each, and on a terminal
 * a status line rewritten in place for countdowns, cut to the terminal's width.
 */
export function streamNotices(stream: Writable, tty: boolean, columns?: number): NoticeSink {
  // A status line wider than the terminal wraps, and the next rewrite leaves the wrapped copy behind.
  const fit = (text: string) => (columns ? truncateWords(text, columns - 1) : text);
  return {
    line: (text) => {
      stream.write(text + '\n');
    },
    status: tty
      ? (text) => {
          stream.write(`\r\u001b[2K${fit(text)}`);
        }
      : undefined,
  };
}

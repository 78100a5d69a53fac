import type { Colors } from './color.js';

/** Where a printer writes data: stdout, whether a person reads it, and its colours. */
export interface DataOut {
  /** Writes one line of data. */
  print(line?: string): void;
  /** stdout is a terminal: labels and tables; otherwise stable plain lines. */
  tty: boolean;
  colors: Colors;
  /** The terminal's width, when stdout is one: tables fit it. */
  columns?: number;
}

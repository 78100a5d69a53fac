/** A line-oriented writer to stderr for everything that is not data. */
export interface Logger {
  /** A notice (progress, hints): hidden by --quiet. */
  info(line: string): void;
  /** A warning: shown even with --quiet. */
  warn(line: string): void;
  /** A --debug line. */
  debug(line: string): void;
}

/** A logger that drops everything (a server whose stdout is a protocol, a test). */
export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };

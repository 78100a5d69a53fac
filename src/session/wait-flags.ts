/**
 * The wait flags every flow shares (--no-wait, --timeout), parsed in one
 * place for the CLI's commands and the MCP server's tools.
 */
import { UsageError } from '../errors.js';
import { parseBoundedDuration } from '../time/duration.js';

/**
 * Default --timeout of upload, import, post, publish and status --wait: long
 * enough for a 1 GB video and its post, short enough that a CI job does not hang.
 */
export const DEFAULT_TIMEOUT = '30m';

export interface WaitFlags {
  wait: boolean;
  /** --timeout in ms. */
  timeoutMs: number;
}

/** --timeout in ms (default 30m); must be longer than 0. */
export function parseTimeout(flags: { timeout?: unknown }): number {
  const ms = parseBoundedDuration(String(flags.timeout ?? DEFAULT_TIMEOUT), '--timeout');
  if (ms <= 0) throw new UsageError('--timeout must be longer than 0s');
  return ms;
}

/** --no-wait (commander's `wait: false`) and --timeout. */
export function parseWaitFlags(flags: { wait?: unknown; timeout?: unknown }): WaitFlags {
  return { wait: flags.wait !== false, timeoutMs: parseTimeout(flags) };
}

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
  return positiveDuration(String(flags.timeout ?? DEFAULT_TIMEOUT), '--timeout');
}

/** A duration flag (--timeout, --unanswered-timeout) in ms, which must be longer than 0. */
export function positiveDuration(value: string, flag: string): number {
  const ms = parseBoundedDuration(value, flag);
  if (ms <= 0) throw new UsageError(`${flag} must be longer than 0s`);
  return ms;
}

/** --no-wait (commander's `wait: false`) and --timeout. */
export function parseWaitFlags(flags: { wait?: unknown; timeout?: unknown }): WaitFlags {
  return { wait: flags.wait !== false, timeoutMs: parseTimeout(flags) };
}

import { BlockedError, InterruptedError, OutcomeUnknownError, RateLimitError, TimeoutError, WorkFailedError, isInterruption } from '../errors.js';

/**
 * How a command ended with an error, as the journal records it for a video or
 * a post (history shows the word). With the command's signal, a library's
 * abort error after Ctrl-C counts as interrupted too.
 */
export function outcomeOfError(err: unknown, signal?: AbortSignal): string {
  if (err instanceof OutcomeUnknownError) return 'unknown';
  if (err instanceof WorkFailedError) return 'failed';
  if (err instanceof TimeoutError) return 'timeout';
  if (err instanceof InterruptedError || (signal !== undefined && isInterruption(err, signal))) return 'interrupted';
  if (err instanceof BlockedError) return 'blocked';
  if (err instanceof RateLimitError) return 'rate_limited';
  return 'error';
}

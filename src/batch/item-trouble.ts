/**
 * What an item that did not end well says, and why, for the exit code: a
 * write without an answer ("unknown", settled by a rerun), an interruption,
 * the --timeout cutting a wait short (what goes on at the service), or a
 * failure. Never "failed" for what may have been done.
 */
import { BlockedError, DeadlineReached, OutcomeUnknownError, RateLimitError, TimeoutError, VidpubError, isDeadline, isInterruption, sanitize } from '../errors.js';
import { WaitCut } from './item-waits.js';
import type { ItemRun, RunContext, Step } from './run-context.js';

/**
 * An item's error when a write of it got no answer: what may exist, why it is
 * not known, and that a rerun settles it (the item's keys replay what was done).
 */
function unknownText(err: OutcomeUnknownError, step: Step, mediaId: string | null): string {
  const id = err.known.media_id ?? mediaId;
  const what =
    step === 'post'
      ? `the post may or may not have been created${mediaId ? ` (video ${mediaId})` : ''}`
      : step === 'import'
        ? 'the import may or may not have been started'
        : id
          ? `video ${id} may or may not have been completed`
          : 'the upload may or may not have been created';
  return `outcome unknown: ${what}; ${sanitize(err.request)} got no answer (${err.why}); run the batch again to settle it: what was done is replayed, not done twice`;
}

/** Why the last look failed, in one line: the service's status and code, else what the client said (a dropped connection). */
function lastLookText(err: unknown): string {
  const http = err instanceof VidpubError ? err.http : undefined;
  if (http?.status) return `HTTP ${http.status}${http.code ? ` ${sanitize(http.code)}` : ''}`;
  return sanitize(err instanceof Error ? err.message : String(err));
}

/** The video id a media flow's error carries (its `data`), when it has one. */
function mediaIdOf(err: unknown): string | undefined {
  const id = err instanceof VidpubError ? (err.data as { id?: unknown } | undefined)?.id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * A write got no answer (every attempt dropped or timed out, the deadline or Ctrl-C during it):
 * it may or may not have been done, never "failed"; the item's keys make a rerun settle it.
 */
function unknownOutcome(rc: RunContext, { it, out, step }: ItemRun, err: OutcomeUnknownError): void {
  out.media_id ??= err.known.media_id ?? null;
  out.status = 'unknown';
  out.error = unknownText(err, step, out.media_id);
  if (step === 'post') out.destinations = out.destinations.map((d) => ({ ...d, status: 'unknown' }));
  rc.troubles.set(it.n, 'unknown');
  rc.unknowns.set(it.n, err);
}

function interruptedOutcome(rc: RunContext, { it, out }: ItemRun): void {
  if (out.post_id && out.status === 'skipped') {
    // The post exists and goes on at the service: stopped following it, not "nothing was posted".
    out.status = 'publishing';
    out.error = `interrupted; post ${out.post_id} was created and goes on at the service, its outcome not known yet; follow it with: vidpub status ${out.post_id} --wait`;
  } else if (!out.post_id) {
    out.status = 'skipped';
    out.error = 'interrupted: run the batch again to finish it (what was done is replayed, not repeated)';
  }
  rc.troubles.set(it.n, 'interrupted');
}

/**
 * What is true when the deadline cut a wait short: the post exists and goes on (its
 * outcome not known yet), or the video does and nothing was posted; never "failed".
 */
function timeoutOutcome(rc: RunContext, { it, out }: ItemRun, err: unknown): void {
  // A video id known only from the error: its upload was cut off before it was complete.
  const unfinished = out.media_id === null && it.video.kind === 'file' ? mediaIdOf(err) : undefined;
  out.media_id ??= mediaIdOf(err) ?? null;
  if (out.post_id || (out.media_id && !unfinished)) rc.goingOn.add(it.n);
  const lastLook = err instanceof WaitCut && err.lastFailure !== undefined ? `; the last look failed: ${lastLookText(err.lastFailure)}` : '';
  if (out.post_id) {
    out.status = 'publishing';
    out.error = `stopped waiting (--timeout)${lastLook}; post ${out.post_id} was created and goes on at the service, its outcome not known yet; follow it with: vidpub status ${out.post_id} --wait`;
  } else {
    out.status = 'skipped';
    const video = unfinished
      ? `the upload of video ${unfinished} was not finished, so the service does not have it; `
      : out.media_id
        ? `video ${out.media_id} goes on at the service; `
        : '';
    out.error = `stopped waiting (--timeout)${lastLook}; ${video}nothing was posted: run the batch again to post it`;
  }
  rc.troubles.set(it.n, 'timeout');
}

function failedOutcome(rc: RunContext, { it, out }: ItemRun, err: unknown): void {
  out.status = err instanceof BlockedError ? 'blocked' : 'failed';
  const msg = err instanceof VidpubError ? err.message : err instanceof Error ? err.message : String(err);
  const http = err instanceof VidpubError ? err.http : undefined;
  out.error =
    http?.code === 'idempotency_key_reused'
      ? 'an earlier run already sent this item with another request under the same keys (a relative time such as +2h is a new time on every run), so it was not posted again; use an absolute time, or a new batch_key to post it as a new post'
      : sanitize(msg);
  rc.troubles.set(it.n, err instanceof BlockedError ? 'blocked' : err instanceof RateLimitError ? 'rate' : 'failed');
}

/** Sets what the item says after `err` stopped it, and notes its trouble. */
export function settleTrouble(rc: RunContext, run: ItemRun, err: unknown): void {
  if (err instanceof OutcomeUnknownError) unknownOutcome(rc, run, err);
  else if (isInterruption(err, rc.stopSignal) || rc.stopSignal.aborted) interruptedOutcome(rc, run);
  else if (err instanceof TimeoutError || err instanceof DeadlineReached || (isDeadline(rc.signal) && !(err instanceof VidpubError))) timeoutOutcome(rc, run, err);
  else failedOutcome(rc, run, err);
}

/**
 * What the post flows tell the journal (Session.journal): how a command
 * ended for a post, as a word that history shows and folds.
 */
import type { Post } from '../api/types.js';
import { BlockedError, InterruptedError, RateLimitError, TimeoutError, WorkFailedError } from '../errors.js';
import type { Session } from '../flows/session.js';
import { isFinished, type PostResult } from './render.js';

/** The outcome of a command that returned normally. */
export function outcomeOf(post: Post): string {
  if (post.status === 'draft') return 'draft';
  if (post.status === 'scheduled') return 'scheduled';
  return isFinished(post) ? 'published' : 'publishing';
}

/** The outcome of a command that ended with an error. */
export function outcomeOfError(err: unknown): string {
  if (err instanceof WorkFailedError) return 'failed';
  if (err instanceof TimeoutError) return 'timeout';
  if (err instanceof InterruptedError) return 'interrupted';
  if (err instanceof BlockedError) return 'blocked';
  if (err instanceof RateLimitError) return 'rate_limited';
  return 'error';
}

function postOf(data: unknown): Post | undefined {
  const post = (data as Partial<PostResult> | undefined)?.post;
  return post && typeof post === 'object' && typeof post.id === 'string' ? post : undefined;
}

/**
 * Runs the end of a post command (follow, settle) and records the last state
 * seen with the command's outcome, whether it returns or throws.
 */
export async function recordingEnd(session: Session, end: () => Promise<PostResult>, fallback?: Post): Promise<PostResult> {
  let r: PostResult;
  try {
    r = await end();
  } catch (err) {
    const post = postOf((err as { data?: unknown })?.data) ?? fallback;
    if (post) await session.journal?.status(post, outcomeOfError(err));
    throw err;
  }
  await session.journal?.status(r.post, outcomeOf(r.post));
  return r;
}

/**
 * What the post flows tell the journal (Session.journal): how a command
 * ended for a post, as a word that history shows and folds.
 */
import type { Post } from '../contract/wire-types.js';
import { outcomeOfError } from '../journal/error-outcome.js';
import type { Session } from '../session/session.js';
import { type PostResult } from './view.js';
import { postSettled } from '../contract/wire-types.js';
import { emitPost } from '../events/post-events.js';

/** The outcome of a command that returned normally. */
export function outcomeOf(post: Post): string {
  if (post.status === 'draft') return 'draft';
  if (post.status === 'scheduled') return 'scheduled';
  return postSettled(post) ? 'published' : 'publishing';
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
    if (post) emitPost(session.events, post);
    throw err;
  }
  await session.journal?.status(r.post, outcomeOf(r.post));
  emitPost(session.events, r.post, r.names);
  return r;
}

/**
 * A post made from another one (a retry of its failed destinations, a blocked draft posted with
 * its options fixed): a replayed one is read as it is now, the journal is told and links it to
 * the post it came from, then it is followed as `post` follows its own.
 */
import { responseMeta } from '../api/client.js';
import type { Post } from '../contract/wire-types.js';
import { InterruptedError } from '../errors.js';
import type { Session } from '../session/session.js';
import { emitCreated } from '../events/post-events.js';
import { ask } from './options.js';
import { recordingEnd } from './journal-notes.js';
import { blockedPost } from './settle.js';
import { blockingIssues, type PostResult } from './view.js';
import { followPost } from './watch.js';

export interface NewPostFrom {
  /** Its Idempotency-Key. */
  key: string;
  /** The post it was made from. */
  from: string;
  names: Record<string, string>;
  zone: string;
  wait: boolean;
  timeoutMs: number;
  deadlineMs: number;
  /** Said when the service replayed it: an earlier run made it. */
  replayed: (id: string) => string;
  /** Said when it was made now (nothing when absent). */
  made?: (id: string) => string;
}

/** What is about to be posted: asked on a terminal (without --yes), logged elsewhere. Declining sends nothing. */
export async function confirmNewPost(session: Session, lines: string[], o: { yes: boolean; now: boolean; cancelled: string }): Promise<void> {
  if (!session.interactive || o.yes) {
    for (const line of lines) session.log.info(line);
    return;
  }
  for (const line of lines) session.screen.write(line + '\n');
  const prompter = await session.prompter();
  const yes = await ask(() => prompter.confirm({ message: o.now ? 'Post it now?' : 'Schedule it?', default: true }));
  if (!yes) throw new InterruptedError(o.cancelled);
}

export async function followNewPost(session: Session, created: Post, o: NewPostFrom): Promise<PostResult> {
  const client = await session.client();
  let post = created;
  const replayed = responseMeta(post)?.replayed === true;
  if (replayed) {
    session.log.info(o.replayed(post.id));
    post = await client.getPost(post.id, { signal: session.signal });
  } else if (o.made) {
    session.log.info(o.made(post.id));
  }
  await session.journal?.post({ post, names: o.names, idem: o.key, outcome: replayed ? 'replayed' : 'created', retryOf: o.from });
  emitCreated(session.events, post, o.names);
  const result: PostResult = { post, names: o.names, zone: o.zone };
  return recordingEnd(
    session,
    async () => {
      if (blockingIssues(post.issues).length > 0) throw blockedPost(result, 'published');
      if (post.status === 'scheduled') return { ...result, headline: 'Scheduled.' };
      return followPost(session, client, { ...result, headline: 'Publishing.' }, { wait: o.wait, timeoutMs: o.timeoutMs, deadlineMs: o.deadlineMs });
    },
    post,
  );
}

/**
 * A post found in the journal under the --idempotency-key given: reported as
 * it is now, whatever its age, with no request that creates anything. The
 * service's replay covers 24 hours and any machine; this covers this machine
 * for as long as its journal is kept.
 */
import type { ApiClient } from '../api/client.js';
import type { Session } from '../session/session.js';
import type { JournalPost } from '../journal/journal-types.js';
import { recordingEnd } from './journal-notes.js';
import { blockedPost } from './settle.js';
import { blockingIssues, namesOf, type PostResult } from './view.js';
import { followPost } from './watch.js';

export interface EarlierOpts {
  key: string;
  wait: boolean;
  timeoutMs: number;
  deadlineMs: number;
  zone: string;
  /** The sentence said before the post is shown (default: the one for --idempotency-key). */
  message?: string;
}

export async function reportEarlier(session: Session, client: ApiClient, earlier: JournalPost, opts: EarlierOpts): Promise<PostResult> {
  const { signal } = session;
  session.log.info(
    opts.message ??
      `--idempotency-key ${opts.key} was used for post ${earlier.post_id} on ${earlier.at} (this machine's journal): ` +
        'nothing new is created; reporting that post as it is now. To post again under this key, add --force-new.',
  );
  // A settled post from the key's cache: any number of runs reporting it read it once between them.
  const post = await client.getPost(earlier.post_id, { signal, cached: true });
  let names: Record<string, string> = {};
  try {
    names = namesOf(await client.listDestinations({ signal, cached: true }));
  } catch {
    for (const d of earlier.destinations) if (d.name) names[d.id] = d.name;
  }
  const result: PostResult = { post, names, zone: opts.zone };
  return recordingEnd(
    session,
    async () => {
      if (post.status === 'draft') return { ...result, headline: 'Draft saved earlier.' };
      if (blockingIssues(post.issues).length > 0) throw blockedPost(result, 'published');
      if (post.status === 'scheduled') return { ...result, headline: 'Scheduled earlier.' };
      return followPost(session, client, { ...result, headline: 'Publishing.' }, opts);
    },
    post,
  );
}

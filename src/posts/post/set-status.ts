/**
 * `vidpub status SET_ID` (a set: one `post` command, a caption each): each of
 * its posts read now, reported together as `post` reports the set.
 */
import { InterruptedError, VidpubError } from '../../errors.js';
import type { Session } from '../../session/session.js';
import { postsOfSet } from '../retry-set.js';
import type { PostResult } from '../view.js';
import type { PostSet, SetPost } from './caption-set.js';

/**
 * `vidpub status SET_ID`: each post of the set read now (as `status POST_ID` reads one), reported together as
 * `post` reports the set: a line per post, the exit code the worst of them.
 */
export async function statusOfSet(set: string, session: Session, one: (postId: string) => Promise<PostResult>): Promise<PostSet> {
  const posts = await postsOfSet(session, set, 'status');
  const out: PostSet = { set, posts: [] };
  for (const p of posts) {
    const entry: SetPost = { caption: p.caption, destinations: p.destinations.map((d) => d.id) };
    out.posts.push(entry);
    try {
      entry.result = await one(p.post_id);
    } catch (err) {
      if (!(err instanceof VidpubError) || err instanceof InterruptedError) throw err;
      entry.error = err;
      const data = err.data as Partial<PostResult> | undefined;
      if (data && typeof data.post === 'object') entry.result = data as PostResult;
    }
  }
  const failed = out.posts.filter((p) => p.error);
  if (failed.length === 0) return out;
  const worst = failed.map((p) => p.error!).reduce((a, b) => (b.exitCode > a.exitCode ? b : a));
  const Ctor = worst.constructor as new (message: string, o: ConstructorParameters<typeof VidpubError>[1]) => VidpubError;
  throw new Ctor(`${failed.length} of ${out.posts.length} posts of set ${set}: ${failed.map((p) => p.error!.message).join('; ')}`, { hint: worst.hint, data: out, cause: worst });
}

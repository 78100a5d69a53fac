/**
 * The post endpoints: create a post, publish it, read one by id. A post read
 * settled (every destination published, failed or cancelled) never changes
 * again: it is kept in the key's cache (SETTLED_POST_TTL_MS), and a read that
 * asks (`cached`) takes it from there, so that the identical runs reporting a
 * post another run made read it once between them, not once each.
 */
import { CACHE_ENTRIES, SETTLED_POST_TTL_MS, attachMeta, type RequestOptions } from '../client.js';
import { postSettled, type CreatePostRequest, type Post, type PublishPostRequest } from '../../contract/wire-types.js';
import { carries } from '../send/service-word.js';
import { readRecord, type MemoryOf, type Requester } from './resource-base.js';

/** A post created or sent to publish is the service's word only with its id. */
const POST_RECORD = carries('id');

export class PostsResource {
  constructor(
    private readonly api: Requester,
    private readonly memory: MemoryOf,
  ) {}

  create(body: CreatePostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.api.request('POST', '/posts', { action: 'create a post', ...o, body, expect: POST_RECORD });
  }

  publish(postId: string, body: PublishPostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.api.request('POST', `/posts/${encodeURIComponent(postId)}/publish`, { action: 'publish a post', ...o, body, expect: POST_RECORD });
  }

  async get(postId: string, o: RequestOptions = {}): Promise<Post> {
    const name = CACHE_ENTRIES.post(postId);
    const memory = this.memory();
    // Another run may have stored it since this one first read the cache: looked for on disk again.
    const hit = memory && (await memory.get<Post>(name, SETTLED_POST_TTL_MS, { reread: o.cached }));
    if (o.cached && hit && hit.value?.id === postId && postSettled(hit.value)) return attachMeta(hit.value, { status: 200, replayed: false, cachedAt: hit.at });
    const post = await readRecord<Post>(this.api, { path: `/posts/${encodeURIComponent(postId)}`, id: postId, what: "post's", o });
    // Kept once (not again on each later read of it); the settled posts stored longer ago dropped in the same write.
    if (memory && !hit && postSettled(post)) await memory.set(name, post, (n, age) => CACHE_ENTRIES.isPost(n) && age > SETTLED_POST_TTL_MS);
    return post;
  }
}

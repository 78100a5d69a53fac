/** The post endpoints: create a post, publish it, read one by id. */
import type { RequestOptions } from '../client.js';
import type { CreatePostRequest, Post, PublishPostRequest } from '../wire-types.js';
import { readRecord, type Requester } from './resource-base.js';

export class PostsResource {
  constructor(private readonly api: Requester) {}

  create(body: CreatePostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.api.request('POST', '/posts', { action: 'create a post', ...o, body });
  }

  publish(postId: string, body: PublishPostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.api.request('POST', `/posts/${encodeURIComponent(postId)}/publish`, { action: 'publish a post', ...o, body });
  }

  get(postId: string, o: RequestOptions = {}): Promise<Post> {
    return readRecord<Post>(this.api, { path: `/posts/${encodeURIComponent(postId)}`, id: postId, what: "post's", o });
  }
}

/** The post endpoints: create a post, publish it, read one by id. */
import type { RequestOptions } from '../client.js';
import type { CreatePostRequest, Post, PublishPostRequest } from '../../contract/wire-types.js';
import { carries } from '../send/service-word.js';
import { readRecord, type Requester } from './resource-base.js';

/** A post created or sent to publish is the service's word only with its id. */
const POST_RECORD = carries('id');

export class PostsResource {
  constructor(private readonly api: Requester) {}

  create(body: CreatePostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.api.request('POST', '/posts', { action: 'create a post', ...o, body, expect: POST_RECORD });
  }

  publish(postId: string, body: PublishPostRequest, o: RequestOptions = {}): Promise<Post> {
    return this.api.request('POST', `/posts/${encodeURIComponent(postId)}/publish`, { action: 'publish a post', ...o, body, expect: POST_RECORD });
  }

  get(postId: string, o: RequestOptions = {}): Promise<Post> {
    return readRecord<Post>(this.api, { path: `/posts/${encodeURIComponent(postId)}`, id: postId, what: "post's", o });
  }
}

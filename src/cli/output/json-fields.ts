/**
 * The top-level fields of the records commands print with --json, so that
 * `--json FIELDS` is checked before anything is sent, and a field the record
 * type has but one record lacks (a ready video's `error`) prints null.
 */
import type { Media, Post } from '../../contract/wire-types.js';

/** Every key of T, listed once (the compiler checks none is missing or extra). */
function keysOf<T>(all: Record<keyof T, true>): string[] {
  return Object.keys(all);
}

export const POST_FIELDS = keysOf<Post>({
  id: true,
  status: true,
  caption: true,
  media_id: true,
  publish_at: true,
  review_url: true,
  issues: true,
  destinations: true,
  created_at: true,
});

/** A post's --json document: the record's fields and `state` (posts/view.ts, withState). */
export const POST_DOCUMENT_FIELDS = [...POST_FIELDS, 'state'];

export const MEDIA_FIELDS = keysOf<Media>({
  id: true,
  status: true,
  filename: true,
  content_type: true,
  size_bytes: true,
  source: true,
  progress: true,
  error: true,
  duration_sec: true,
  created_at: true,
});

/**
 * The journal's lines as written: what a media, post or status record holds,
 * built from what a command saw. Pure: the journal stamps the time and who
 * wrote it, and appends them.
 */
import type { Post } from '../contract/wire-types.js';
import { sanitize } from '../errors.js';
import type { MediaEvent, MediaRecord, PostEvent, PostRecord, RecordContext, StatusRecord } from './journal-types.js';

/** How much of a caption a post record keeps. */
export const CAPTION_CHARS = 200;

/** The key's workspace, when GET /me said it. */
export interface Workspace {
  id?: string;
  name?: string;
}

export function mediaRecord(e: MediaEvent, ctx: RecordContext, at: string): MediaRecord {
  const size = e.size ?? (typeof e.media.size_bytes === 'number' ? e.media.size_bytes : undefined);
  return {
    v: 1,
    kind: 'media',
    at,
    ...ctx,
    media_id: e.media.id,
    source: e.link || e.media.source === 'import' ? 'import' : 'upload',
    ...(e.file ? { file: e.file } : {}),
    ...(e.link ? { link: e.link } : {}),
    ...(size !== undefined ? { size } : {}),
    status: String(e.media.status),
    ...(e.idem ? { idem: e.idem } : {}),
    outcome: e.outcome,
    ...(e.content?.sha256 ? { sha256: e.content.sha256 } : {}),
    ...(e.content ? { sample: e.content.sample } : {}),
    ...(e.content?.fileId ? { file_id: e.content.fileId } : {}),
    ...(e.media.status === 'ready' ? { ready_at: at } : {}),
  };
}

function recordedDestinations(e: PostEvent): PostRecord['destinations'] {
  const dests = Array.isArray(e.post.destinations) ? e.post.destinations : [];
  return dests.map((d) => ({
    id: String(d.destination_id),
    ...(e.names?.[d.destination_id] ? { name: e.names[d.destination_id] } : {}),
    options: d.options ?? {},
    ...(d.status ? { status: String(d.status) } : {}),
  }));
}

export function postRecord(e: PostEvent, ctx: RecordContext, ws: Workspace, at: string): PostRecord {
  const p = e.post;
  return {
    v: 1,
    kind: 'post',
    at,
    ...ctx,
    ...(ws.id ? { workspace_id: ws.id } : {}),
    ...(ws.name ? { workspace: ws.name } : {}),
    post_id: p.id,
    media_id: String(p.media_id ?? ''),
    ...(e.file ? { file: e.file } : {}),
    ...(e.link ? { link: e.link } : {}),
    ...(e.size !== undefined ? { size: e.size } : {}),
    ...(e.fileId ? { file_id: e.fileId } : {}),
    caption: String(p.caption ?? '').slice(0, CAPTION_CHARS),
    destinations: recordedDestinations(e),
    publish_at: p.publish_at ?? null,
    draft: p.status === 'draft',
    ...(e.idem ? { idem: e.idem } : {}),
    ...(e.runKey || e.idem ? { run_key: e.runKey ?? e.idem } : {}),
    outcome: e.outcome,
    status: String(p.status),
    ...(e.retryOf ? { retry_of: e.retryOf } : {}),
    ...(e.set ? { set: e.set } : {}),
    ...(typeof p.review_url === 'string' && p.review_url ? { review_url: p.review_url } : {}),
  };
}

function seenDestinations(post: Post): StatusRecord['destinations'] {
  return (Array.isArray(post.destinations) ? post.destinations : []).map((d) => {
    const s: StatusRecord['destinations'][number] = { id: String(d.destination_id), status: String(d.status ?? 'unknown') };
    if (d.url) s.url = String(d.url);
    if (d.failure) s.failure = sanitize(String(d.failure.message ?? d.failure.code ?? '')).slice(0, 200);
    return s;
  });
}

export function statusRecord(post: Post, profile: string, at: string, outcome?: string): StatusRecord {
  return {
    v: 1,
    kind: 'status',
    at,
    profile,
    post_id: post.id,
    status: String(post.status),
    publish_at: post.publish_at ?? null,
    destinations: seenDestinations(post),
    ...(outcome ? { outcome } : {}),
  };
}

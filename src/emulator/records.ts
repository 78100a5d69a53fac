/** Wire records (gaps.md "Records") built from the in-memory state. */
import type { Destination, DestinationOptions, Media, Post } from '../contract/wire-types.js';
import type { DestinationState, MediaState, PostState } from './state.js';

export function destinationRecord(d: DestinationState): Destination {
  return {
    id: d.id,
    platform: d.platform,
    handle: d.handle,
    display_name: d.display_name,
    status: d.status,
    video_limits: { ...d.video_limits, content_types: [...d.video_limits.content_types] },
  };
}

export function optionsRecord(d: DestinationState): DestinationOptions {
  const out: DestinationOptions = {
    options: d.options.map((o) => ({ ...o, values: o.values === null ? null : [...o.values] })),
  };
  if (d.creator) {
    out.creator = { ...d.creator };
    if (d.video_limits.max_duration_sec !== null) out.max_duration_sec = d.video_limits.max_duration_sec;
  }
  return out;
}

export function mediaRecord(m: MediaState): Media {
  const out: Media = {
    id: m.id,
    status: m.status,
    filename: m.filename,
    content_type: m.content_type,
    size_bytes: m.size_bytes,
    source: m.source,
    created_at: m.created_at,
  };
  if (m.status === 'uploading' || m.status === 'processing') {
    let percent = m.percent;
    if (m.phase === 'uploading') {
      percent = m.size_bytes ? Math.floor((m.receivedBytes / m.size_bytes) * 100) : 0;
    }
    out.progress = { phase: m.phase ?? (m.status === 'processing' ? 'processing' : 'uploading'), percent };
  }
  if (m.status === 'failed' && m.error) out.error = { ...m.error };
  if (m.status === 'ready' && m.duration_sec !== null) out.duration_sec = m.duration_sec;
  return out;
}

export function postRecord(p: PostState, origin: string): Post {
  return {
    id: p.id,
    status: p.status,
    caption: p.caption,
    media_id: p.media_id,
    publish_at: p.publish_at,
    review_url: `${origin}/_emulator/review/${p.id}`,
    issues: p.issues.map((i) => ({ ...i })),
    destinations: p.destinations.map((d) => ({
      destination_id: d.destination_id,
      options: { ...d.options },
      status: d.status,
      url: d.url,
      warning: d.warning ? { ...d.warning } : null,
      failure: d.failure ? { ...d.failure } : null,
    })),
    created_at: p.created_at,
  };
}

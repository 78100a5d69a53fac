/**
 * A post as the journal knows it now: its post record folded with the status
 * records seen after it (the newest word wins, how each command ended is
 * kept), and the filters history applies to it.
 */
import type { JournalPost, PostRecord, StatusRecord } from './journal-types.js';

const TERMINAL = new Set(['published', 'failed', 'cancelled']);

/** draft, scheduled, publishing, completed, or failed when a destination failed or was cancelled. */
export function stateOf(status: string, destinations: { status?: string }[]): string {
  const all = destinations.length > 0 && destinations.every((d) => d.status !== undefined && TERMINAL.has(d.status));
  const bad = destinations.some((d) => d.status === 'failed' || d.status === 'cancelled');
  if ((status === 'completed' || all) && bad) return 'failed';
  if (all) return 'completed';
  return status;
}

/** The word for a post as a look saw it: published, failed, or its status (draft, scheduled, publishing). */
function seenOutcome(state: string): string {
  return state === 'completed' ? 'published' : state;
}

/** The recorded destinations, each with what the last look saw of it. */
function destinationsSeen(p: PostRecord, last: StatusRecord | undefined): JournalPost['destinations'] {
  const seen = new Map((last?.destinations ?? []).map((d) => [d.id, d]));
  return p.destinations.map((d) => {
    const s = seen.get(d.id);
    const out: JournalPost['destinations'][number] = { ...d };
    if (s) {
      out.status = s.status;
      if (s.url) out.url = s.url;
      if (s.failure) out.failure = s.failure;
    }
    return out;
  });
}

/** Folds a post record with the status records seen after it (newest first). */
export function fold(p: PostRecord, statuses: StatusRecord[], retriedBy?: string[]): JournalPost {
  const last = statuses[0];
  const destinations = destinationsSeen(p, last);
  const status = last?.status ?? p.status;
  const state = stateOf(status, destinations);
  // What is known now: the newest record's word. A look that ended no command (status, history --refresh)
  // says what it saw; how each command ended stays in `outcomes`.
  const outcome = last === undefined ? p.outcome : (last.outcome ?? seenOutcome(state));
  const outcomes = [{ at: p.at, outcome: p.outcome }, ...statuses.filter((s) => s.outcome).reverse().map((s) => ({ at: s.at, outcome: s.outcome! }))];
  const post: JournalPost = {
    post_id: p.post_id,
    at: p.at,
    profile: p.profile,
    base_url: p.base_url,
    media_id: p.media_id,
    caption: p.caption,
    publish_at: last?.publish_at !== undefined ? last.publish_at : p.publish_at,
    draft: p.draft,
    status,
    state,
    outcome,
    outcomes,
    seen_at: last?.at ?? p.at,
    destinations,
  };
  for (const k of ['key', 'workspace_id', 'workspace', 'file', 'link', 'size', 'idem', 'run_key', 'retry_of', 'review_url', 'set'] as const) {
    if (p[k] !== undefined) (post as unknown as Record<string, unknown>)[k] = p[k];
  }
  if (retriedBy && retriedBy.length > 0) post.retried_by = [...retriedBy].reverse();
  return post;
}

/** Whether a post went to `want`: a destination id, a handle ("@vidpub.demo" or without the @) or a platform. */
export function matchesDestination(p: JournalPost, want: string): boolean {
  const w = want.trim().replace(/^@/, '').toLowerCase();
  return p.destinations.some((d) => {
    if (d.id.toLowerCase() === w) return true;
    const name = (d.name ?? '').toLowerCase();
    // "@vidpub.demo (tiktok)": the handle or the platform.
    const m = /^@?(\S+)(?: \(([^)]+)\))?$/.exec(name);
    return name === w || m?.[1] === w || m?.[2] === w;
  });
}

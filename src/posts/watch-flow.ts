/**
 * `vidpub watch`: follows the posts the journal knows that are not settled yet (scheduled, publishing; not
 * drafts), reading each only once its time has come (by the service's clock), pacing the reads by the
 * minute's X-RateLimit-* allowance and leaving READ_RESERVE reads to other commands on the same key. What a
 * look tells becomes events (src/events/); each event is reported once across runs (the journal keeps what
 * was reported: src/journal/watch-reported.ts). Not to be confused with ./watch.ts, which follows one post
 * to its end for post, publish and status --wait.
 */
import { responseMeta, type ApiClient } from '../api/client.js';
import type { Post } from '../contract/wire-types.js';
import { NotFoundError, WorkFailedError, sanitize } from '../errors.js';
import { stampEvent, type VidpubEvent } from '../events/event.js';
import { postEvents } from '../events/post-events.js';
import type { JournalPost } from '../journal/journal-types.js';
import type { Session } from '../session/session.js';
import { READ_RESERVE, journalOff } from './history-flow.js';
import { namesOf } from './view.js';

export interface WatchOpts {
  /** The profile whose posts are followed; undefined: every profile's (--all-profiles). */
  profile?: string;
  /** The profile of the key (the events' profile when the post's own is not known). */
  keyProfile: string;
  once: boolean;
}

export interface WatchPass {
  /** The events no run had reported, in the order seen. */
  events: VidpubEvent[];
  /** Posts followed (not settled in the journal). */
  followed: number;
  /** Read now. */
  read: number;
  /** Due but left for the next run (the minute's allowance kept for other commands). */
  unread: number;
  /** Not due yet: the earliest publication time among them (epoch ms). */
  later: number;
  nextDueMs?: number;
  /** Another profile's service or key (--all-profiles): cannot be read with this key. */
  otherKey: number;
  /** Posts still not settled after this pass. */
  open: number;
  /** The service's time when the pass looked (what "due" is judged by). */
  serviceNow?: number;
}

/** What hands a pass's fresh events on: the report (stdout, hooks) and what keeps them reported once. */
export interface WatchReport {
  /** Of these events, those never reported before, marked reported now (atomically, across processes). */
  claim(events: VidpubEvent[]): Promise<VidpubEvent[]>;
  /** Reports one event (a line, a hook). */
  report(event: VidpubEvent): Promise<void> | void;
}

const FOLLOWED = new Set(['scheduled', 'publishing']);

/** The posts of the journal `watch` follows: not settled, not drafts. */
export async function followedPosts(session: Session, profile: string | undefined): Promise<JournalPost[]> {
  if (!session.journal) throw journalOff('vidpub watch');
  const posts = await session.journal.history({ limit: Number.MAX_SAFE_INTEGER, profile });
  return posts.filter((p) => !p.draft && FOLLOWED.has(p.state));
}

/** The service's time now (its Date header), asking it once (GET /me) when no answer told it yet; our clock's without one. */
async function serviceTime(client: ApiClient, session: Session): Promise<number> {
  let now = client.serviceNow?.();
  if (now === undefined) {
    await client.getMe({ signal: session.signal });
    now = client.serviceNow?.();
  }
  return now ?? session.clock.now();
}

function dueAt(p: JournalPost): number {
  return p.publish_at === null ? 0 : Date.parse(p.publish_at);
}

/** One pass: reads the posts whose time has come (as many as the minute's allowance leaves room for), reports what changed. */
export async function watchPass(opts: WatchOpts, session: Session, out: WatchReport): Promise<WatchPass> {
  const client = await session.client();
  const posts = await followedPosts(session, opts.profile);
  const pass: WatchPass = { events: [], followed: posts.length, read: 0, unread: 0, later: 0, otherKey: 0, open: 0 };
  // Nothing to follow: the hooks still get what an earlier run could not hand them.
  if (posts.length === 0) {
    await out.claim([]);
    return pass;
  }
  const mine = posts.filter((p) => p.base_url === client.baseUrl && (p.key === undefined || client.keyId === undefined || p.key === client.keyId));
  pass.otherKey = posts.length - mine.length;
  const now = await serviceTime(client, session);
  pass.serviceNow = now;
  const due = mine.filter((p) => dueAt(p) <= now).sort((a, b) => dueAt(a) - dueAt(b));
  for (const p of mine) {
    if (dueAt(p) > now) {
      pass.later++;
      pass.nextDueMs = Math.min(pass.nextDueMs ?? Infinity, dueAt(p));
    }
  }
  const names = await destinationNames(client, session);
  const seen: { post: Post; profile: string; workspace?: string }[] = [];
  let remaining: number | undefined;
  for (const p of due) {
    if (remaining !== undefined && remaining <= READ_RESERVE) {
      pass.unread++;
      continue;
    }
    let post: Post;
    try {
      post = await client.getPost(p.post_id, { signal: session.signal });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      session.log.warn(`Post ${p.post_id} was not found at the service (deleted?): no longer followed.`);
      await session.journal?.status(gonePost(p), 'not found');
      continue;
    }
    remaining = responseMeta(post)?.rateLimit?.remaining;
    pass.read++;
    seen.push({ post, profile: p.profile, ...(p.workspace !== undefined ? { workspace: p.workspace } : {}) });
  }
  const at = session.clock.now();
  const events = seen.flatMap(({ post, profile, workspace }) =>
    postEvents(post, names).map((e) => stampEvent(e, { profile, ...(workspace !== undefined ? { workspace } : {}), now: at })),
  );
  pass.events = await out.claim(events);
  for (const e of pass.events) await out.report(e);
  // Recorded once reported: a run stopped before reporting leaves the post followed, and the next run reports it.
  for (const { post } of seen) await session.journal?.status(post);
  pass.open = pass.unread + pass.later + pass.otherKey + seen.filter(({ post }) => FOLLOWED.has(stateOfPost(post))).length;
  return pass;
}

/** A post's state as the journal folds it: completed once every destination ended. */
function stateOfPost(post: Post): string {
  const ended = postEvents(post).some((e) => e.type === 'post.completed' || e.type === 'post.failed');
  return ended ? 'completed' : post.status;
}

/** A post the service no longer has, for the journal: settled, so that it is not followed again. */
function gonePost(p: JournalPost): Post {
  return {
    id: p.post_id,
    status: 'completed',
    caption: p.caption,
    media_id: p.media_id,
    publish_at: p.publish_at,
    review_url: '',
    issues: [],
    created_at: p.at,
    destinations: p.destinations.map((d) => ({ destination_id: d.id, options: {}, status: d.status === 'published' ? 'published' : 'cancelled' })),
  };
}

async function destinationNames(client: ApiClient, session: Session): Promise<Record<string, string>> {
  try {
    return namesOf(await client.listDestinations({ signal: session.signal, cached: true }));
  } catch {
    return {};
  }
}

/** Exit 6 when a destination newly failed: which, and what to run. */
export function newlyFailed(events: VidpubEvent[]): WorkFailedError | undefined {
  const failed = events.filter((e) => e.type === 'post.destination.failed' || e.type === 'post.destination.cancelled');
  if (failed.length === 0) return undefined;
  const posts = [...new Set(failed.map((e) => e.post_id!))];
  const what = failed.map((e) => `${sanitize(e.destination ?? e.destination_id ?? '?')} of ${e.post_id} ${e.status}${e.failure ? ` (${sanitize(e.failure.message)})` : ''}`);
  return new WorkFailedError(`${failed.length === 1 ? 'A destination' : `${failed.length} destinations`} newly failed: ${what.join('; ')}.`, {
    hint: `Post again to the failed destinations with: ${posts.map((id) => `vidpub retry ${id}`).join(' ; ')}`,
  });
}

/**
 * `vidpub schedule`: what is scheduled, from the journal (with --refresh read
 * again from the service first, as history --refresh reads, stopping short of
 * the minute's read allowance): one entry per post and destination, in time
 * order, and by day in the local zone the posts each day spends of the daily
 * allowance, per destination.
 */
import type { Session } from '../session/session.js';
import type { JournalPost } from '../journal/journal-types.js';
import { isoInZone, isoUtc } from '../time/iso-time.js';
import { runHistory } from './history-flow.js';

export interface ScheduleOpts {
  zone: string;
  sinceMs?: number;
  untilMs?: number;
  /** Only this profile (undefined: every profile). */
  profile?: string;
  workspace?: string;
  refresh: boolean;
}

/** One scheduled post to one destination: --json's element and --csv's row. */
export interface ScheduleEntry {
  post_id: string;
  /** The local day, YYYY-MM-DD. */
  day: string;
  local: string;
  utc: string;
  destination_id: string;
  destination: string;
  caption: string;
  review_url: string | null;
  profile: string;
  workspace: string | null;
}

export interface ScheduleDay {
  day: string;
  /** Posts that day: each spent one of the daily allowance when it was scheduled. */
  posts: number;
  /** Per destination (its name), the posts going there that day. */
  destinations: Record<string, number>;
}

export interface ScheduleResult {
  zone: string;
  entries: ScheduleEntry[];
  days: ScheduleDay[];
  /** The plan's daily allowance (GET /me), when --refresh asked the service. */
  dailyLimit?: number;
  /** The journal's directory (for messages). */
  dir: string;
}

export async function runSchedule(opts: ScheduleOpts, session: Session): Promise<ScheduleResult> {
  const r = await runHistory({ limit: Number.MAX_SAFE_INTEGER, state: 'scheduled', profile: opts.profile, workspace: opts.workspace, refresh: opts.refresh }, session);
  let dailyLimit: number | undefined;
  if (opts.refresh) {
    const me = await (await session.client()).getMe({ signal: session.signal });
    const limit = me.limits?.api_posts_per_day?.limit;
    if (typeof limit === 'number') dailyLimit = limit;
  }
  const due = (p: JournalPost) => (p.publish_at ? Date.parse(p.publish_at) : NaN);
  const posts = r.posts
    .filter((p) => {
      const ms = due(p);
      return Number.isFinite(ms) && (opts.sinceMs === undefined || ms >= opts.sinceMs) && (opts.untilMs === undefined || ms < opts.untilMs);
    })
    .sort((a, b) => due(a) - due(b) || a.post_id.localeCompare(b.post_id));
  const entries: ScheduleEntry[] = [];
  const byDay = new Map<string, ScheduleDay>();
  for (const p of posts) {
    const ms = due(p);
    const local = isoInZone(ms, opts.zone);
    const day = local.slice(0, 10);
    const summary = byDay.get(day) ?? byDay.set(day, { day, posts: 0, destinations: {} }).get(day)!;
    summary.posts++;
    for (const d of p.destinations) {
      const name = d.name ?? d.id;
      summary.destinations[name] = (summary.destinations[name] ?? 0) + 1;
      entries.push({
        post_id: p.post_id,
        day,
        local,
        utc: isoUtc(ms),
        destination_id: d.id,
        destination: name,
        caption: p.caption,
        review_url: p.review_url ?? null,
        profile: p.profile,
        workspace: p.workspace ?? null,
      });
    }
  }
  return { zone: opts.zone, entries, days: [...byDay.values()], dailyLimit, dir: r.dir };
}

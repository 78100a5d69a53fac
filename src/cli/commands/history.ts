import { UsageError, sanitize } from '../../errors.js';
import { captionExcerpt, destinationsText, runHistory, type HistoryOpts, type HistoryResult } from '../../posts/history-flow.js';
import { describeWall } from '../../time/describe.js';
import type { JournalPost } from '../../journal/journal-types.js';
import { instantOfWall, resolveTimeZone } from '../../time/zones.js';
import { renderTable } from '../../ui/table.js';
import { historyRows, setState, type HistoryRow } from '../../posts/history-sets.js';
import { parseDuration } from '../../time/duration.js';
import { csvOf } from '../../util/csv-out.js';
import { defineCommand } from '../run/command.js';
import { groupRows, type DuplicateGroup } from '../../posts/duplicate-groups.js';
import type { Invocation } from '../run/command.js';

const STATES = ['draft', 'scheduled', 'publishing', 'completed', 'failed'];
const MAX_LIMIT = 100_000;

/**
 * --since: a duration back from now (7d, 12h) or a date / time (2026-11-01, an ISO time). A date or a time
 * without an offset is read in `zone`, the zone the table shows times in.
 */
export function parseSince(text: string, now: number, zone: string): number {
  const s = text.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(s);
  if (m) {
    const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
    const real = mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() && h <= 23 && mi <= 59 && sec <= 59;
    if (real) {
      if (m[7] !== undefined) {
        const ms = Date.parse(s.replace(' ', 'T'));
        if (!Number.isNaN(ms)) return ms;
      } else {
        // A time skipped by a change of clocks: the time just after it; one that happens twice: the earlier.
        return instantOfWall({ y, mo, d, h, mi, s: sec }, zone);
      }
    }
  } else if (!/^\d{4}-\d{2}-\d{2}/.test(s)) {
    try {
      return now - parseDuration(s, '--since');
    } catch {
      // below
    }
  }
  throw new UsageError(`invalid --since "${sanitize(text)}": give a duration back from now (7d, 12h, 30m) or a date (2026-11-01, 2026-11-01T09:00:00Z)`);
}

interface Opts extends HistoryOpts {
  zone: string;
  csv: boolean;
  /** --duplicates: the groups of the same video posted to the same destination (posts/duplicate-groups.ts). */
  duplicates: boolean;
}

/** The posts as --json and --csv give them: `id` as every command names a post (post, status, retry…), `post_id` kept beside it for the scripts that read it. */
function historyDocument(posts: HistoryResult['posts']): Record<string, unknown>[] {
  return posts.map((p) => ({ id: p.post_id, ...p }));
}

/**
 * history --duplicates: a row per post, grouped (the group's number first): at a terminal a table
 * with when each was made as a person reads it; in a pipe tab-separated lines with ISO times; --csv its rows.
 */
function printGroups(groups: DuplicateGroup[], r: { zone: string; now: number; csv: boolean }, inv: Invocation): void {
  const rows = groupRows(groups);
  if (r.csv) return void inv.out.print(csvOf(rows).slice(0, -1));
  const { tty, colors: c } = inv.out;
  const lines = renderTable(
    rows,
    [
      { header: 'Group', value: (p) => String(p.group) },
      { header: 'Destination', value: (p) => (tty ? sanitize(p.name ?? p.destination_id) : p.destination_id) },
      { header: 'Id', value: (p) => p.id },
      { header: 'Made', value: (p) => (tty ? describeWall(Date.parse(p.at), r.zone, r.now, 'never') : p.at) },
      { header: 'Video', value: (p) => p.media_id },
      { header: 'Caption', value: (p) => (tty ? captionExcerpt(p.caption, inv.out.columns ?? 80) : p.caption), shrink: 'anywhere' },
    ],
    { tty, bold: c.bold, width: inv.out.columns },
  );
  for (const line of lines) inv.print(line);
}

export default defineCommand<'history', Opts, HistoryResult & { zone: string; now: number; csv: boolean; groups?: DuplicateGroup[] }>({
  description:
    'List the posts made from this machine (the local journal), newest first: id, time, status, each destination\'s ' +
    'state, caption. Only what vidpub recorded here, with the state last seen; --refresh reads the drafts and the posts ' +
    'still in progress again from the service. --workspace (global) keeps the posts of that workspace. Also: vidpub posts.',
  examples: [
    'vidpub history',
    'vidpub history --status failed --since 7d',
    'vidpub history --destination @vidpub.demo --limit 5',
    'vidpub history --refresh --json',
    'vidpub history --all-profiles',
    'vidpub history --since 30d --csv > posts.csv',
    'vidpub history --duplicates --since 30d',
  ],
  parse(_args, flags, inv) {
    const limit = Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new UsageError(`invalid --limit "${sanitize(flags.limit)}": give a whole number from 1 to ${MAX_LIMIT.toLocaleString('en-US')}`);
    }
    const state = flags.status;
    if (state !== undefined && !STATES.includes(state)) {
      throw new UsageError(`invalid --status "${sanitize(state)}": use one of ${STATES.join(', ')}`);
    }
    if (flags.csv && inv.globals.json) throw new UsageError('--csv and --json are two forms of the same output: give one of them');
    const destination = flags.destination;
    if (destination !== undefined && destination.trim().replace(/^@/, '') === '') {
      throw new UsageError(`invalid --destination "${sanitize(destination)}": give a destination id, @handle or platform`);
    }
    return {
      limit,
      state,
      sinceMs: flags.since === undefined ? undefined : parseSince(flags.since, inv.ctx.clock.now(), resolveTimeZone(undefined, inv.ctx.env)),
      destination,
      // Empty (VIDPUB_WORKSPACE=""): no workspace, as a write checks none.
      workspace: inv.globals.workspace || undefined,
      profile: flags.allProfiles ? undefined : inv.globals.profile,
      refresh: flags.refresh,
      zone: resolveTimeZone(undefined, inv.ctx.env),
      csv: flags.csv,
      duplicates: flags.duplicates,
    };
  },
  async run(opts, inv) {
    if (opts.duplicates) {
      const { runDuplicates } = await import('../../posts/duplicate-groups.js');
      const d = await runDuplicates(opts, inv.session, MAX_LIMIT);
      if (d.groups.length === 0) inv.log.info(`No video was posted twice to the same destination in the journal (${d.dir})${opts.profile ? ` for profile "${opts.profile}"` : ''}.`);
      return { ...d, zone: opts.zone, now: inv.ctx.clock.now(), csv: opts.csv };
    }
    const r = await runHistory(opts, inv.session);
    if (r.posts.length === 0) {
      const filtered = opts.state !== undefined || opts.sinceMs !== undefined || opts.destination !== undefined || opts.workspace !== undefined;
      inv.log.info(`No posts ${filtered ? 'match' : 'recorded yet'} in the journal (${r.dir})${opts.profile ? ` for profile "${opts.profile}"` : ''}.`);
    }
    return { ...r, zone: opts.zone, now: inv.ctx.clock.now(), csv: opts.csv };
  },
  print(r, inv) {
    if (r.groups) return printGroups(r.groups, r, inv);
    // The --json document's posts, a row each (util/csv-out.ts).
    if (r.csv) return void inv.out.print(csvOf(historyDocument(r.posts)).slice(0, -1));
    const { tty, colors: c } = inv.out;
    // A scheduled post: when it goes out (publish_at); any other: when it was made.
    const due = (p: JournalPost) => (p.state === 'scheduled' && p.publish_at && !Number.isNaN(Date.parse(p.publish_at)) ? Date.parse(p.publish_at) : undefined);
    const when = (p: JournalPost) => {
      if (!tty) return p.at;
      const ms = due(p);
      return ms === undefined ? describeWall(Date.parse(p.at), r.zone, r.now, 'never') : `due ${describeWall(ms, r.zone, r.now, 'never')}`;
    };
    const style = (state: string) =>
      state === 'completed' ? c.green : state === 'failed' ? c.red : state === 'publishing' || state === 'scheduled' ? c.cyan : (s: string) => s;
    // At a terminal a set of posts (one command, a caption each) is a line, its posts beneath it; a pipe has a line per post.
    const lines: HistoryRow[] = tty ? historyRows(r.posts) : r.posts.map((post) => ({ post }));
    const of = (f: (p: JournalPost) => string, head: (posts: JournalPost[]) => string) => (row: HistoryRow) => ('post' in row ? f(row.post) : head(row.posts));
    const rows = renderTable(
      lines,
      [
        { header: 'Id', value: (row) => ('post' in row ? (row.in ? `${row.in === 'set-last' ? '  └ ' : '  ├ '}${row.post.post_id}` : row.post.post_id) : row.set) },
        { header: 'Made or due', value: of(when, (posts) => when(posts[posts.length - 1]!)) },
        { header: 'Status', value: of((p) => p.state, setState), style: (s) => style(s.trim())(s) },
        {
          header: 'Destinations',
          value: of((p) => (tty ? destinationsText(p) : p.destinations.map((d) => `${d.id}:${d.status ?? '?'}`).join(',')), (posts) => `${posts.length} posts, a caption each`),
          shrink: true,
        },
        // At a terminal its first line, cut to what the width leaves it; in a pipe all of it, on its one line.
        { header: 'Caption', value: of((p) => (tty ? captionExcerpt(p.caption, inv.out.columns ?? 80) : p.caption), () => ''), shrink: 'anywhere' },
      ],
      { tty, bold: c.bold, width: inv.out.columns },
    );
    for (const line of rows) inv.print(line);
  },
  json: (r) => r.groups ?? historyDocument(r.posts),
});

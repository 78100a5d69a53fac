import { UsageError, sanitize } from '../../errors.js';
import { captionExcerpt } from '../../posts/history-flow.js';
import { runSchedule, type ScheduleOpts, type ScheduleResult } from '../../posts/schedule-flow.js';
import { parseDayOrWhen } from '../../time/slot-rule.js';
import { resolveTimeZone } from '../../time/zones.js';
import { renderTable } from '../../ui/table.js';
import { csvOf } from '../../util/csv-out.js';
import { icsCalendar } from '../../util/icalendar.js';
import { defineCommand } from '../run/command.js';

type Format = 'table' | 'csv' | 'ics';

/** How long a post's event lasts in a calendar: a mark at its time, not a meeting. */
const EVENT_MINUTES = 15;

export default defineCommand<'schedule', ScheduleOpts & { format: Format }, ScheduleResult & { format: Format; now: number }>({
  description:
    'What is scheduled, from the local journal (the posts vidpub made here): each post and destination in time order, ' +
    'by day in the local zone (--tz), with the posts each day spends of the daily allowance. --refresh reads the scheduled ' +
    'posts again from the service first, within the read allowance. --ics writes an iCalendar file (RFC 5545) that a ' +
    'calendar app imports: one event per post and destination, its caption as the title, its review page as the link; ' +
    'importing it again updates the same events. --csv writes the entries for a spreadsheet.',
  examples: ['vidpub schedule', 'vidpub schedule --since 2027-03-25 --until 2027-04-01 --json', 'vidpub schedule --ics > vidpub.ics', 'vidpub schedule --refresh --csv > schedule.csv'],
  fields: ['zone', 'daily_limit', 'days', 'entries'],
  parse(_args, flags, inv) {
    const format: Format = flags.ics ? 'ics' : flags.csv ? 'csv' : 'table';
    const given = [flags.ics && '--ics', flags.csv && '--csv', inv.globals.json && '--json'].filter(Boolean);
    if (given.length > 1) throw new UsageError(`${given.join(' and ')} are two forms of the same output: give one of them`);
    const zone = resolveTimeZone(flags.tz, inv.ctx.env);
    const now = inv.ctx.clock.now();
    const bound = (text: string | undefined, flag: string) => (text === undefined ? undefined : parseDayOrWhen(text, { now, zone, flag, allowPast: true }));
    const sinceMs = bound(flags.since, '--since');
    const untilMs = bound(flags.until, '--until');
    if (sinceMs !== undefined && untilMs !== undefined && untilMs <= sinceMs) {
      throw new UsageError(`--until (${sanitize(flags.until!)}) is not after --since (${sanitize(flags.since!)}): nothing could be shown`);
    }
    return {
      zone,
      sinceMs,
      untilMs,
      profile: inv.globals.profile,
      workspace: inv.globals.workspace || undefined,
      refresh: flags.refresh,
      format,
    };
  },
  async run(opts, inv) {
    const r = await runSchedule(opts, inv.session);
    if (r.entries.length === 0 && opts.format === 'table') inv.log.info(`Nothing scheduled in the journal (${r.dir})${opts.profile ? ` for profile "${opts.profile}"` : ''}.`);
    return { ...r, format: opts.format, now: inv.ctx.clock.now() };
  },
  print(r, inv) {
    if (r.format === 'csv') {
      // print ends the text with \n: the last record's CRLF less its \n.
      inv.out.print(csvOf(r.entries).slice(0, -1));
      return;
    }
    if (r.format === 'ics') {
      const events = r.entries.map((e) => ({
        // One event per post and destination, the same at every export: a calendar updates it on a new import.
        uid: `${e.post_id}.${e.destination_id}@vidpub`,
        startMs: Date.parse(e.utc),
        durationMin: EVENT_MINUTES,
        summary: e.caption.split(/\r?\n/)[0] || e.post_id,
        description: `${e.destination}: post ${e.post_id}\n${e.caption}${e.review_url ? `\nReview: ${e.review_url}` : ''}`,
        url: e.review_url ?? undefined,
      }));
      inv.out.print(icsCalendar(events, { name: 'vidpub schedule', stampMs: r.now }).slice(0, -1));
      return;
    }
    const { tty, colors: c } = inv.out;
    const rows = renderTable(
      r.entries,
      [
        { header: 'Day', value: (e) => e.day },
        { header: 'Time', value: (e) => (tty ? e.local.slice(11, 16) : e.local) },
        { header: 'Destination', value: (e) => (tty ? e.destination : e.destination_id) },
        { header: 'Post', value: (e) => e.post_id },
        { header: 'Caption', value: (e) => captionExcerpt(e.caption, tty ? 40 : 200), shrink: true },
      ],
      { tty, bold: c.bold, width: inv.out.columns },
    );
    for (const line of rows) inv.print(line);
    if (!tty) return;
    inv.print('');
    for (const d of r.days) {
      const where = Object.entries(d.destinations).map(([name, n]) => `${sanitize(name)} ${n}`).join(', ');
      inv.print(`${d.day}: ${d.posts} post${d.posts === 1 ? '' : 's'}${r.dailyLimit !== undefined ? ` of the ${r.dailyLimit} a day` : ''} (${where})`);
    }
  },
  json: (r) => ({ zone: r.zone, daily_limit: r.dailyLimit ?? null, days: r.days, entries: r.entries }),
});

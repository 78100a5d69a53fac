/**
 * What a batch prints: the plan (--dry-run, and the summary before the one
 * confirmation), a JSON line per item on stdout, and the final table on stderr.
 */
import { describeMoment } from '../time/describe.js';
import { sanitize } from '../errors.js';
import { formatSize } from '../util/bytes.js';
import { destinationLabel } from '../posts/view.js';
import type { Colors } from '../ui/color.js';
import { renderTable } from '../ui/table.js';
import { formatDuration } from '../time/duration.js';
import { resetPhrase, type BatchPlan, type PlannedItem } from './plan.js';
import { counted } from '../util/plural.js';
import type { BatchRun, ItemOutcome } from './run-types.js';
import { ALLOW_TEXT } from './duplicate-items.js';

const CAPTION_PREVIEW = 80;

function videoText(it: PlannedItem): string {
  const v = it.video;
  if (v.kind === 'file') {
    const facts = [formatSize(v.file.size), v.durationSec !== undefined ? formatDuration(v.durationSec * 1000) : ''].filter(Boolean).join(', ');
    return `${sanitize(v.shown)} (${facts})`;
  }
  if (v.kind === 'url') return `${sanitize(v.url)} (imported)`;
  return `video ${v.id}${v.media.filename ? ` (${sanitize(v.media.filename)})` : ''}`;
}

function whenText(it: PlannedItem): string {
  if (!it.when) return 'draft (not published)';
  if (it.when.now) return 'now';
  // The form a person reads a time in where there is no now to relate it to: 2026-11-25 09:00 CET (2026-11-25T08:00:00Z).
  return describeMoment(it.when.ms, it.when.zone);
}

/** One value's origin: the item, the defaults block, or the destination's own default. */
function origin(it: PlannedItem, destName: string, key: string, source: string): string {
  if (source === 'default') return ' (destination default)';
  if (it.fromDefaults.has(key) || it.fromDefaults.has(`${destName}:${key}`)) return ' (from defaults)';
  return '';
}

/** About this much text is given at a time: a few writes for a plan of any size. */
const PIECE_CHARS = 64 * 1024;

/** One item's lines in the plan. */
function itemLines(it: PlannedItem, c: Colors): string[] {
  const lines = ['', c.bold(`item ${it.n}${it.line !== undefined ? ` (line ${it.line})` : ''}: ${videoText(it)}`)];
  const cap = sanitize(it.caption);
  const preview = (text: string) => (text === '' ? '(empty)' : text.length > CAPTION_PREVIEW ? text.slice(0, CAPTION_PREVIEW - 1) + '…' : text);
  // Captions of the destinations' own: each with its destinations (a post each).
  if (it.groups) for (const g of it.groups) lines.push(`  caption for ${sanitize(g.plans.map((p) => destinationLabel(p.destination)).join(', '))}: ${preview(sanitize(g.caption))}`);
  else lines.push(`  caption: ${preview(cap)}`);
  lines.push(`  when:    ${whenText(it)}`);
  if (it.when?.note) lines.push(`           ${c.yellow(sanitize(it.when.note))}`);
  for (const p of it.plans) {
    const opts = p.values.map((v) => `${sanitize(v.key)}=${sanitize(String(v.value))}${c.dim(origin(it, p.name, v.key, v.source))}`);
    lines.push(`  to ${sanitize(destinationLabel(p.destination))}${opts.length ? `: ${opts.join(', ')}` : ''}`);
  }
  if (it.duplicate) lines.push(c.yellow(`  duplicate: ${sanitize(it.duplicate.message)}; refused when run (${ALLOW_TEXT})`));
  return lines;
}

/**
 * The plan, for --dry-run and the summary before the confirmation: pieces of
 * whole lines (joined by line breaks, each piece to be ended by one), made as
 * they are written, so a plan of 100,000 items is never one string or one
 * list of lines in memory, and goes out in a few hundred writes.
 */
export function* planLines(plan: BatchPlan, source: string, c: Colors): Generator<string> {
  let drafts = 0;
  let replays = 0;
  let dups = 0;
  for (const it of plan.items) {
    if (it.draft) drafts++;
    if (it.alreadyPosted) replays++;
    if (it.duplicate) dups++;
  }
  const lines = [
    c.bold(`Plan for ${sanitize(source)}: ${plan.items.length} item${plan.items.length === 1 ? '' : 's'}`) +
      ` (${plan.postsNeeded} to post${replays ? `, ${replays} already posted` : ''}${dups ? `, ${dups} duplicate${dups === 1 ? '' : 's'} refused` : ''}${drafts ? `, ${drafts} draft${drafts === 1 ? '' : 's'}` : ''}); times in ${plan.zone}`,
    `Daily post allowance: ${plan.postsNeeded} needed, ${plan.postsLeft ?? '?'} left${plan.postsLimit !== undefined ? ` of ${plan.postsLimit}` : ''}` +
      (plan.dailyResetAt ? ` (resets ${resetPhrase(plan.dailyResetAt, plan.zone)})` : ''),
  ];
  let size = 0;
  for (const it of plan.items) {
    for (const line of itemLines(it, c)) {
      lines.push(line);
      size += line.length + 1;
    }
    if (size >= PIECE_CHARS) {
      yield lines.splice(0).join('\n');
      size = 0;
    }
  }
  if (lines.length > 0) yield lines.join('\n');
}

/** The final table (stderr). */
export function outcomeTable(run: Pick<BatchRun, 'outcomes' | 'total' | 'counts' | 'stats'>, c: Colors, tty: boolean): string[] {
  const { outcomes, stats, total } = run;
  const style = (s: string, o: ItemOutcome) =>
    o.status === 'failed' || o.status === 'blocked' ? c.red(s) : o.status === 'skipped' || o.error ? c.yellow(s) : c.green(s);
  const rows = renderTable(
    outcomes,
    [
      { header: 'item', value: (o) => String(o.item) },
      { header: 'status', value: (o) => o.status, style },
      { header: 'video', value: (o) => o.media_id ?? '—' },
      { header: 'post', value: (o) => o.post_id ?? '—' },
      {
        header: 'destinations',
        value: (o) => (o.error ? o.error : o.destinations.map((d) => `${d.name} ${d.status}`).join(', ')),
      },
    ],
    { tty: true, bold: tty ? c.bold : undefined },
  );
  // A long batch's table has the items that did not end well only (outcome-keeper.ts); each item's line is on stdout.
  const ok = ['published', 'publishing', 'scheduled', 'draft'].reduce((n, st) => n + (run.counts[st] ?? 0), 0);
  const shown = outcomes.length === total - ok ? `the ${counted(outcomes.length, 'item')}` : `the first ${outcomes.length} of the ${total - ok} items`;
  const some = outcomes.length < total ? [`(${shown} of ${total} that did not end well; each item's line is on stdout)`] : [];
  const count = (s: string) => run.counts[s] ?? 0;
  const parts = ['published', 'publishing', 'scheduled', 'draft', 'blocked', 'failed', 'unknown', 'skipped', 'refused'].filter((s) => count(s) > 0).map((s) => `${count(s)} ${s}`);
  const perItem = total ? ` (${(stats.reads / total).toFixed(1)} reads, ${(stats.writes / total).toFixed(1)} writes per item)` : '';
  return [...(outcomes.length > 0 ? rows : []), ...some, '', `${parts.join(', ') || 'nothing done'} in ${formatDuration(stats.elapsed_ms)}; ${stats.reads + stats.writes} requests${perItem}.`];
}

/**
 * An item's outcome for a person at a terminal (stdout; pipes and --json get its JSON line):
 * `item 2 (line 10): published post_1f91478b3ef8f367`, then each destination with its link or
 * failure, the review page, and the error when it did not end well.
 */
export function outcomeLines(o: ItemOutcome, c: Colors): string[] {
  const style = o.status === 'failed' || o.status === 'blocked' ? c.red : o.status === 'skipped' || o.status === 'unknown' || o.error ? c.yellow : c.green;
  const lines = [`${c.bold(`item ${o.item}`)}${o.line !== undefined ? ` (line ${o.line})` : ''}: ${style(o.status)}${o.post_id ? ` ${o.post_id}` : o.media_id ? ` (video ${o.media_id})` : ''}${o.replayed ? ' (made by an earlier run)' : ''}`];
  for (const d of o.destinations) lines.push(`  ${sanitize(d.name)}  ${d.status}${d.url ? `  ${sanitize(d.url)}` : d.failure ? `: ${sanitize(d.failure)}` : ''}`);
  if (o.review_url) lines.push(`  review: ${sanitize(o.review_url)}`);
  if (o.error) lines.push(`  ${c.yellow(sanitize(o.error))}`);
  return lines;
}

/**
 * A merged summary (./merge.ts) as Markdown for `$GITHUB_STEP_SUMMARY`: the counts by shard, the
 * warnings, and the items that need a look (failed, refused, pending), at most MAX_ROWS of them.
 */
import { sanitize } from '../../errors.js';
import { REPORT_RESULTS } from './format.js';
import { itemLine } from './junit.js';
import { countsText, mergeWarnings, type MergedItem, type MergedReport } from './merge.js';

/** The most items listed: a step summary is read by a person (and GitHub keeps at most 1 MiB of it). */
export const MAX_ROWS = 100;

/** Text for a table cell: sanitized, and what Markdown or HTML would read escaped. */
function cell(text: string): string {
  return sanitize(text).replace(/[\\`*_{}[\]<>|#!~&]/g, (ch) => `\\${ch}`);
}

const row = (cells: (string | number)[]) => `| ${cells.map((c) => (typeof c === 'number' ? c.toLocaleString('en-US') : c)).join(' | ')} |`;

export function markdownSummary(m: MergedReport): string {
  const shards = m.shards.count === null ? '' : ` · ${m.shards.seen.length} of ${m.shards.count} shards`;
  const lines = [`### vidpub batch: ${m.total.toLocaleString('en-US')} item${m.total === 1 ? '' : 's'}`, '', `${countsText(m)}${shards} · manifest \`${cell(m.manifest.id)}\``, ''];
  const groups = new Map<string, MergedItem[]>();
  for (const it of m.items) groups.set(it.shard ?? 'all', [...(groups.get(it.shard ?? 'all') ?? []), it]);
  lines.push(row(['Shard', ...REPORT_RESULTS.map((r) => r[0]!.toUpperCase() + r.slice(1)), 'Items']), `|---|${REPORT_RESULTS.map(() => '---:').join('|')}|---:|`);
  const sorted = [...groups].sort(([a], [b]) => (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0));
  for (const [shard, items] of sorted) lines.push(row([shard, ...REPORT_RESULTS.map((r) => items.filter((it) => it.result === r).length), items.length]));
  if (sorted.length > 1) lines.push(row(['**all**', ...REPORT_RESULTS.map((r) => m.counts[r]), m.total]));
  lines.push('');
  for (const w of mergeWarnings(m)) lines.push(`> [!WARNING]`, `> ${cell(w)}`, '');
  const look = m.items.filter((it) => it.result === 'failed' || it.result === 'refused' || it.result === 'pending');
  if (look.length > 0) {
    lines.push(`#### ${look.length.toLocaleString('en-US')} item${look.length === 1 ? '' : 's'} to look at`, '', row(['Item', 'Shard', 'Result', 'What became of it']), '|---:|---|---|---|');
    for (const it of look.slice(0, MAX_ROWS)) lines.push(row([it.item, cell(it.shard ?? 'all'), it.result, cell(itemLine(it))]));
    if (look.length > MAX_ROWS) lines.push('', `… and ${(look.length - MAX_ROWS).toLocaleString('en-US')} more: \`vidpub batch report --json\` lists every item.`);
    lines.push('');
  }
  return lines.join('\n');
}

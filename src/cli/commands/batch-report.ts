import { UsageError, WorkFailedError, sanitize } from '../../errors.js';
import { countsText, mergeReports, mergeWarnings, type MergedReport, type ReportFile } from '../../batch/report/merge.js';
import { itemLine, junitXml } from '../../batch/report/junit.js';
import { markdownSummary } from '../../batch/report/markdown.js';
import { renderTable } from '../../ui/table.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { readReportText } from '../io/batch-shards.js';

interface Opts {
  reports: ReportFile[];
  markdown: boolean;
  junit?: { path: string; shown: string };
}

/** The counts by shard, then the items that need a look, for a person. */
function personLines(m: MergedReport, inv: Invocation): string[] {
  const shards = m.shards.count === null ? '' : `, ${m.shards.seen.length} of ${m.shards.count} shards`;
  const lines = [`${m.total.toLocaleString('en-US')} item${m.total === 1 ? '' : 's'}: ${countsText(m)}${shards} (manifest ${sanitize(m.manifest.id)})`];
  const look = m.items.filter((it) => it.result === 'failed' || it.result === 'refused' || it.result === 'pending');
  if (look.length === 0) return lines;
  lines.push('');
  lines.push(
    ...renderTable(
      look,
      [
        { header: 'item', value: (it) => String(it.item) },
        { header: 'shard', value: (it) => it.shard ?? 'all' },
        { header: 'result', value: (it) => it.result, style: (t) => inv.out.colors.red(t) },
        { header: 'what became of it', value: (it) => itemLine(it), shrink: true },
      ],
      { tty: true, bold: inv.out.colors.bold, width: inv.ctx.io.columns },
    ),
  );
  return lines;
}

/** The invocations that asked for --markdown. */
const MARKDOWN = new WeakSet<Invocation>();

export default defineCommand<'batch report', Opts, MergedReport>({
  description:
    'Merge the reports of the shards of one manifest (each written by "vidpub batch MANIFEST --shard I/N --report FILE") into one summary: ' +
    'the counts by result, the shards seen and those missing (named in a warning), and every item. An item in more than one report ' +
    '(a shard run again on another runner) keeps its best outcome (posted or replayed over refused, failed or pending), and a warning says so. ' +
    'Reports of different manifests are refused. At a terminal: the counts and the items to look at; in a pipe: a tab-separated line per item ' +
    '(item, id, shard, result, status, post id, media id, error); --markdown: a Markdown summary for $GITHUB_STEP_SUMMARY; --junit FILE also ' +
    'writes JUnit XML (a testsuite per shard, a testcase per item: failed as <failure>, refused and pending as <skipped>). Exit 6 when any item failed.',
  examples: [
    'vidpub batch report reports/*.json',
    'vidpub batch report reports/*.json --markdown > summary.md',
    'vidpub batch report reports/*.json --junit batch-junit.xml --json',
  ],
  fields: ['manifest', 'total', 'counts', 'shards', 'incomplete', 'reruns', 'files', 'items'],
  async parse(args, flags, inv) {
    if (flags.markdown && inv.globals.json) throw new UsageError('--markdown and --json: give one of them');
    const junit = flags.junit?.trim();
    if (junit === '') throw new UsageError('--junit needs the path of the file to write');
    const { resolve } = await import('node:path');
    const { parseReport } = await import('../../batch/report/format.js');
    const reports: ReportFile[] = [];
    for (const file of args[0]) reports.push({ file, report: parseReport(await readReportText(inv.ctx.cwd, file), file) });
    return { reports, markdown: flags.markdown, junit: junit === undefined ? undefined : { path: resolve(inv.ctx.cwd, junit), shown: sanitize(junit) } };
  },
  async run(opts, inv) {
    const merged = mergeReports(opts.reports);
    for (const w of mergeWarnings(merged)) inv.log.warn(w);
    if (opts.junit) {
      const { writeFileAtomicAsync } = await import('../../util/atomic-write.js');
      await writeFileAtomicAsync(opts.junit.path, junitXml(merged), { mode: 0o644 }).catch((err: unknown) => {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? 'its directory does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : sanitize(String(code ?? err));
        throw new UsageError(`cannot write the JUnit report ${opts.junit!.shown}: ${why}`);
      });
    }
    if (opts.markdown) MARKDOWN.add(inv);
    if (merged.counts.failed > 0) {
      throw new WorkFailedError(`${merged.counts.failed.toLocaleString('en-US')} of ${merged.total.toLocaleString('en-US')} items failed`, {
        data: merged,
        hint: 'Run the shards of the failed items again (vidpub batch MANIFEST --shard I/N): the items posted are replayed, not posted twice.',
      });
    }
    return merged;
  },
  print(m, inv) {
    if (MARKDOWN.has(inv)) {
      for (const line of markdownSummary(m).replace(/\n$/, '').split('\n')) inv.out.print(line);
      return;
    }
    if (inv.out.tty) {
      for (const line of personLines(m, inv)) inv.out.print(line);
      return;
    }
    for (const it of m.items) {
      inv.out.print([it.item, it.id, it.shard ?? 'all', it.result, it.status, it.post_id ?? '', it.media_id ?? '', it.error ?? ''].map((v) => sanitize(String(v))).join('\t'));
    }
  },
});

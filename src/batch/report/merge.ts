/**
 * Shard reports (./format.ts) merged into one summary: what `batch report FILE…` prints. Every
 * report must be of the same manifest (and, when sharded, of the same number of shards); an item
 * in more than one report (a shard run again on another runner) keeps its best outcome, and the
 * merge says which; the shards of 1..N no report covers are named.
 */
import { UsageError, sanitize } from '../../errors.js';
import { REPORT_RESULTS, type ReportItem, type ReportResult, type ShardReport } from './format.js';

/** A report as read, with the file it came from (as the user named it). */
export interface ReportFile {
  file: string;
  report: ShardReport;
}

/** One item of the merged summary: the outcome kept, and the report (file, shard) it came from. */
export interface MergedItem extends ReportItem {
  /** "2/4", or null for a report of a whole-manifest run. */
  shard: string | null;
  file: string;
}

/** An item found in more than one report: the outcome kept, and those it was kept over. */
export interface RerunItem {
  item: number;
  id: string;
  kept: { file: string; result: ReportResult };
  over: { file: string; result: ReportResult }[];
}

export interface MergedReport {
  manifest: { id: string; items: number };
  /** Distinct items across the reports. */
  total: number;
  counts: Record<ReportResult, number>;
  shards: { count: number | null; seen: number[]; missing: number[] };
  /** The reports whose run did not end by itself (stopped, or still going): their items may be pending. */
  incomplete: string[];
  reruns: RerunItem[];
  files: string[];
  /** By item number, then identity. */
  items: MergedItem[];
}

/** How good an outcome is: of one item in two reports, the better is kept. */
const RANK: Record<ReportResult, number> = { posted: 4, replayed: 4, refused: 2, failed: 1, pending: 0 };

/** Whether `a` is a better outcome than `b` (posted over replayed when both did it: the run that sent it has its ids). */
function better(a: ReportResult, b: ReportResult): boolean {
  return RANK[a] > RANK[b] || (a === 'posted' && b === 'replayed');
}

const shardName = (r: ShardReport) => (r.shard ? `${r.shard.index}/${r.shard.count}` : null);

/** The reports' manifest and shard count, refusing a mix (exit 2, naming the files). */
function commonGround(files: readonly ReportFile[]): { manifest: string; count: number | null } {
  const ids = [...new Set(files.map((f) => f.report.manifest.id))];
  if (ids.length > 1) {
    const which = ids.map((id) => `${files.filter((f) => f.report.manifest.id === id).map((f) => sanitize(f.file)).join(', ')} (manifest ${sanitize(id)})`);
    throw new UsageError(`these reports are of different manifests: ${which.join('; ')}`, {
      hint: 'Merge the reports of one manifest at a time: each run of batch --report names its manifest.',
    });
  }
  const counts = [...new Set(files.flatMap((f) => (f.report.shard ? [f.report.shard.count] : [])))];
  if (counts.length > 1) {
    const which = counts.map((n) => `${files.filter((f) => f.report.shard?.count === n).map((f) => sanitize(f.file)).join(', ')} (of ${n} shards)`);
    throw new UsageError(`these reports split the manifest into different numbers of shards: ${which.join('; ')}`, {
      hint: 'Merge the reports of one split (the same --shard I/N count) at a time.',
    });
  }
  return { manifest: ids[0]!, count: counts[0] ?? null };
}

/** The reports merged (at least one; all of one manifest). */
export function mergeReports(files: readonly ReportFile[]): MergedReport {
  const { manifest, count } = commonGround(files);
  const kept = new Map<string, MergedItem>();
  const reruns = new Map<string, RerunItem>();
  for (const { file, report } of files) {
    const shard = shardName(report);
    for (const it of report.items) {
      const here: MergedItem = { ...it, shard, file };
      const there = kept.get(it.id);
      if (!there) {
        kept.set(it.id, here);
        continue;
      }
      const [win, lose] = better(it.result, there.result) ? [here, there] : [there, here];
      kept.set(it.id, win);
      const rerun = reruns.get(it.id) ?? { item: it.item, id: it.id, kept: { file, result: it.result }, over: [] };
      rerun.over = [...rerun.over.filter((o) => o.file !== win.file || o.result !== win.result), { file: lose.file, result: lose.result }];
      rerun.kept = { file: win.file, result: win.result };
      reruns.set(it.id, rerun);
    }
  }
  const items = [...kept.values()].sort((a, b) => a.item - b.item || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const counts = Object.fromEntries(REPORT_RESULTS.map((r) => [r, 0])) as Record<ReportResult, number>;
  for (const it of items) counts[it.result]++;
  const seen = [...new Set(files.flatMap((f) => (f.report.shard ? [f.report.shard.index] : [])))].sort((a, b) => a - b);
  const whole = files.some((f) => f.report.shard === null);
  const missing = count === null || whole ? [] : Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.includes(i));
  return {
    manifest: { id: manifest, items: Math.max(...files.map((f) => f.report.manifest.items)) },
    total: items.length,
    counts,
    shards: { count, seen, missing },
    incomplete: files.filter((f) => !f.report.complete).map((f) => f.file),
    reruns: [...reruns.values()].sort((a, b) => a.item - b.item),
    files: files.map((f) => f.file),
    items,
  };
}

/** "1,197 posted, 3 replayed, 0 failed": the counts that are not zero (posted and failed always). */
export function countsText(m: MergedReport): string {
  const shown = REPORT_RESULTS.filter((r) => m.counts[r] > 0 || r === 'posted' || r === 'failed');
  return shown.map((r) => `${m.counts[r].toLocaleString('en-US')} ${r}`).join(', ');
}

/** The warnings a person should read (stderr): shards missing, reports of runs that did not end, items merged from reruns. */
export function mergeWarnings(m: MergedReport): string[] {
  const out: string[] = [];
  if (m.shards.missing.length > 0) {
    out.push(`No report of shard${m.shards.missing.length === 1 ? '' : 's'} ${m.shards.missing.map((i) => `${i}/${m.shards.count}`).join(', ')}: ${m.shards.missing.length === 1 ? 'its items are' : 'their items are'} not in this summary.`);
  }
  if (m.incomplete.length > 0) out.push(`The run of ${m.incomplete.map(sanitize).join(', ')} did not end by itself (stopped or still going): its items not reached are pending.`);
  // One line per pair of files, not per item: a shard run again has all its items twice.
  const pairs = new Map<string, { kept: string; over: string; n: number; results: Map<string, number> }>();
  for (const r of m.reruns) {
    for (const o of r.over) {
      const key = `${r.kept.file}\u0000${o.file}`;
      const p = pairs.get(key) ?? { kept: r.kept.file, over: o.file, n: 0, results: new Map() };
      p.n++;
      const what = r.kept.result === o.result ? r.kept.result : `${r.kept.result} over ${o.result}`;
      p.results.set(what, (p.results.get(what) ?? 0) + 1);
      pairs.set(key, p);
    }
  }
  for (const p of pairs.values()) {
    const results = [...p.results].map(([what, n]) => `${n} ${what}`).join(', ');
    out.push(`${p.n} item${p.n === 1 ? ' is' : 's are'} in both ${sanitize(p.kept)} and ${sanitize(p.over)} (a shard run again): kept the better outcome of each, from ${sanitize(p.kept)} (${results}).`);
  }
  return out;
}

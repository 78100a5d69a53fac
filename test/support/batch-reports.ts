/**
 * Shard reports written for tests, in the format `batch --report` writes (src/batch/report/format.ts),
 * for `batch report` to merge.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPORT_KIND, REPORT_VERSION, type ReportItem, type ReportResult, type ShardReport } from '../../src/batch/report/format.js';

const STATUS: Record<ReportResult, string> = { posted: 'published', replayed: 'published', refused: 'refused', failed: 'failed', pending: 'pending' };

/** Item `n` (1-based) of a manifest, with `result`: ids as a run would record them. */
export function reportItem(n: number, result: ReportResult, extra: Partial<ReportItem> = {}): ReportItem {
  const sent = result === 'posted' || result === 'replayed' || result === 'failed';
  return {
    item: n,
    id: `item-${String(n).padStart(4, '0')}`,
    result,
    status: STATUS[result],
    media_id: sent ? `med_${n}` : null,
    post_id: sent ? `post_${n}` : null,
    destinations: sent ? [{ destination_id: 'dst_youtube', status: result === 'failed' ? 'failed' : 'published', ...(result === 'failed' ? { failure: 'the video was refused' } : {}) }] : [],
    ...(result === 'failed' ? { error: 'a destination failed' } : {}),
    ...extra,
  };
}

export function shardReport(opts: { manifest?: string; items: ReportItem[]; shard?: [number, number] | null; total?: number; complete?: boolean }): ShardReport {
  return {
    kind: REPORT_KIND,
    v: REPORT_VERSION,
    manifest: { id: opts.manifest ?? 'mf_week', items: opts.total ?? 12 },
    shard: opts.shard ? { index: opts.shard[0], count: opts.shard[1] } : null,
    started_at: '2026-11-29T03:00:00.000Z',
    ended_at: opts.complete === false ? null : '2026-11-29T03:10:00.000Z',
    complete: opts.complete ?? true,
    items: opts.items,
  };
}

/** The reports written as files in a new directory; returns the directory. */
export function writeReports(files: Record<string, ShardReport | string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-reports-'));
  for (const [name, r] of Object.entries(files)) writeFileSync(join(dir, name), typeof r === 'string' ? r : JSON.stringify(r));
  return dir;
}

/**
 * `batch --report FILE`: the shard's report (format.ts) kept on disk as the run goes. Every item of
 * the run is in it from the start, `pending`; each item's entry changes as it ends, and the file is
 * written again, whole and atomically (util/atomic-write.ts), one write at a time: the items that
 * end while one is written go into the next. When the run ends, or is stopped (Ctrl-C, SIGTERM,
 * --timeout), the last write says so; a run killed outright leaves the last file written, whole.
 */
import { writeFileAtomic, writeFileAtomicAsync } from '../../util/atomic-write.js';
import type { ItemOutcome } from '../run-types.js';
import { REPORT_KIND, REPORT_VERSION, type ReportItem, type ReportResult, type ShardReport } from './format.js';

/** What an item's outcome counts as in a report. */
export function resultOf(o: ItemOutcome): ReportResult {
  // Refused before anything was sent (a duplicate of an earlier post): nothing to rerun.
  if (o.status === 'refused') return 'refused';
  if (o.status === 'failed' || o.status === 'blocked' || o.status === 'unknown') return 'failed';
  // Stopped (Ctrl-C, SIGTERM, --timeout) before its post was made: not reached.
  if (o.status === 'skipped') return 'pending';
  if (!o.post_id) return 'failed';
  return o.replayed === true ? 'replayed' : 'posted';
}

/** An item's entry from its outcome. */
export function reportItem(o: ItemOutcome, id: string): ReportItem {
  const item: ReportItem = {
    item: o.item,
    id,
    result: resultOf(o),
    status: o.status,
    media_id: o.media_id,
    post_id: o.post_id,
    destinations: o.destinations.map((d) => ({ destination_id: d.destination_id, status: d.status, ...(d.url !== undefined ? { url: d.url } : {}), ...(d.failure !== undefined ? { failure: d.failure } : {}) })),
  };
  if (o.error !== undefined) item.error = o.error;
  return item;
}

export function pendingItem(n: number, id: string): ReportItem {
  return { item: n, id, result: 'pending', status: 'pending', media_id: null, post_id: null, destinations: [] };
}

export class ReportWriter {
  private readonly report: ShardReport;
  private readonly byItem = new Map<number, ReportItem>();
  private writing: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** The first write that failed: said once, at the end. */
  failure: unknown;

  constructor(
    private readonly path: string,
    head: Pick<ShardReport, 'manifest' | 'shard' | 'started_at'>,
    items: ReportItem[],
  ) {
    this.report = { kind: REPORT_KIND, v: REPORT_VERSION, manifest: head.manifest, shard: head.shard, started_at: head.started_at, ended_at: null, complete: false, items: [] };
    for (const it of items) this.byItem.set(it.item, it);
  }

  /** The report as it stands, its items in the manifest's order. */
  snapshot(): ShardReport {
    return { ...this.report, items: [...this.byItem.values()].sort((a, b) => a.item - b.item) };
  }

  /** An item has ended: its entry is replaced, and the file written again soon. */
  set(item: ReportItem): void {
    this.byItem.set(item.item, item);
    this.schedule();
  }

  /** The run starts: the report, every item pending, written before anything is sent (throws what the file system says). */
  start(): void {
    writeFileAtomic(this.path, JSON.stringify(this.snapshot()) + '\n', { durable: false });
  }

  /** Writes the report again soon, not waiting for it. */
  private schedule(): void {
    if (this.closed) return;
    if (this.writing) {
      this.again = true;
      return;
    }
    this.writing = (async () => {
      do {
        this.again = false;
        // Not flushed to the disk each time: a process killed leaves the file in the page cache; the last write is.
        await writeFileAtomicAsync(this.path, JSON.stringify(this.snapshot()) + '\n', { durable: false }).catch((err: unknown) => (this.failure ??= err));
      } while (this.again && !this.closed);
    })().finally(() => (this.writing = undefined));
  }

  /** The run has ended (complete) or was stopped: the last write, flushed to the disk. */
  async close(endedAt: string, complete: boolean): Promise<void> {
    this.closed = true;
    await this.writing;
    this.report.ended_at = endedAt;
    this.report.complete = complete && [...this.byItem.values()].every((it) => it.result !== 'pending');
    try {
      writeFileAtomic(this.path, JSON.stringify(this.snapshot()) + '\n');
    } catch (err) {
      this.failure ??= err;
    }
  }
}

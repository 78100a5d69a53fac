/**
 * A batch run's shard, its report and the items earlier reports have as done (batch-flow.ts calls
 * it once the manifest is read, before any item is checked against the service):
 *
 * - `--shard I/N`: only the items of this shard are kept (shard.ts), the others dropped before the
 *   plan, so a runner checks and posts its own items only;
 * - `--skip-done FILE…`: the items an earlier report (of this manifest: another's is refused,
 *   exit 2, before anything is sent) has as posted or replayed are dropped too, and reported as
 *   refused with the reason;
 * - `--report FILE`: the items kept go into the report as pending, each updated as it ends
 *   (report/write.ts).
 */
import { UsageError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import type { Manifest } from './manifest-types.js';
import { parseReport, type ReportItem } from './report/format.js';
import { ReportWriter, pendingItem, reportItem } from './report/write.js';
import type { ItemOutcome } from './run-types.js';
import { itemIdentity, manifestIdentity, shardOf, type Shard } from './shard.js';

export interface ShardOpts {
  shard?: Shard | null;
  /** --report: where the report goes (an absolute path). */
  report?: string;
  /** --skip-done: the reports read, each with its name as given. */
  skipDone?: { file: string; text: string }[];
}

export interface ShardRun {
  /** Items of the manifest (all shards). */
  total: number;
  /** Told of each item as it ends (wraps the run's own `onItem`). */
  onItem(next?: (o: ItemOutcome) => void): (o: ItemOutcome) => void;
  /** The run starts: the report (every item pending) is written, or exit 2 before anything is sent. */
  start(): void;
  /** The run has ended, or was stopped (`complete` false): the report's last write. */
  close(complete: boolean): Promise<void>;
}

/** The items an earlier report has as done (posted or replayed), by identity, with what it said of each. */
function doneItems(reports: { file: string; text: string }[], manifestId: string): Map<string, { file: string; item: ReportItem }> {
  const done = new Map<string, { file: string; item: ReportItem }>();
  for (const { file, text } of reports) {
    const r = parseReport(text, file);
    if (r.manifest.id !== manifestId) {
      throw new UsageError(`--skip-done ${sanitize(file)} is a report of another manifest (${sanitize(r.manifest.id)}; this one is ${manifestId}): nothing was sent`, {
        hint: 'Give the reports this manifest\'s runs wrote (a manifest is named by its batch_key, else by its first item: see docs/batch.md, "Shards").',
      });
    }
    for (const it of r.items) if (it.result === 'posted' || it.result === 'replayed') done.set(it.id, { file, item: it });
  }
  return done;
}

/** Keeps the manifest's items of this run (its shard, less those done), and prepares its report. */
export function openShardRun(manifest: Manifest, opts: ShardOpts, session: Session): ShardRun {
  const batchKey = manifest.batchKey;
  const manifestId = manifestIdentity(batchKey, manifest.items[0] && itemIdentity(manifest.items[0], batchKey));
  const total = manifest.items.length;
  const done = opts.skipDone && opts.skipDone.length > 0 ? doneItems(opts.skipDone, manifestId) : undefined;
  const idOf = new Map<number, string>();
  const refused: ReportItem[] = [];
  // Each item's identity made, its shard taken, and kept only for the items of this run.
  const kept = manifest.items.filter((it) => {
    const id = itemIdentity(it, batchKey);
    if (opts.shard && shardOf(id, opts.shard.count) !== opts.shard.index) return false;
    const earlier = done?.get(id);
    if (earlier) {
      refused.push({
        ...earlier.item,
        item: it.n,
        result: 'refused',
        status: 'skipped',
        error: `--skip-done: ${sanitize(earlier.file)} has it as ${earlier.item.result}${earlier.item.post_id ? ` (post ${earlier.item.post_id})` : ''}; not sent again`,
      });
      return false;
    }
    idOf.set(it.n, id);
    return true;
  });
  manifest.items = kept;
  if (opts.shard) session.log.info(`Shard ${opts.shard.index}/${opts.shard.count}: ${kept.length + refused.length} of the manifest's ${total} item${total === 1 ? '' : 's'}.`);
  if (refused.length > 0) session.log.info(`Skipping ${refused.length} item${refused.length === 1 ? '' : 's'} an earlier report has as posted (--skip-done).`);

  const writer =
    opts.report === undefined
      ? undefined
      : new ReportWriter(opts.report, { manifest: { id: manifestId, items: total }, shard: opts.shard ?? null, started_at: new Date(session.clock.now()).toISOString() }, [
        ...refused,
        ...[...idOf].map(([n, id]) => pendingItem(n, id)),
      ]);
  return {
    total,
    onItem: (next) => (o) => {
      const id = idOf.get(o.item);
      if (writer && id !== undefined) writer.set(reportItem(o, id));
      next?.(o);
    },
    start() {
      try {
        writer?.start();
      } catch (err) {
        throw new UsageError(`cannot write the report ${sanitize(opts.report!)}: ${sanitize(err instanceof Error ? err.message : String(err))}; nothing was sent`, {
          hint: 'Give --report a file in a directory that exists and that you can write.',
        });
      }
    },
    async close(complete) {
      if (!writer) return;
      await writer.close(new Date(session.clock.now()).toISOString(), complete);
      if (writer.failure) session.log.warn(`The report ${sanitize(opts.report!)} could not be written: ${sanitize(writer.failure instanceof Error ? writer.failure.message : String(writer.failure))}`);
    },
  };
}

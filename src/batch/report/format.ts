/**
 * A shard's report: what `batch --report FILE` writes (atomically, as items end and when the run
 * is stopped) and what `batch report FILE…` merges and `batch --skip-done FILE…` reads. It names
 * the manifest it belongs to, so a report of another manifest is refused, and each item by the
 * identity that also picks its shard and its Idempotency-Keys, so an item appended to the
 * manifest does not take an earlier item's place.
 */
import { UsageError, sanitize } from '../../errors.js';

export const REPORT_KIND = 'vidpub.batch.report';
export const REPORT_VERSION = 1;

/** What became of one item in this shard's run. */
export type ReportResult =
  /** Posted (published, scheduled or publishing) by this run. */
  | 'posted'
  /** Already posted by an earlier run (the service or the journal replayed it): nothing sent twice. */
  | 'replayed'
  /** Refused before anything was sent (a duplicate, a limit, a skip of an item an earlier report has as posted). */
  | 'refused'
  /** Sent and failed, or left unknown: the item needs a look or a rerun. */
  | 'failed'
  /** Not reached: the run was stopped (Ctrl-C, --timeout, SIGTERM) before the item ended. */
  | 'pending';

export const REPORT_RESULTS: readonly ReportResult[] = ['posted', 'replayed', 'refused', 'failed', 'pending'];

export interface ReportItem {
  /** The item's 1-based place in the manifest (for people; the identity is `id`). */
  item: number;
  /** The item's identity: the hash its shard and its keys come from. */
  id: string;
  result: ReportResult;
  /** The item's status as `batch --json` writes it (published, scheduled, failed…). */
  status: string;
  media_id: string | null;
  post_id: string | null;
  destinations: { destination_id: string; status: string; url?: string; failure?: string }[];
  error?: string;
}

export interface ShardReport {
  kind: typeof REPORT_KIND;
  v: typeof REPORT_VERSION;
  /** The manifest's identity (the same on every machine for the same manifest), and its item count at this run. */
  manifest: { id: string; items: number };
  /** This run's shard, or null for a whole-manifest run. */
  shard: { index: number; count: number } | null;
  started_at: string;
  /** When the run ended; null while it goes on (a report read then is partial). */
  ended_at: string | null;
  /** Whether the run ended by itself (false when stopped or still running). */
  complete: boolean;
  items: ReportItem[];
}

/** Reads a report's text, refusing anything that is not one (exit 2, naming the file and what is wrong). */
export function parseReport(text: string, file: string): ShardReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${sanitize(file)} is not a batch report (not JSON); give the file a \`batch --report\` wrote`);
  }
  const r = value as Partial<ShardReport> | null;
  if (!r || typeof r !== 'object' || r.kind !== REPORT_KIND) {
    throw new UsageError(`${sanitize(file)} is not a batch report (no "kind": "${REPORT_KIND}"); give the file a \`batch --report\` wrote`);
  }
  if (r.v !== REPORT_VERSION) {
    throw new UsageError(`${sanitize(file)} is a batch report of version ${sanitize(String(r.v))}; this vidpub reads version ${REPORT_VERSION}`);
  }
  if (!r.manifest || typeof r.manifest.id !== 'string' || !Array.isArray(r.items)) {
    throw new UsageError(`${sanitize(file)} is a damaged batch report (no manifest id or no items)`);
  }
  for (const it of r.items) {
    if (!it || typeof it.id !== 'string' || !REPORT_RESULTS.includes(it.result as ReportResult)) {
      throw new UsageError(`${sanitize(file)} is a damaged batch report (an item without an id or a known result)`);
    }
  }
  return r as ShardReport;
}

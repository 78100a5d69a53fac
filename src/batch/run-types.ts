/**
 * What a batch run reports: each item's outcome, the events a journal hears
 * as they happen, the run's options and its figures.
 */
import type { OutcomeUnknownError } from '../errors.js';

export type ItemStatus = 'published' | 'publishing' | 'scheduled' | 'draft' | 'failed' | 'skipped' | 'blocked' | 'unknown' | 'refused';

export interface DestinationOutcome {
  destination_id: string;
  name: string;
  status: string;
  url?: string;
  failure?: string;
}

/** One item's line of output. */
export interface ItemOutcome {
  item: number;
  line?: number;
  status: ItemStatus;
  media_id: string | null;
  post_id: string | null;
  /** An item with captions of its destinations' own: every post it made (post_id is the first). */
  posts?: string[];
  review_url: string | null;
  publish_at: string | null;
  destinations: DestinationOutcome[];
  /** The post (or video) was already made by an earlier run and replayed. */
  replayed?: boolean;
  error?: string;
}

/**
 * Where a batch reports what it did, item by item, as it happens: the hook a
 * local journal plugs into. Every call is awaited; a recorder that throws
 * does not stop the batch.
 */
export interface BatchRecorder {
  record(event: BatchEvent): void | Promise<void>;
  /**
   * Whether an earlier run posted the item with this key (its rerun is a
   * replay that spends no daily allowance). Without it, every item that
   * publishes or schedules is counted against what GET /me says is left.
   */
  wasPosted?(key: string): boolean | Promise<boolean>;
}

export type BatchEvent =
  | { type: 'item-started'; item: number; key: string }
  | { type: 'media'; item: number; key: string; media_id: string; status: string }
  | { type: 'post'; item: number; key: string; post_id: string; replayed: boolean }
  | { type: 'item-finished'; item: number; key: string; outcome: ItemOutcome };

export interface RunOptions {
  concurrency: number;
  wait: boolean;
  /** --timeout, for the whole batch. */
  timeoutMs: number;
  /** What the checks before the run already spent of it (the confirmation not counted). */
  spentMs?: number;
  recorder?: BatchRecorder;
  /** Told of each item as soon as it has ended (its stdout line need not wait for the whole batch). */
  onItem?: (outcome: ItemOutcome) => void;
  /** Keep every item's outcome, however long the batch (its whole result is printed at the end). */
  keepAll?: boolean;
}

export interface RunStats {
  reads: number;
  writes: number;
  elapsed_ms: number;
  /** Times the pacing held a request back. */
  paced_waits: number;
}

/** Why an item did not end well, for the exit code. */
export type Trouble = 'failed' | 'blocked' | 'timeout' | 'rate' | 'interrupted' | 'unknown' | 'duplicate';

export interface BatchRun {
  /** The outcomes kept for the summary (outcome-keeper.ts): every item's, or those that did not end well. */
  outcomes: ItemOutcome[];
  /** The items of the run. */
  total: number;
  /** How many items ended with each status. */
  counts: Record<string, number>;
  stats: RunStats;
  /** The exit-code error, or undefined when every item ended well. */
  troubles: Map<number, Trouble>;
  /** The items whose write got no answer: what the client said of each. */
  unknowns?: Map<number, OutcomeUnknownError>;
  /** Items stopped by --timeout that go on at the service (a post created, a video sent whole). */
  goingOn?: Set<number>;
}

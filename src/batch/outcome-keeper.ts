/**
 * What a batch run keeps of its items' outcomes once each has ended (its
 * line is already out, run-batch.ts): the count of each status, and the
 * outcomes its summary shows. A batch of up to KEEP_ALL_ITEMS items, or one
 * whose whole result is printed at the end (--json's document, the lines a
 * person reads at a terminal), keeps every outcome; a longer one keeps
 * those that did not end well, the first MAX_TROUBLED of them, so its
 * memory does not grow with its length.
 */
import type { ItemOutcome, Trouble } from './run-types.js';

/** Up to this many items, the summary's table has a row for every item. */
export const KEEP_ALL_ITEMS = 1000;
/** The most outcomes of items that did not end well a long batch keeps for its summary. */
export const MAX_TROUBLED = 1000;

export class OutcomeKeeper {
  readonly counts: Record<string, number> = {};
  private readonly outcomes: ItemOutcome[] = [];
  private readonly all: boolean;

  constructor(
    readonly total: number,
    keepAll: boolean,
  ) {
    this.all = keepAll || total <= KEEP_ALL_ITEMS;
  }

  /** An item has ended (with its trouble, if it did not end well). */
  add(o: ItemOutcome, trouble: Trouble | undefined): void {
    this.counts[o.status] = (this.counts[o.status] ?? 0) + 1;
    if (this.all || (trouble !== undefined && this.outcomes.length < MAX_TROUBLED)) this.outcomes.push(o);
  }

  /** The kept outcomes, in the manifest's order. */
  kept(): ItemOutcome[] {
    return this.outcomes.sort((a, b) => a.item - b.item);
  }
}

/**
 * Running a checked batch plan: uploads and imports `concurrency` at a time
 * (at most 5 imports downloading at once, the service's cap), each item's
 * post created as soon as its video is ready (run-item.ts), every request
 * paced within the key's per-minute allowance (allowance-gate.ts), and posts
 * sent "now" followed until every destination ends (unless --no-wait). One
 * deadline, --timeout, for the whole run: a wait cut short by it says what
 * is true (the post exists and goes on, or the video does), never "failed".
 *
 * Items are started lazily, in order, through a pool of `inFlightLimit`
 * (a few times the uploads' places: the items whose video is processing or
 * whose post is publishing hold no upload place), so a batch of any length
 * has that many items, their promises and signals alive at once, and the
 * plan lets go of each item as it starts. Each item's
 * outcome goes to `onItem` as it ends; the run keeps what its summary needs
 * (outcome-keeper.ts).
 */
import pLimit from 'p-limit';
import { bindDeadline } from '../session/deadline.js';
import type { Session } from '../session/session.js';
import type { PacedClient } from './allowance-gate.js';
import { OutcomeKeeper } from './outcome-keeper.js';
import type { BatchPlan, PlannedItem } from './plan.js';
import { closeRunContext, createRunContext } from './run-context.js';
import { runItem } from './run-item.js';
import type { BatchRun, RunOptions } from './run-types.js';

/**
 * Items under way at once for every upload place: most of them wait (for their video's
 * processing, their post's publishing, a look a second later), which costs a timer each, and
 * too few under way would leave the run waiting on them rather than on the allowance.
 */
const ITEMS_PER_PLACE = 16;
/** The fewest items under way at once, whatever --concurrency. */
const MIN_IN_FLIGHT = 64;

/** The most items of a run under way at once (started and not yet ended). */
export function inFlightLimit(concurrency: number): number {
  return Math.max(MIN_IN_FLIGHT, Math.max(1, concurrency) * ITEMS_PER_PLACE);
}

export async function runBatch(plan: BatchPlan, outer: Session, paced: PacedClient, opts: RunOptions): Promise<BatchRun> {
  const started = outer.clock.now();
  const deadlineMs = started + opts.timeoutMs - (opts.spentMs ?? 0);
  // One deadline for the whole run, as for post: every request, upload, write and wait stops at it.
  const bound = bindDeadline(outer, deadlineMs, opts.timeoutMs);
  const startReads = paced.counts.read;
  const startWrites = paced.counts.write;
  const keeper = new OutcomeKeeper(plan.items.length, opts.keepAll === true);
  const rc = createRunContext({ plan, session: bound.session, stopSignal: outer.signal, paced, opts: { ...opts, onItem: (o) => (keeper.add(o, rc.troubles.get(o.item)), opts.onItem?.(o)) }, deadlineMs });
  try {
    // p-limit's pool, fed one item at a time: the next item is handed to it only once it has room,
    // so its queue holds no item and no promise is made for an item not yet started.
    const pool = pLimit(inFlightLimit(opts.concurrency));
    const running = new Set<Promise<void>>();
    // The run takes each item out of the plan as it starts it: an item that has ended is held by
    // nothing, so the plan's memory goes down as the run goes on (nothing reads the items after).
    const items = plan.items;
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      items[i] = undefined as unknown as PlannedItem;
      while (pool.activeCount + pool.pendingCount >= pool.concurrency) await Promise.race(running);
      const p: Promise<void> = pool(() => runItem(rc, it)).finally(() => running.delete(p));
      running.add(p);
    }
    await Promise.all(running);
  } finally {
    closeRunContext(rc);
    bound.dispose();
  }
  return {
    outcomes: keeper.kept(),
    total: keeper.total,
    counts: keeper.counts,
    troubles: rc.troubles,
    unknowns: rc.unknowns,
    goingOn: rc.goingOn,
    stats: {
      reads: paced.counts.read - startReads,
      writes: paced.counts.write - startWrites,
      elapsed_ms: rc.clock.now() - started,
      paced_waits: paced.stats.read.waits + paced.stats.write.waits,
    },
  };
}

/**
 * Running a checked batch plan: uploads and imports `concurrency` at a time
 * (at most 5 imports downloading at once, the service's cap), each item's
 * post created as soon as its video is ready (run-item.ts), every request
 * paced within the key's per-minute allowance (allowance-gate.ts), and posts
 * sent "now" followed until every destination ends (unless --no-wait). One
 * deadline, --timeout, for the whole run: a wait cut short by it says what
 * is true (the post exists and goes on, or the video does), never "failed".
 */
import { bindDeadline } from '../session/deadline.js';
import type { Session } from '../session/session.js';
import type { PacedClient } from './allowance-gate.js';
import type { BatchPlan } from './plan.js';
import { closeRunContext, createRunContext } from './run-context.js';
import { runItem } from './run-item.js';
import type { BatchRun, RunOptions } from './run-types.js';

export async function runBatch(plan: BatchPlan, outer: Session, paced: PacedClient, opts: RunOptions): Promise<BatchRun> {
  const started = outer.clock.now();
  const deadlineMs = started + opts.timeoutMs - (opts.spentMs ?? 0);
  // One deadline for the whole run, as for post: every request, upload, write and wait stops at it.
  const bound = bindDeadline(outer, deadlineMs, opts.timeoutMs);
  const startReads = paced.counts.read;
  const startWrites = paced.counts.write;
  const rc = createRunContext({ plan, session: bound.session, stopSignal: outer.signal, paced, opts, deadlineMs });
  try {
    await Promise.all(plan.items.map((it) => runItem(rc, it)));
  } finally {
    closeRunContext(rc);
    bound.dispose();
  }
  return {
    outcomes: plan.items.map((it) => rc.outcomes.get(it.n)!),
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

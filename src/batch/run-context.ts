/**
 * What every item of a batch run shares: the run's session, client, signals
 * and deadline, the places to take in turn, the live view, what the run has
 * learned of how long things take, and where each item's ending is kept.
 */
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../core/clock.js';
import type { OutcomeUnknownError } from '../errors.js';
import type { Session } from '../session/session.js';
import type { PacedClient } from './allowance-gate.js';
import type { BatchView } from './live-view.js';
import { createView } from './live-view.js';
import type { BatchPlan, PlannedItem } from './plan.js';
import type { BatchEvent, ItemOutcome, RunOptions, Trouble } from './run-types.js';
import { Slots, type Release } from './slots.js';

/** The longest the service's imports may download at once (imports_in_flight beyond it). */
const MAX_IMPORTS_IN_FLIGHT = 5;

export interface RunContext {
  plan: BatchPlan;
  /** The run's session, bound to its deadline, with the paced client. */
  session: Session;
  client: ApiClient;
  clock: Clock;
  /** Ctrl-C or the deadline. */
  signal: AbortSignal;
  /** Ctrl-C alone (the command's own signal). */
  stopSignal: AbortSignal;
  deadlineMs: number;
  opts: RunOptions;
  view: BatchView;
  /** An item holds one from its start until its video is sent. */
  slots: Slots;
  /** A link's item holds one from its import until the video is ready. */
  imports: Slots;
  /** The shortest time the run's videos took to be ready and its posts to finish (ms): when to look first. */
  learned: { media?: number; post?: number };
  troubles: Map<number, Trouble>;
  unknowns: Map<number, OutcomeUnknownError>;
  goingOn: Set<number>;
  /** Tells the recorder; a recorder that throws does not stop the batch. */
  record(e: BatchEvent): Promise<void>;
}

/** The step of an item whose write may be left without an answer. */
export type Step = 'upload' | 'import' | 'post';

/** One item under way: its outcome as known so far, its step, the places it holds. */
export interface ItemRun {
  it: PlannedItem;
  out: ItemOutcome;
  step: Step;
  /**
   * The run's signal, the item's own: its waits and requests listen here, a
   * few at a time, rather than every item's on the run's signal (where Node
   * warns past 10 listeners). It aborts with the run's, with its reason.
   */
  signal: AbortSignal;
  releaseSlot?: Release;
  releaseImport?: Release;
}

export interface RunSetup {
  plan: BatchPlan;
  /** The session bound to the run's deadline. */
  session: Session;
  stopSignal: AbortSignal;
  paced: PacedClient;
  opts: RunOptions;
  deadlineMs: number;
}

function labelOf(it: PlannedItem): string {
  return it.video.kind === 'file' ? it.video.shown : it.video.kind === 'url' ? it.video.url : `video ${it.video.id}`;
}

export function createRunContext(setup: RunSetup): RunContext {
  const { plan, session, opts, paced } = setup;
  const client = paced.client;
  paced.within(session.signal);
  return {
    plan,
    session: { ...session, client: async () => client },
    client,
    clock: session.clock,
    signal: session.signal,
    stopSignal: setup.stopSignal,
    deadlineMs: setup.deadlineMs,
    opts,
    view: createView(session, () => new Map(plan.items.map((it) => [it.n, labelOf(it)]))),
    slots: new Slots(Math.max(1, opts.concurrency), session.signal),
    imports: new Slots(MAX_IMPORTS_IN_FLIGHT, session.signal),
    learned: {},
    troubles: new Map(),
    unknowns: new Map(),
    goingOn: new Set(),
    record: async (e) => {
      try {
        await opts.recorder?.record(e);
      } catch {
        // a journal that cannot write does not stop the posting
      }
    },
  };
}

/** The run is over: the view stops, the places stop listening to the signal. */
export function closeRunContext(rc: RunContext): void {
  rc.view.stop();
  rc.slots.dispose();
  rc.imports.dispose();
}

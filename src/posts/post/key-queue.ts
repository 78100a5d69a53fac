/**
 * Goodput on a shared key (issue 52): the runs of `post` on one machine that
 * share a key take turns at its writes, so that the minute's allowance makes
 * posts rather than uploads that never reach theirs.
 *
 * A post costs writes: an upload 3 (the upload session, its complete, the
 * post), an import 2, a video already there 1. Before its first write a run
 * joins the key's queue in the state directory (src/journal/write-queue.ts)
 * and is let through only when the writes it needs to finish are free this
 * minute, after those promised to the runs let through before it. A run let
 * through keeps its promise across the minute's reset (the writes it still
 * needs are the new minute's first), so work already started (an upload
 * waiting for its post) goes before new work; a run that continues an earlier
 * one goes before every new run. The queue is first come, first served.
 *
 * What the minute holds comes from the service: GET /me once when nothing is
 * known, then each post's X-RateLimit-Remaining and -Reset (the writes of
 * other machines count there). The waits end at the reset plus a random
 * part, so the waiting runs never come back all at once.
 *
 * A run that would be let through too late to finish within its --timeout
 * (judged by how long the last run took once let through) stops at once:
 * exit 7, nothing sent, with the line that runs it again.
 *
 * Whatever goes wrong with the queue itself (its lock, the disk) lets the
 * run go on without it: the client's own pacing and 429 waits still apply.
 */
import { responseMeta } from '../../api/client.js';
import { afterReset } from '../../api/send/retry-decision.js';
import { DeadlineReached, TimeoutError } from '../../errors.js';
import { changeQueue, owner, queueFile, type QueueState } from '../../journal/write-queue.js';
import { formatDuration } from '../../time/duration.js';
import { nodeCrypto } from '../../util/lazy-builtins.js';
import { counted } from '../../util/plural.js';
import type { PostRun, WriteTicket } from './types.js';

export const WINDOW_MS = 60_000;
/** How often a run at the head of the queue looks again; one further back looks this much more seldom per run ahead (up to LOOK_MAX_MS). */
const LOOK_MS = 300;
const LOOK_MAX_MS = 3_000;
/** A run asking GET /me for the counter: the others wait this long at most for its answer. */
const PROBE_MS = 10_000;
/** The shortest wait for the queue's lock before the first write (the file lock's own default). */
const LOCK_WAIT_MIN_MS = 10_000;
/** How long a run takes once let through, before one was measured. */
const FIRST_RUN_MS = 15_000;

/** What the queue says to a run. */
export type Decision = { state: 'go' } | { state: 'probe' } | Wait;
/** Waiting: when its turn would come, when the minute resets, how many runs are ahead of it. */
interface Wait {
  state: 'wait';
  admitAt: number;
  resetAt: number;
  ahead: number;
  /** Let through, but too late to finish within its --timeout. */
  late?: true;
}

/** The run's place: work already started first, then first come, first served. */
const order = (a: { started?: boolean; since: number; id: string }, b: { started?: boolean; since: number; id: string }) =>
  Number(b.started === true) - Number(a.started === true) || a.since - b.since || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The window moved on to the minute of `now`: the runs let through keep the writes they still need, first. */
export function roll(state: QueueState, now: number): void {
  const w = state.window;
  if (!w || now < w.resetAt) return;
  w.resetAt += WINDOW_MS * Math.ceil((now - w.resetAt + 1) / WINDOW_MS);
  w.spent = state.entries.reduce((n, e) => n + (e.admitted !== undefined ? e.need : 0), 0);
}

/** What the service said of the write counter (a post's X-RateLimit-*): other machines' writes count. */
export function noteCounter(state: QueueState, rl: { limit: number; remaining: number; resetSec: number }, now: number): void {
  roll(state, now);
  const resetAt = now + rl.resetSec * 1000;
  const used = Math.max(0, rl.limit - rl.remaining);
  const w = state.window;
  if (!w || resetAt > w.resetAt + 1_500) {
    const promised = state.entries.reduce((n, e) => n + (e.admitted !== undefined ? e.need : 0), 0);
    state.window = { limit: rl.limit, resetAt, spent: Math.max(used, promised) };
    return;
  }
  w.limit = rl.limit;
  w.spent = Math.max(w.spent, used);
}

/** Whether run `id` may write now (it is let through, its writes promised), must ask the service first, or waits. */
export function decide(state: QueueState, id: string, now: number): Decision {
  roll(state, now);
  const w = state.window;
  const me = state.entries.find((e) => e.id === id);
  if (!w) {
    // Alone, nothing to share: it goes (its post's answer tells the queue the counter). Else one run asks the service.
    if (me && state.entries.length === 1) {
      me.admitted = now;
      return { state: 'go' };
    }
    if (state.probe && now - state.probe.at < PROBE_MS) return { state: 'wait', admitAt: now, resetAt: state.probe.at + PROBE_MS, ahead: state.entries.length - 1 };
    state.probe = { at: now };
    return { state: 'probe' };
  }
  if (!me || me.admitted !== undefined) return { state: 'go' };
  const waiting = state.entries.filter((e) => e.admitted === undefined).sort(order);
  const place = waiting.indexOf(me);
  const free = w.limit - w.spent;
  // An allowance smaller than one post's writes cannot be shared out: the service's answers pace it.
  if ((place === 0 && me.need <= free) || w.limit < me.need) {
    me.admitted = now;
    w.spent += me.need;
    return { state: 'go' };
  }
  const demand = waiting.slice(0, place + 1).reduce((n, e) => n + e.need, 0);
  const minutes = demand <= free ? 0 : Math.ceil((demand - Math.max(0, free)) / w.limit);
  return { state: 'wait', admitAt: minutes === 0 ? now : w.resetAt + (minutes - 1) * WINDOW_MS, resetAt: w.resetAt, ahead: place };
}

/** When a run whose turn may come any moment looks again (ms): the further back, the more seldom, so dozens of runs do not hold the queue's lock in turn. */
export function lookAgain(ahead: number, random: () => number): number {
  const ms = Math.min(LOOK_MAX_MS, LOOK_MS * (1 + Math.max(0, ahead)));
  return Math.round(ms + random() * LOOK_MS);
}

/** The writes a run needs to finish: an upload 3, an import 2, a video already there 1. */
function needOf(run: PostRun): number {
  const kind = run.opts.source.kind;
  return kind === 'file' ? 3 : kind === 'url' ? 2 : 1;
}

/**
 * Waits for the run's turn at the key's writes (see above); undefined when it
 * runs without the queue (no journal, no key hash, the queue unusable). Throws
 * TimeoutError (exit 7) when its turn would come too late for its --timeout.
 */
export async function queueForWrites(run: PostRun): Promise<WriteTicket | undefined> {
  const { session } = run;
  const client = await session.client();
  if (!session.journal || !client.keyId) return undefined;
  const path = queueFile(session.journal.dir, client.baseUrl, client.keyId);
  const id = nodeCrypto().randomBytes(6).toString('hex');
  const now = () => session.clock.now();
  const need = needOf(run);
  const change = <T>(fn: (s: QueueState) => T) => changeQueue(path, now(), session.signal, fn);
  // Before its first write, a lock held by the other runs (dozens polling it on a loaded machine) is waited for up to the
  // deadline: a run that gave up on it would go on without the queue and spend the writes promised to the runs ahead.
  const waitTurn = <T>(fn: (s: QueueState) => T) => changeQueue(path, now(), session.signal, fn, Math.max(LOCK_WAIT_MIN_MS, run.deadlineMs - now()));
  let posted = false;
  const leave = async (): Promise<void> => {
    await change((s) => {
      const me = s.entries.find((e) => e.id === id);
      s.entries = s.entries.filter((e) => e.id !== id);
      // How long a run takes once let through, for the estimates of those waiting: measured on runs that posted.
      if (me?.admitted !== undefined && posted) s.runMs = Math.round(((s.runMs ?? now() - me.admitted) + (now() - me.admitted)) / 2);
    }).catch(() => undefined);
  };
  try {
    for (let said = false; ; ) {
      const d = await waitTurn((s): { decision: Decision; runMs?: number } => {
        if (!s.entries.some((e) => e.id === id)) s.entries.push({ id, ...owner(), since: now(), need, ...(run.key.continued ? { started: true } : {}) });
        const decision = decide(s, id, now());
        // Let through, but too late to finish before --timeout: it sends nothing.
        if (decision.state === 'go' && s.runMs !== undefined && now() + s.runMs > run.deadlineMs) {
          const me = s.entries.find((e) => e.id === id)!;
          if (s.window && me.admitted !== undefined) s.window.spent -= me.need;
          delete me.admitted;
          return { decision: { state: 'wait', admitAt: now(), resetAt: now(), ahead: 0, late: true } };
        }
        return { decision, runMs: s.runMs };
      });
      const decision = d.decision;
      if (decision.state === 'go') break;
      if (decision.state === 'probe') {
        await probe(run, (fn) => waitTurn(fn));
        continue;
      }
      if (decision.late || decision.admitAt + (d.runMs ?? FIRST_RUN_MS) > run.deadlineMs) throw tooLate(run, decision.admitAt - now(), decision.ahead);
      if (!said && decision.admitAt > now()) {
        said = true;
        session.log.info(
          `This key's writes this minute are promised to ${counted(decision.ahead, 'run')} ahead of this one on this machine: ` +
            `waiting about ${formatDuration(Math.max(1000, decision.admitAt - now()))} for its turn, so that every upload gets its post.`,
        );
      }
      // Near the head: look again soon; further back: at the reset, spread out at random.
      const wait = decision.admitAt > now() ? afterReset(Math.max(LOOK_MS, decision.resetAt - now()), Math.random) : lookAgain(decision.ahead, Math.random);
      await session.clock.sleep(wait, session.signal);
    }
  } catch (err) {
    await leave();
    if (err instanceof TimeoutError) throw err;
    if (session.signal.aborted) throw session.signal.reason instanceof DeadlineReached ? tooLate(run, 0, 0) : err;
    session.log.debug(`The key's write queue could not be used (${(err as Error).message}); going on without it.`);
    return undefined;
  }
  return {
    progressed: (left) => change((s) => void Object.assign(s.entries.find((e) => e.id === id) ?? {}, { need: left })).catch(() => undefined),
    posted: async (post) => {
      posted = true;
      const rl = responseMeta(post)?.rateLimit;
      await change((s) => {
        const me = s.entries.find((e) => e.id === id);
        if (me) me.need = 0;
        if (rl && rl.limit > 0) noteCounter(s, rl, now());
      }).catch(() => undefined);
    },
    end: leave,
  };
}

/** GET /me for the write counter, when the queue knows nothing of it (one run asks; the others wait for its answer). */
async function probe(run: PostRun, change: (fn: (s: QueueState) => void) => Promise<void>): Promise<void> {
  const { session } = run;
  const me = await (await session.client()).getMe({ signal: session.signal }).catch((err: unknown) => {
    if (session.signal.aborted) throw err;
    return undefined;
  });
  const c = me?.limits?.requests_per_minute?.write;
  const resetSec = responseMeta(me)?.rateLimit?.resetSec;
  const known = c && typeof c.limit === 'number' && typeof c.remaining === 'number' ? c : undefined;
  await change((s) => {
    delete s.probe;
    if (known) noteCounter(s, { limit: known.limit, remaining: known.remaining, resetSec: resetSec ?? 60 }, session.clock.now());
  });
  // Unread: this run goes on without the queue (the next run asks again).
  if (!known) throw new Error('the write counter could not be read');
}

/** exit 7 before any write: the run's turn would come too late to finish within --timeout. */
function tooLate(run: PostRun, inMs: number, ahead: number): TimeoutError {
  const when = inMs > 1000 ? `its turn comes in about ${formatDuration(inMs)}` : 'its turn comes now';
  const queue = ahead > 0 ? `the key's writes are promised to ${counted(ahead, 'run')} ahead of this one on this machine, and ` : '';
  return new QueueTooLateError(`Stopped before its first write: ${queue}${when}, too late to finish within --timeout; nothing was uploaded or posted.`, {
    hint: 'Run the same command again (the line below), later or with a longer --timeout.',
    continueKey: run.key.key,
  });
}

/** exit 7: the run's turn at the key's writes would come too late for its --timeout (told as it is). */
export class QueueTooLateError extends TimeoutError {}

/**
 * An identical run of `post` that is still running is never duplicated: a
 * run claims its command before anything is sent (RunMemory.claim: its
 * socket first, then a look for another live one), and a run that finds
 * another live (started a moment earlier or at the same instant, orphaned by
 * a killed shell, stopped by SIGSTOP) waits for it, as `flock` would, then
 * continues it under its key: what it did is reported, not done twice. The
 * wait ends at --timeout (exit 7) with the line that continues it, and on a
 * signal. --force-new claims nothing and waits for nothing.
 *
 * Without --idempotency-key any live run of the same command counts; with
 * one, only a live run under that key (the line printed here, run while the
 * first run is still stopped, waits again instead of posting beside it).
 *
 * The age of a cut-off run's note (the judge RunMemory.cutOff asks) goes by
 * the service's clock: the service forgets an Idempotency-Key 24 hours after
 * it first saw it, by its own clock, so that clock, not this machine's, says
 * whether a cut-off run can still be continued. A machine whose clock jumped (a VM restored from a snapshot, a
 * container with a skewed clock) would otherwise drop a note of five seconds
 * ago as "older than 24 hours" and post anew.
 *
 * The service's time is its last answer's `Date` header (moved on by our clock
 * since: src/api/send/request-sender.ts); a run keeps it in its note
 * (serviceStarted). A note is judged only when this machine's clock says it is
 * older than 24 hours; then, without an answer heard yet, GET /me asks.
 * Where the two clocks disagree by more than a few minutes, stderr says so.
 * When the service's time cannot be read, the note is kept (the safe side:
 * continuing under the old key makes one post at most, whatever the service
 * remembers).
 */
import { DeadlineReached, TimeoutError } from '../../errors.js';
import type { AgeJudge, LiveRun, OpenRun, RunMemory } from '../../journal/journal-types.js';
import type { RunKey } from '../../session/run-key.js';
import type { Session } from '../../session/session.js';
import { relativePhrase } from '../../time/describe.js';
import { formatDuration } from '../../time/duration.js';
import { isoUtc } from '../../time/iso-time.js';
import type { JournalPost } from '../../journal/journal-types.js';
import { reportEarlier } from '../rerun.js';
import type { PostResult } from '../view.js';
import type { PostRun } from './types.js';

/** How often a waiting run looks again (a readdir and a connect per live socket). */
export const LOOK_MS = 200;

/** What claiming the command found. */
export interface Claimed {
  /** A cut-off run of the command (no live process holds it), newest first: this run takes its key. */
  earlier?: OpenRun;
  /** A live run this one waited for, which ended: its key is taken (its note, when it left one, is `earlier`). */
  waited?: LiveRun & { key: string };
  /** True when `waited` is a run that finished after this one started, unseen (it ran while this one was starting). */
  beside?: boolean;
  /** The run waited for finished and named its post: this run reports that post, claims nothing and sends nothing. */
  settled?: OpenRun & { postId: string };
}

/**
 * Claims the command for this run: the key it will post under is a cut-off
 * run's, else that of a run it waited for, else its own. Returns once the
 * claim is held (until the run's end), having waited for every live run.
 * The cut-off runs are looked for again once the claim is held: one that ran
 * whole between the first look and the claim is continued too.
 */
export async function claimCommand(
  session: Session,
  memory: RunMemory,
  key: RunKey,
  judge: AgeJudge,
  at: { publishAtFlag: boolean; startedAt?: number },
): Promise<Claimed> {
  let waited: (LiveRun & { key: string }) | undefined;
  let beside = false;
  let said = false;
  for (let round = 0; ; round++) {
    const earlier = await memory.cutOff(judge);
    const claimKey = key.given ? key.key : (earlier?.key ?? waited?.key ?? key.key);
    const live = await memory.claim(claimKey, key.given);
    if (live.length === 0) {
      // Claimed; but a run of the command that ran and was cut off between the look above and the claim (this one
      // stopped or starved of CPU between them) left its note since: its key, as if the note had been there at the look.
      // Only a note newer than the one taken counts (the one taken is held by this run now, so an older one shows):
      // each round takes a newer note, so the rounds end.
      if (!key.given) {
        const since = await memory.cutOff(judge);
        if (since && since.key !== claimKey && (!earlier || since.started > earlier.started)) {
          memory.release(claimKey);
          continue;
        }
      }
      // Claimed; but an identical run that finished since this one started ran beside it, unseen: its key.
      const done = key.given || earlier || waited || at.startedAt === undefined ? undefined : memory.finishedSince(at.startedAt);
      if (done) {
        memory.release(claimKey);
        if (done.postId !== undefined) return { waited: { key: done.key, note: done }, beside: true, settled: { ...done, postId: done.postId } };
        waited = { key: done.key, note: done };
        beside = true;
        continue;
      }
      return { ...(earlier ? { earlier } : {}), ...(waited ? { waited } : {}), ...(beside ? { beside } : {}) };
    }
    if (!said) {
      said = true;
      const first = live.find((r) => r.note) ?? live.find((r) => r.key) ?? live[0]!;
      const started = first.note ? `, started ${relativePhrase(first.note.started, session.clock.now())} (${isoUtc(first.note.started)})` : '';
      session.log.info(
        `An identical run of this command is running${started}${first.key ? ` under the key ${first.key}` : ''}: waiting for it to end (up to --timeout), ` +
          'so that what it posts is reported, not posted twice. To post beside it instead, add --force-new.',
      );
    }
    waited = (await waitOut(session, memory, key, live, round, at)) ?? waited;
    // Every waiter at once, unclaimed: the run waited for made its post and said so in its note (it is read, not replayed).
    // (Or any run of the command that finished since this one started: the last socket seen may be another waiter's.)
    const settled = (waited ? memory.settled(waited.key) : undefined) ?? (key.given || at.startedAt === undefined ? undefined : memory.finishedSince(at.startedAt));
    if (settled?.postId !== undefined) return { waited: waited!, settled: { ...settled, postId: settled.postId } };
  }
}

/** Waits until no run of the command (under this key, when given) is live; returns the last one seen with a key. */
async function waitOut(
  session: Session,
  memory: RunMemory,
  key: RunKey,
  live: LiveRun[],
  round: number,
  at: { publishAtFlag: boolean },
): Promise<(LiveRun & { key: string }) | undefined> {
  const withKey = (runs: LiveRun[]) => (runs.find((r) => r.key !== undefined && r.note) ?? runs.find((r) => r.key !== undefined)) as (LiveRun & { key: string }) | undefined;
  let known = withKey(live);
  try {
    for (;;) {
      // Two runs that each saw the other gave way both: a pause of its own for each, so one goes first.
      await session.clock.sleep(LOOK_MS + (round > 0 ? Math.floor(Math.random() * LOOK_MS * 2) : 0), session.signal);
      const now = await memory.running(key.given ? key.key : undefined);
      const k = withKey(now);
      if (k && (k.note || !known?.note || k.key !== known.key)) known = k;
      if (now.length === 0) return known;
    }
  } catch (err) {
    // Not its cause: an error caused by the deadline is told as the bare --timeout.
    if (session.signal.reason instanceof DeadlineReached) throw stillRunning(known, at);
    throw err;
  }
}

/**
 * The identical run waited for ended with its post made (its note names it): the post is read from
 * the journal and reported as it is now (GET /posts/{id}, a read); nothing is uploaded or posted, so
 * any number of waiters settle at once without spending the key's writes.
 */
export async function reportSettled(run: PostRun, settled: NonNullable<PostRun['track']['settled']>): Promise<PostResult> {
  const { session, opts, deadlineMs } = run;
  const known = await session.journal?.find(settled.postId).catch(() => undefined);
  const earlier: JournalPost = known ?? ({ post_id: settled.postId, destinations: [] } as unknown as JournalPost);
  const which = settled.beside ? 'An identical run of this command finished while this one was starting' : 'The identical run waited for has ended';
  const message = `${which} and made post ${settled.postId} (key ${settled.key}): reporting it as it is now; nothing was uploaded or posted again. To post anew instead, add --force-new.`;
  return reportEarlier(session, await session.client(), earlier, { key: settled.key, wait: opts.wait, timeoutMs: opts.timeoutMs, deadlineMs, zone: opts.zone, message });
}

/** exit 7: --timeout reached while waiting for an identical run still running (told as it is, not as another phase's timeout). */
export class StillRunningError extends TimeoutError {}

/** exit 7: --timeout reached while the identical run was still running; the line that continues it, when its key is known. */
function stillRunning(known: (LiveRun & { key: string }) | undefined, at: { publishAtFlag: boolean }): TimeoutError {
  const publishAt = known?.note?.publishAt;
  return new StillRunningError('Stopped (--timeout reached) while an identical run of this command was still running (stopped, or still working); this run sent nothing.', {
    hint: known
      ? "Once that run has ended, the line above reports its post (or makes it, if it never was), here or on another machine; to post beside it instead, add --force-new."
      : 'Run the same command again once that run has ended: it reports what that run posted; to post beside it instead, add --force-new.',
    ...(known ? { continueKey: known.key, ...(at.publishAtFlag && publishAt ? { continueFlags: { '--at': publishAt } } : {}) } : {}),
  });
}

/** How far the two clocks may disagree before vidpub says so. */
export const SKEW_SAID_MS = 5 * 60_000;

/** The service's time now, as the client last heard it; undefined when no answer carried a Date header. */
export async function heardServiceNow(session: Session): Promise<number | undefined> {
  try {
    return (await session.client()).serviceNow?.();
  } catch {
    return undefined;
  }
}

/** Says on stderr (once per session) that this machine's clock and the service's disagree, when they do. */
const said = new WeakSet<object>();
export function sayClockSkew(session: Session, serviceNow: number | undefined): void {
  if (serviceNow === undefined || said.has(session.log)) return;
  const skew = session.clock.now() - serviceNow;
  if (Math.abs(skew) <= SKEW_SAID_MS) return;
  said.add(session.log);
  session.log.warn(
    `This machine's clock is ${formatDuration(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} the service's (its Date header): ` +
      "the age of an earlier run of this command is judged by the service's clock.",
  );
}

/** The judge of a note's age for RunMemory.cutOff: by the service's clock (GET /me at most once, when nothing was heard). */
export function serviceAgeJudge(session: Session): AgeJudge {
  let asked: Promise<void> | undefined;
  let unread = false;
  const ask = async (): Promise<void> => {
    try {
      await (await session.client()).getMe({ signal: session.signal });
    } catch (err) {
      if (session.signal.aborted) throw err;
    }
  };
  return async (run) => {
    let now = await heardServiceNow(session);
    if (now === undefined) {
      await (asked ??= ask());
      now = await heardServiceNow(session);
    }
    if (now === undefined) {
      if (!unread) {
        unread = true;
        session.log.warn(
          `An earlier run of this command is ${formatDuration(session.clock.now() - run.started)} old by this machine's clock, and the service's time could not be read: ` +
            'it is continued under its key (the safe side).',
        );
      }
      return undefined;
    }
    sayClockSkew(session, now);
    return now - (run.serviceStarted ?? run.started);
  };
}

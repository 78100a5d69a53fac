/**
 * How old a run's note is, by the service's clock: the service forgets an
 * Idempotency-Key 24 hours after it first saw it, by its own clock, so that
 * clock, not this machine's, says whether a cut-off run can still be
 * continued. A machine whose clock jumped (a VM restored from a snapshot, a
 * container with a skewed clock) would otherwise drop a note of five seconds
 * ago as "older than 24 hours" and post anew.
 *
 * The service's time is its last answer's `Date` header (moved on by our clock
 * since: src/api/request-sender.ts); a run keeps it in its note
 * (serviceStarted). A note is judged only when this machine's clock says it is
 * older than 24 hours; then, without an answer heard yet, GET /me asks.
 * Where the two clocks disagree by more than a few minutes, stderr says so.
 * When the service's time cannot be read, the note is kept (the safe side:
 * continuing under the old key makes one post at most, whatever the service
 * remembers).
 */
import type { AgeJudge } from '../../journal/journal-types.js';
import type { Session } from '../../session/session.js';
import { formatDuration } from '../../time/duration.js';

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

/**
 * An item's waits: for its video to be ready and for its post's destinations
 * to end. Polling is frugal: a video is looked at again when its progress
 * says it should be about ready, and a post when the earlier posts of the
 * run took about that long to publish. Each look reads through the shared
 * handling of trouble (readThrough, src/api/wait/poll.ts): a 5xx, a 429, a
 * dropped connection or a request timing out is looked at again later (its
 * Retry-After, else a jittered backoff) until the batch's --timeout.
 */
import { readThrough } from '../api/wait/poll.js';
import { DEFAULT_UNANSWERED_MS } from '../api/wait/unanswered.js';
import type { Media, Post } from '../contract/wire-types.js';
import { TimeoutError, VidpubError, isDeadline } from '../errors.js';
import { postSettled } from '../contract/wire-types.js';
import type { ItemRun, RunContext } from './run-context.js';

const MIN_POLL_MS = 300;
const MAX_POLL_MS = 5000;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The batch's --timeout cut a wait short; `lastFailure` is why the last look failed, when it did. */
export class WaitCut extends TimeoutError {
  constructor(readonly lastFailure: unknown) {
    super('--timeout reached');
  }
}

/** A failed look in a few words, for the live view. */
function troubleWord(err: unknown): string {
  const status = err instanceof VidpubError ? err.http?.status : undefined;
  return status ? `HTTP ${status}` : 'no answer';
}

/** A pause between looks, never past the deadline. */
async function pause(rc: RunContext, run: ItemRun, ms: number): Promise<void> {
  const left = rc.deadlineMs - rc.clock.now();
  if (left <= 0) throw new WaitCut(undefined);
  await rc.clock.sleep(Math.min(clamp(ms, MIN_POLL_MS, MAX_POLL_MS), left), run.signal);
}

/**
 * One read of a wait, riding out transient trouble until the deadline like
 * every other wait (readThrough); the item's line says it meanwhile.
 */
export function readWithin<T>(rc: RunContext, run: ItemRun, doing: () => string, fetch: (look: AbortSignal) => Promise<T>): Promise<T> {
  const { signal } = run;
  let lastFailure: unknown;
  return readThrough<T>({
    fetch: ({ signal: look }) => fetch(look),
    clock: rc.clock,
    signal,
    deadlineMs: rc.deadlineMs,
    onRetry: (err) => {
      lastFailure = err;
      rc.view.state(run.it.n, `${doing()} (the last look failed: ${troubleWord(err)}; looking again)`);
    },
    onDeadline: (err) => new WaitCut(err),
    // A service that has not answered at all for --unanswered-timeout cuts the wait as the deadline would.
    unansweredMs: rc.session.unansweredMs ?? DEFAULT_UNANSWERED_MS,
    onUnanswered: (err) => new WaitCut(err),
    // The deadline cut the read short (a look in flight, or the pause between looks): a wait cut off, naming the last failure.
    onStopped: (err) => (isDeadline(signal) ? new WaitCut(lastFailure) : err),
  });
}

function mediaState(m: Media): string {
  const percent = typeof m.progress?.percent === 'number' && m.status !== 'ready' ? ` ${Math.round(m.progress.percent)}%` : '';
  return `${m.status === 'processing' ? 'processing' : m.status}${percent}`;
}

/** Polls a video until it is ready (or failed), looking again when its progress says it should be done. */
export async function waitReady(rc: RunContext, run: ItemRun, first: Media, since: number): Promise<Media> {
  const { clock, learned } = rc;
  let m = first;
  let interval = 1000;
  let firstLook = true;
  while (m.status === 'uploading' || m.status === 'processing') {
    const elapsed = clock.now() - since;
    const p = typeof m.progress?.percent === 'number' ? m.progress.percent : undefined;
    let wait: number;
    if (firstLook && learned.media !== undefined) wait = learned.media + 50 - elapsed;
    else if (p !== undefined && p > 0 && p < 100 && elapsed > 0) wait = ((elapsed * (100 - p)) / p) * 0.75;
    else wait = interval;
    firstLook = false;
    interval = Math.min(MAX_POLL_MS, interval * 1.5);
    await pause(rc, run, wait);
    const id = m.id;
    const status = m.status;
    m = await readWithin(rc, run, () => String(status), (look) => rc.client.getMedia(id, { signal: look }));
    rc.view.state(run.it.n, mediaState(m));
  }
  if (m.status === 'ready') learned.media = Math.min(learned.media ?? Infinity, clock.now() - since);
  return m;
}

/**
 * Polls a post until every destination has ended: first when the run's
 * earlier posts took to finish, else from how fast its destinations are
 * ending, else on a doubling interval.
 */
export async function follow(rc: RunContext, run: ItemRun, post: Post, since: number): Promise<Post> {
  const { clock, learned } = rc;
  let p = post;
  let interval = 1000;
  let firstLook = true;
  while (!postSettled(p)) {
    const elapsed = clock.now() - since;
    const dests = Array.isArray(p.destinations) ? p.destinations : [];
    const done = dests.filter((d) => ['published', 'failed', 'cancelled'].includes(String(d.status))).length;
    let wait: number;
    if (firstLook && learned.post !== undefined) wait = learned.post + 50 - elapsed;
    else if (done > 0 && done < dests.length) wait = (elapsed / done) * (dests.length - done) * 0.5;
    else {
      wait = interval;
      interval = Math.min(MAX_POLL_MS, interval * 2);
    }
    firstLook = false;
    await pause(rc, run, wait);
    const id = p.id;
    p = await readWithin(rc, run, () => 'publishing', (look) => rc.client.getPost(id, { signal: look }));
  }
  learned.post = Math.min(learned.post ?? Infinity, clock.now() - since);
  return p;
}

/**
 * Waiting for a video to be ready: polls GET /media/{id} with the client's
 * poller (1 s backing off to 5 s, paced by X-RateLimit-Remaining, every wait
 * interruptible, a deadline) and shows the service's phase and percent.
 */
import type { Media } from '../contract/wire-types.js';
import { poll } from '../api/wait/poll.js';
import { DEFAULT_UNANSWERED_MS, troubleLine } from '../api/wait/unanswered.js';
import { WorkTimer } from '../api/wait/work-timer.js';
import { InterruptedError, TimeoutError, VidpubError, WorkFailedError, isInterruption, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import type { Progress } from '../ui/progress.js';
import { withLinkedSignal } from '../util/any-signal.js';
import { formatDuration } from '../time/duration.js';
import { mediaEvent } from '../events/post-events.js';
import { pacedProgress } from '../events/progress-events.js';

/** The contract's rule: a client stops polling on any status other than uploading or processing. */
export function isMediaSettled(m: Pick<Media, 'status'>): boolean {
  return m.status !== 'uploading' && m.status !== 'processing';
}

const PHASE_LABELS: Record<string, string> = {
  uploading: 'Waiting for the upload',
  downloading: 'Downloading',
  processing: 'Processing',
};

/** "Processing", "Downloading"… for a media record. */
export function phaseLabel(m: Media): string {
  const phase = typeof m.progress?.phase === 'string' ? m.progress.phase : m.status === 'processing' ? 'processing' : m.source === 'import' ? 'downloading' : 'uploading';
  return PHASE_LABELS[phase] ?? sanitize(phase.charAt(0).toUpperCase() + phase.slice(1));
}

function percentOf(m: Media): number | undefined {
  const p = m.progress?.percent;
  return typeof p === 'number' && Number.isFinite(p) ? Math.max(0, Math.min(100, Math.round(p))) : undefined;
}

/** Where a media record stands, in words: "still processing (50%)". */
export function describeMediaState(m: Media): string {
  const p = percentOf(m);
  const label = phaseLabel(m).toLowerCase();
  const what = m.status === 'processing' || m.status === 'uploading' ? `still ${label === 'waiting for the upload' ? 'uploading' : label}` : String(m.status);
  return p === undefined ? what : `${what} (${p}%)`;
}

/**
 * The command that posts a video once it is ready: the run's own (`vidpub post` knows its
 * destinations and caption), else with placeholders (`vidpub upload` and `import` know neither).
 */
export type PostLine = (mediaId: string) => string;

const placeholderPost: PostLine = (mediaId) => `vidpub post --media ${mediaId} --to <destination> --caption "..."`;

/** The hint that says how to carry on with a media id once it is ready. */
export function laterHint(mediaId: string, postLine: PostLine = placeholderPost): string {
  return `It goes on at the service.${POST_IT_LATER}${postLine(mediaId)}`;
}

/** The hint of a video stopped once uploaded: how to post it. */
export function postItHint(mediaId: string, postLine: PostLine = placeholderPost): string {
  return `${POST_IT}${postLine(mediaId)}`;
}

const POST_IT_LATER = ' Once it is ready, post it with: ';
const POST_IT = 'Post it with: ';

/**
 * A hint without the line that posts the video (laterHint, postItHint): for a command that
 * prints its own line to continue (a `post` stopped once it had sent something reruns itself
 * under its key), so that one stop offers one way on, not two. Undefined when nothing is left.
 */
export function withoutPostItLine(hint: string | undefined): string | undefined {
  if (hint === undefined) return undefined;
  const kept = hint
    .split('\n')
    .map((line) => (line.startsWith(POST_IT) ? '' : line.includes(POST_IT_LATER) ? line.slice(0, line.indexOf(POST_IT_LATER)) : line))
    .filter((line) => line !== '');
  return kept.length > 0 ? kept.join('\n') : undefined;
}

/** A video that failed processing; `code` is the service's (error.code of the record), for the JSON error object. */
class MediaFailedError extends WorkFailedError {
  constructor(
    message: string,
    opts: ConstructorParameters<typeof WorkFailedError>[1],
    readonly code?: string,
  ) {
    super(message, opts);
  }
}

/** The error for a media record that ended as failed (exit 6), carrying the record. */
export function mediaFailedError(m: Media): WorkFailedError {
  const why = m.error?.message ? sanitize(m.error.message) : undefined;
  const hint = m.source === 'import' ? 'Check that the link opens the video file itself, then import it again.' : 'Check that the file plays on your computer, then upload it again.';
  // The service's message usually says what to do; our hint is for when it says nothing.
  const code = typeof m.error?.code === 'string' ? sanitize(m.error.code) : undefined;
  return new MediaFailedError(`Video ${m.id} (${sanitize(m.filename ?? '')}) failed: ${why ?? 'the service gave no reason'}`, { data: m, hint: why ? undefined : hint }, code);
}

/** What every media flow (upload, import) takes. */
export interface MediaFlowOptions {
  /**
   * Base of the flow's Idempotency-Keys (KEY:upload, KEY:complete:<id>, KEY:import):
   * a rerun with the same base within 24 h replays instead of doing the work twice.
   */
  idempotencyBase?: string;
  /** Wait until the video is ready (or failed). */
  wait: boolean;
  /** Absolute clock time (ms, as session.clock.now()) after which the wait stops: TimeoutError, exit 7. */
  deadlineMs?: number;
  signal?: AbortSignal;
  progress?: Progress;
  /** Called as soon as the service has given the video an id (again if a new upload replaces it). */
  onMedia?(media: Media): void;
  /** The command a hint names to post the video later (default: with placeholders for what is not known). */
  postLine?: PostLine;
}

export interface WaitOptions {
  /** Absolute clock time (ms, as session.clock.now()) after which we stop waiting: TimeoutError, exit 7. */
  deadlineMs?: number;
  signal?: AbortSignal;
  progress?: Progress;
  /** The record we have already (e.g. from complete), to show before the first poll. */
  current?: Media;
  /** The command a hint names to post the video later. */
  postLine?: PostLine;
}

/**
 * An upload whose processing starts now (complete's answer: processing at
 * 0%): how long processing took last time for a video of about this size
 * tells the wait when to look.
 */
function startsNow(m: Media | undefined): m is Media {
  return m !== undefined && m.source === 'upload' && m.status === 'processing' && (m.progress?.percent ?? 0) === 0;
}

/**
 * Polls until the video is ready; returns the ready record. Throws
 * WorkFailedError (failed, exit 6), TimeoutError (deadline, exit 7) or
 * InterruptedError (Ctrl-C, exit 130), each naming the media id.
 */
export async function waitForMedia(session: Session, mediaId: string, opts: WaitOptions = {}): Promise<Media> {
  // Its own signal follows the session's and the caller's until it ends (util/any-signal.ts).
  return withLinkedSignal([session.signal, opts.signal], (signal) => waitForMediaLinked(session, mediaId, opts, signal));
}

async function waitForMediaLinked(session: Session, mediaId: string, opts: WaitOptions, signal: AbortSignal): Promise<Media> {
  const client = await session.client();
  let last: Media | undefined = opts.current;
  const show = (m: Media) => opts.progress?.status(phaseLabel(m), percentOf(m));
  const current = opts.current;
  const size = typeof current?.size_bytes === 'number' ? current.size_bytes : undefined;
  const timer = startsNow(current) ? await WorkTimer.start(client.memory, 'media:processing', session.clock.now(), size) : undefined;
  const unansweredMs = session.unansweredMs ?? DEFAULT_UNANSWERED_MS;
  const say = (line: string) => (opts.progress ? opts.progress.note(line) : session.log.info(line));
  // Each look as an event (--events, src/events/): processing's percent paced, then ready or failed.
  const tell = pacedProgress(session.events, session.clock);
  const told = (m: Media) => {
    const e = mediaEvent(m);
    if (e) tell(e);
  };
  if (current) told(current);
  let media: Media;
  try {
    media = await poll<Media>({
      // The record in hand is the first look: the next one waits for its progress to say when
      // (or, before there is any, for how long processing took last time).
      initial: opts.current,
      timer,
      fetch: ({ signal: look }) => client.getMedia(mediaId, { signal: look, quietRetries: true }),
      done: isMediaSettled,
      unansweredMs,
      onTrouble: (change) => say(change.answered ? 'The service answers again.' : troubleLine(change.err, unansweredMs)),
      onUnanswered: (m, err, ms) =>
        new TimeoutError(`The service has not answered for ${formatDuration(ms)}: stopped waiting for video ${mediaId}, which is ${m ? describeMediaState(m) : 'not ready yet'}. The last look failed: ${err instanceof Error ? err.message : String(err)}`, {
          hint: laterHint(mediaId, opts.postLine),
          data: m ?? { id: mediaId },
          cause: err,
        }),
      onUpdate: (m) => {
        last = m;
        told(m);
        if (!isMediaSettled(m)) show(m);
      },
      clock: session.clock,
      signal,
      deadlineMs: opts.deadlineMs,
      what: `video ${mediaId} to be ready`,
      onTimeout: (m) =>
        new TimeoutError(
          `Stopped waiting (--timeout reached): video ${mediaId} is ${m ? describeMediaState(m) : 'not ready yet'}.`,
          { hint: laterHint(mediaId, opts.postLine), data: m },
        ),
    });
  } catch (err) {
    // The deadline aborted a look in flight or a pause between looks: the same stop as between looks.
    if (err instanceof TimeoutError && err.data === undefined) {
      throw new TimeoutError(`Stopped waiting (--timeout reached): video ${mediaId} is ${last ? describeMediaState(last) : 'not ready yet'}.`, {
        hint: laterHint(mediaId, opts.postLine),
        data: last ?? { id: mediaId },
        cause: err,
      });
    }
    if (isInterruption(err, signal)) {
      throw new InterruptedError(`Interrupted: stopped waiting for video ${mediaId}${last ? `, which is ${describeMediaState(last)}` : ''}.`, {
        hint: laterHint(mediaId, opts.postLine),
        data: last,
        cause: err,
      });
    }
    throw err;
  } finally {
    opts.progress?.stop();
  }
  if (media.status === 'ready') {
    // Written in the background (the client's close waits for it): the post need not wait for the disk.
    void timer?.remember();
    return media;
  }
  if (media.status === 'failed') throw mediaFailedError(media);
  throw new VidpubError(`Video ${mediaId} ended in an unexpected status "${sanitize(String(media.status))}"`, { data: media });
}

/**
 * What the steps of one `post` run hand each other (post-flow.ts runs them:
 * check, choose the destinations, plan their options, ask, confirm, obtain
 * the video, create the post, follow it).
 */
import type { Media } from '../../api/wire-types.js';
import type { RunKey } from '../../session/run-key.js';
import type { Session } from '../../session/session.js';
import type { RunTrack } from './cut-off.js';
import type { DestinationPlan } from '../options.js';
import type { PostOpts } from './types.js';

/** One run of `post`: what every step reads. */
export interface PostRun {
  opts: PostOpts;
  /** Bound to the run's deadline (--timeout). */
  session: Session;
  deadlineMs: number;
  /** The base of the run's Idempotency-Keys (a continued run takes its first run's). */
  key: RunKey;
  /** The run's note, for a rerun after it is cut off (cut-off.ts). */
  track: RunTrack;
}

/** The destinations chosen, and what will be sent to each. */
export interface Planned {
  plans: DestinationPlan[];
  /** Destination ids to names, for messages. */
  names: Record<string, string>;
  /** Some of it came from the key's cache: a refusal of the post is checked against the service (post-read-again.ts). */
  fromCache: boolean;
  /** The destinations as a rerun names them in --to (as typed, or as picked on a terminal). */
  chosenTo: string[];
}

/** Every check passed, every question answered and confirmed: what is sent. */
export interface Ready extends Planned {
  caption: string;
  /** The video given with --media, as read before anything is sent. */
  known?: Media;
  /** The video's duration, when known before the upload. */
  durationSec?: number;
}

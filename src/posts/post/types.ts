/**
 * One run of `vidpub post`: what it was asked to do (its options, once its
 * flags are parsed), what its steps hand each other (flow.ts runs them: plan
 * and ask in plan.ts, send in send.ts, the run's note in cut-off.ts), and how
 * its messages speak of it: the video, the command that does it again, what
 * is true when a person stops.
 */
import type { Media } from '../../contract/wire-types.js';
import type { SettingKey } from '../../config/text-defaults.js';
import type { OpenRun, RunMemory } from '../../journal/journal-types.js';
import type { VideoFile } from '../../media/check.js';
import type { RunKey } from '../../session/run-key.js';
import type { Session } from '../../session/session.js';
import type { ResolvedWhen } from '../../time/parse-when.js';
import type { DestinationPlan, OptionAssignment } from '../options.js';

/** What `post` posts: a checked local file, a checked link, or a video already at the service. */
export type PostSource =
  | { kind: 'file'; file: VideoFile; shown: string; durationSec?: number }
  | { kind: 'url'; url: string; filename: string }
  | { kind: 'media'; id: string };

export interface PostOpts {
  source: PostSource;
  /** Destination names as given to --to (split on commas). */
  to: string[];
  /** undefined: ask on a terminal (parse refuses it otherwise). */
  caption?: string;
  /** --caption-for DEST=TEXT and --caption-file-for DEST=PATH: a destination's own caption (caption-set.ts). */
  captionsFor?: CaptionFor[];
  /** The profile's caption prefix and suffix of each platform (config/text-defaults.ts); none with --no-caption-defaults. */
  captionDefaults?: readonly [SettingKey, string][];
  options: OptionAssignment[];
  /** null for --draft. */
  when: ResolvedWhen | null;
  draft: boolean;
  wait: boolean;
  timeoutMs: number;
  idempotencyKey?: string;
  /** --force-new: post anew, although the journal knows --idempotency-key or a cut-off run of this command (cut-off.ts). */
  forceNew?: boolean;
  /** --reupload: send the file although a ready video of the same content is known (media/reuse.ts). */
  reupload?: boolean;
  /** --allow-duplicate: post although the same video went to a destination within the window (duplicates.ts). */
  allowDuplicate?: boolean;
  /** The duplicate window (the profile's duplicate_window; 0: off). */
  duplicateWindowMs?: number;
  yes: boolean;
  zone: string;
  /** --at as typed, for the commands suggested in messages. */
  atText?: string;
  /** --strict: a caption a destination's platform would cut is refused (exit 2), not only said. */
  strict?: boolean;
  /** $VISUAL or $EDITOR, to write a caption that was not given. */
  editor?: string;
  /** --wait-for-quota: a daily allowance used up is waited for, not checked before the upload. */
  waitForQuota?: boolean;
  /**
   * The command that does what this run was doing, built from the line as typed plus what was
   * chosen since: the hint after Ctrl-C or a declined confirmation (the CLI writes it back).
   */
  again(chosen: Chosen): string;
}

/** A caption of a destination's own, as given (`path`: the file it was read from). */
export interface CaptionFor {
  flag: '--caption-for' | '--caption-file-for';
  dest: string;
  text: string;
  path?: string;
}

/** What a suggested command changes of the line as typed. */
export interface Chosen {
  /** The video, once it is at the service (in place of the file or link typed). */
  media?: string;
  /** The destinations picked. */
  to?: string[];
  /** The options answered, as --option values, after those typed. */
  options?: string[];
  /** The caption as it now is. */
  caption?: string;
}

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
  /** One post of a set (caption-set.ts): the set's id, which its journal record carries. */
  setId?: string;
}

/** The destinations chosen, and what will be sent to each. */
export interface Planned {
  plans: DestinationPlan[];
  /** Destination ids to names, for messages. */
  names: Record<string, string>;
  /** Some of it came from the key's cache: a refusal of the post is checked against the service (send.ts reads them again). */
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
  /** Destinations that take captions of their own: one post per caption (caption-set.ts). */
  groups?: { caption: string; plans: DestinationPlan[] }[];
}

/**
 * Where a run is, in the order it goes: each phase with the words a message
 * of a run stopped there (by --timeout, or with an unknown outcome) says it
 * was doing, and whether a write may have gone out by then (the upload, the
 * import or the post was started). `plan` is all before the first write: the
 * destinations read, the questions, the confirmation.
 */
export const PHASES = {
  plan: { doing: 'reading the destinations', sent: false },
  upload: { doing: 'uploading the video', sent: true },
  import: { doing: 'importing the video', sent: true },
  'await-video': { doing: 'waiting for the video', sent: false },
  create: { doing: 'creating the post', sent: true },
  follow: { doing: 'following the post', sent: true },
} as const satisfies Record<string, { doing: string; sent: boolean }>;

export type Phase = keyof typeof PHASES;

/** A run's place in the key's write queue (key-queue.ts), once let through: it says how far it got, and leaves at its end. */
export interface WriteTicket {
  /** The writes it still needs (1 once its video is at the service). */
  progressed(need: number): Promise<void>;
  /** The post was made: what its answer said of the counter is kept for the others. */
  posted(post: unknown): Promise<void>;
  /** The run ended (always called). */
  end(): Promise<void>;
}

/** The run memory of this post, once the run has written it down (runPost ends it). */
export interface RunTrack {
  memory?: RunMemory;
  /** What this run noted (when it did). */
  run?: OpenRun;
  /** The publish_at this run sends (a continued run: its first run's), once known. */
  publishAt?: string;
  /** The id of the key's workspace, which names the run's note (undefined: not known, the key names it). */
  workspace?: string;
  /** When this run started (this machine's clock): an identical run that finished after it ran beside it. */
  startedAt?: number;
  /** The run's place in the key's write queue, once let through (key-queue.ts). */
  writes?: WriteTicket;
  /** The post this run made, once made: its note names it when the run ends (a run that waited for it reports it). */
  postId?: string;
  /** The identical run this one waited for ended with its post made: that post is reported, nothing is sent. */
  settled?: { postId: string; key: string; beside: boolean };
  /** The earlier run this one continues: its key, and the flags its line carries (a relative --at as sent). */
  continuing?: { key: string; flags?: Record<string, string> };
}

/** How this run's video reached the service, for messages: uploaded from the file, or imported from the link. */
export function madeFrom(source: PostSource): { done: 'uploaded' | 'imported'; from: 'file' | 'link' } {
  return source.kind === 'url' ? { done: 'imported', from: 'link' } : { done: 'uploaded', from: 'file' };
}

/** The video as messages name it: the path or link as typed, or "video med_…". */
export function sourceText(s: PostSource): string {
  return s.kind === 'file' ? s.shown : s.kind === 'url' ? s.url : `video ${s.id}`;
}

/** What is true when a person stops before anything was sent. */
export function cancelledText(opts: PostOpts): string {
  return opts.source.kind === 'media'
    ? `Cancelled: nothing was posted (the video ${opts.source.id} stays at the service).`
    : 'Cancelled: nothing was uploaded or posted.';
}

/** The values a person answered at the prompts, as --option flags (to plan them again on fresh options). */
export function answered(plans: DestinationPlan[]): OptionAssignment[] {
  return plans.flatMap((p) =>
    p.values
      .filter((v) => v.source === 'prompt')
      .map((v) => ({ dest: p.name, key: v.key, value: String(v.value), text: `${p.name}:${v.key}=${String(v.value)}` })),
  );
}

/** The command that does what this run was doing, with what was chosen so far: the video if it is at the service, the destinations as picked, the options as answered, the caption once known. */
export function rerunLine(opts: PostOpts, chosen: { chosenTo: string[]; plans: DestinationPlan[] }, caption?: string): string {
  const media = opts.source.kind === 'media' ? opts.source.id : undefined;
  return opts.again({ media, to: chosen.chosenTo, options: answered(chosen.plans).map((a) => a.text), caption });
}

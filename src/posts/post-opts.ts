/**
 * What `vidpub post` was asked to do (its options, once its flags are
 * parsed), and how its messages speak of it: the video, the command that
 * does it again, what is true when a person stops.
 */
import type { VideoFile } from '../media/check.js';
import type { ResolvedWhen } from '../time/parse-when.js';
import type { DestinationPlan, OptionAssignment } from './options.js';

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
  options: OptionAssignment[];
  /** null for --draft. */
  when: ResolvedWhen | null;
  draft: boolean;
  wait: boolean;
  timeoutMs: number;
  idempotencyKey?: string;
  /** --force-new: post anew, although the journal knows --idempotency-key or a cut-off run of this command (cut-off.ts). */
  forceNew?: boolean;
  yes: boolean;
  zone: string;
  /** --at as typed, for the commands suggested in messages. */
  atText?: string;
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

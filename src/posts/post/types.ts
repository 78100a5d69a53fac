/**
 * What `vidpub post` was asked to do (its options, once its flags are
 * parsed), and how its messages speak of it: the video, the command that
 * does it again, what is true when a person stops.
 */
import type { VideoFile } from '../../media/check.js';
import { shellLine } from '../../util/shell.js';
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

/**
 * The command that does what this run was doing, built from what was typed
 * plus what was chosen since (destinations picked, options and caption
 * answered): the hint after Ctrl-C or a declined confirmation.
 */
export function postCommandLine(opts: PostOpts, chosen: { to?: string[]; options?: string[]; caption?: string } = {}): string {
  const argv = ['vidpub', 'post'];
  const s = opts.source;
  if (s.kind === 'media') argv.push('--media', s.id);
  else argv.push(s.kind === 'file' ? s.shown : s.url);
  const to = chosen.to ?? opts.to;
  if (to.length > 0) argv.push('--to', to.join(','));
  const caption = chosen.caption ?? opts.caption;
  if (caption !== undefined) argv.push('--caption', caption);
  for (const o of opts.options) argv.push('--option', o.text);
  for (const o of chosen.options ?? []) argv.push('--option', o);
  if (opts.draft) argv.push('--draft');
  else if (opts.atText !== undefined) argv.push('--at', opts.atText);
  if (opts.idempotencyKey) argv.push('--idempotency-key', opts.idempotencyKey);
  return shellLine(argv);
}

/** The values a person answered at the prompts, as --option flags (to plan them again on fresh options). */
export function answered(plans: DestinationPlan[]): OptionAssignment[] {
  return plans.flatMap((p) =>
    p.values
      .filter((v) => v.source === 'prompt')
      .map((v) => ({ dest: p.name, key: v.key, value: String(v.value), text: `${p.name}:${v.key}=${String(v.value)}` })),
  );
}

/** postCommandLine with what was chosen so far: the destinations as picked, the options as answered, the caption once known. */
export function rerunLine(opts: PostOpts, chosen: { chosenTo: string[]; plans: DestinationPlan[] }, caption?: string): string {
  return postCommandLine(opts, { to: chosen.chosenTo, options: answered(chosen.plans).map((a) => a.text), caption });
}

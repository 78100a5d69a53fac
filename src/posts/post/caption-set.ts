/**
 * A caption for each destination (--caption-for DEST=TEXT, --caption-file-for
 * DEST=PATH): the destinations grouped by the caption each gets, each caption
 * checked before anything is sent, then one post per group, all from the one
 * video, reported together. Each post goes under a key of its own derived
 * from the run's (the first under the run's own step), so a rerun that
 * continues a cut-off run replays the posts made and makes only the missing.
 */
import { InterruptedError, OutcomeUnknownError, UsageError, VidpubError, sanitize } from '../../errors.js';
import { captionRefusal } from '../../core/post-rules.js';
import { matchChosen } from '../destinations.js';
import { nodeCrypto } from '../../util/lazy-builtins.js';
import { withDefaults, type SettingKey } from '../../config/text-defaults.js';
import type { DestinationPlan } from '../options.js';
import { destinationLabel, type PostResult } from '../view.js';
import type { CaptionFor, PostRun, Ready } from './types.js';

/** The destinations that get one caption: one post. */
export interface CaptionGroup {
  caption: string;
  plans: DestinationPlan[];
}

/** One post of a set: its result, or what stopped it (its data, when the post exists). */
export interface SetPost {
  caption: string;
  destinations: string[];
  result?: PostResult;
  error?: VidpubError;
}

/** What `post` returns when destinations take captions of their own. */
export interface PostSet {
  /** The set's id (setIdOf): the journal's records of its posts carry it. */
  set?: string;
  posts: SetPost[];
}

/**
 * The id of the set of posts made under a run's base key: `set_` and 16 hex digits of its hash. A rerun that
 * continues the run (its key) or takes the same --idempotency-key names the same set.
 */
export function setIdOf(baseKey: string): string {
  return `set_${nodeCrypto().createHash('sha256').update(`set:${baseKey}`).digest('hex').slice(0, 16)}`;
}

export function isPostSet(r: unknown): r is PostSet {
  return typeof r === 'object' && r !== null && Array.isArray((r as Partial<PostSet>).posts);
}

/** `--caption-for youtube=long text…` as messages quote it (the text cut short). */
function quoted(c: CaptionFor): string {
  const text = c.text.length > 30 ? `${c.text.slice(0, 29)}…` : c.text;
  return sanitize(`${c.flag} ${c.dest}=${c.flag === '--caption-for' ? text : c.path ?? text}`);
}

/**
 * Each destination's caption: its own (matched as --to reads DEST, among the destinations chosen), else
 * `base`. Refuses (exit 2) a DEST not among them and two captions for one destination. `covered`: every
 * destination has its own, so no --caption is needed.
 */
export function captionsOf(captionsFor: CaptionFor[], plans: DestinationPlan[]): { own: Map<DestinationPlan, CaptionFor>; covered: boolean } {
  const own = new Map<DestinationPlan, CaptionFor>();
  for (const c of captionsFor) {
    const plan = matchChosen(c.dest, plans);
    if (!plan) {
      throw new UsageError(`${quoted(c)}: ${sanitize(c.dest)} is not one of the destinations of --to (${sanitize(plans.map((p) => p.name).join(','))})`, {
        hint: `Add ${sanitize(c.dest)} to --to, or name one of those destinations. Nothing was uploaded or posted.`,
      });
    }
    const earlier = own.get(plan);
    if (earlier) {
      throw new UsageError(`${quoted(c)}: ${destinationLabel(plan.destination)} already has a caption (${quoted(earlier)})`, {
        hint: 'Give one caption per destination. Nothing was uploaded or posted.',
      });
    }
    own.set(plan, c);
  }
  return { own, covered: plans.every((p) => own.has(p)) };
}

/**
 * The posts to make: destinations grouped by caption, in the order of --to. Each caption is checked against
 * the service's rules (exit 2 naming its destinations) before anything is sent.
 */
export function groupByCaption(own: Map<DestinationPlan, CaptionFor>, plans: DestinationPlan[], base: string, defaults: readonly [SettingKey, string][] = []): CaptionGroup[] {
  const groups: CaptionGroup[] = [];
  for (const p of plans) {
    // The profile's prefix and suffix of its platform, once its caption is chosen.
    const caption = withDefaults(own.get(p)?.text ?? base, p.destination.platform, defaults);
    const group = groups.find((g) => g.caption === caption);
    if (group) group.plans.push(p);
    else groups.push({ caption, plans: [p] });
  }
  for (const g of groups) {
    const refusal = captionRefusal(g.caption);
    if (refusal) {
      const to = g.plans.map((p) => destinationLabel(p.destination)).join(', ');
      throw new UsageError(`${refusal.message}, for ${sanitize(to)}`, { hint: refusal.hint });
    }
  }
  return groups;
}

/** What the run's note says it posts: every caption with its destinations (a rerun with other captions is another command). */
export function setCaption(groups: CaptionGroup[]): string {
  return JSON.stringify(groups.map((g) => [g.caption, g.plans.map((p) => p.destination.id)]));
}

/** The step of the n-th post's key: the first keeps the run's own (a single post's), the others `post-2`, `post-3`... */
function stepOf(run: PostRun, n: number, setId: string): PostRun {
  if (n === 0) return { ...run, setId };
  return { ...run, setId, key: { ...run.key, postStep: `post-${n + 1}` } };
}

/**
 * One post per group, each from `media`. A post that fails or is refused does not stop the others; a signal
 * or an unknown outcome does (a rerun continues the set). Ends with the worst: the set as the error's data.
 */
export async function createSet(
  run: PostRun,
  ready: Ready,
  groups: CaptionGroup[],
  one: (run: PostRun, ready: Ready) => Promise<PostResult>,
): Promise<PostSet> {
  const posts: SetPost[] = [];
  const set = setIdOf(run.key.key);
  for (const [n, g] of groups.entries()) {
    const entry: SetPost = { caption: g.caption, destinations: g.plans.map((p) => p.destination.id) };
    posts.push(entry);
    try {
      entry.result = await one(stepOf(run, n, set), { ...ready, caption: g.caption, plans: g.plans });
    } catch (err) {
      if (!(err instanceof VidpubError) || err instanceof InterruptedError || err instanceof OutcomeUnknownError) throw err;
      entry.error = err;
      if (isPostResult(err.data)) entry.result = err.data;
    }
  }
  const failed = posts.filter((p) => p.error);
  if (failed.length === 0) return { set, posts };
  const worst = failed.map((p) => p.error!).reduce((a, b) => (b.exitCode > a.exitCode ? b : a));
  const Ctor = worst.constructor as new (message: string, o: ConstructorParameters<typeof VidpubError>[1]) => VidpubError;
  const message = failed.length === 1 ? worst.message : `${failed.length} of ${posts.length} posts did not go out: ${failed.map((p) => p.error!.message).join('; ')}`;
  throw new Ctor(message, { hint: failed.map((p) => p.error!.hint).filter(Boolean).join('\n') || undefined, data: { set, posts }, cause: worst });
}

function isPostResult(d: unknown): d is PostResult {
  return typeof d === 'object' && d !== null && typeof (d as Partial<PostResult>).post === 'object';
}

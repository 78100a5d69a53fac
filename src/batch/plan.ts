/**
 * Turning a parsed manifest into a plan, checking everything before any
 * write: each video (file: exists, type, size; link; video id), each
 * destination (resolved once per run from one GET /destinations), each
 * option (against the destination's options, read once per destination per
 * run), each time (future, exists in its zone), duplicate items, each
 * video's duration and size against each destination's maximum, and the
 * daily post allowance against GET /me. Every problem is collected with its
 * item number and line, then reported together (exit 2), nothing sent.
 */
import type { Destination, DestinationOptions, Me, Media } from '../contract/wire-types.js';
import { RateLimitError, UsageError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import { planOptions, allowedValues, type ChosenDestination, type DestinationPlan, type OptionAssignment } from '../posts/options.js';
import { destinationLabel, namesOf } from '../posts/view.js';
import type { ResolvedWhen } from '../time/parse-when.js';
import { describeMoment } from '../time/describe.js';
import { itemKey } from './keys.js';
import { checkVideo, type ItemVideo } from './item-video.js';
import { groupsContent, itemGroups, type ItemCaptionGroup } from './item-captions.js';
import type { Manifest, Problem } from './manifest.js';
import type { PacedClient } from './allowance-gate.js';
import type { PlanSlots } from './post-times.js';
import { localCaptions, localVideos, localWhens, messageOf, readAlike, readLocal, type ItemDuplicate, type LocalItem, type LocalVideo } from './plan-local.js';

export type { ItemVideo } from './item-video.js';

/** One item, resolved and checked: what will be sent. */
export interface PlannedItem {
  n: number;
  line?: number;
  video: ItemVideo;
  caption: string; /** Destinations with captions of their own (item-captions.ts): a post per caption, from the item's one video. */ groups?: ItemCaptionGroup[];
  plans: DestinationPlan[];
  /** null: a draft. */
  when: ResolvedWhen | null;
  draft: boolean;
  /** Base of the item's Idempotency-Keys. */
  key: string;
  /** Option keys (KEY or DEST:KEY) that came from the defaults block. */
  fromDefaults: ReadonlySet<string>;
  /** A journal says an earlier run posted it: its replay spends no allowance. */
  alreadyPosted?: boolean;
  /** The post this machine's journal holds under the item's key: reported as it is now, not posted again. */
  earlierPostId?: string;
  /** force_new: posted although its file changed since the run that posted it (changed.ts). */
  forceNew: boolean;
  /** No "at" and not a draft: --slots / --every gives it a time (slot-step.ts). */ timeless: boolean;
  /** allow_duplicate; and the earlier posts that refuse it, when they do (duplicate-items.ts). */ allowDuplicate: boolean; duplicate?: ItemDuplicate;
}

export interface BatchPlan {
  items: PlannedItem[];
  names: Record<string, string>;
  /** Items that spend the daily post allowance (not drafts). */
  postsNeeded: number;
  postsLeft?: number;
  postsLimit?: number;
  dailyResetAt?: string;
  zone: string;
  me?: Me;
  /** The times --slots / --every gave (slot-step.ts). */ slots?: PlanSlots;
}

export interface PlanInput {
  manifest: Manifest;
  /** Shown in messages (the path as given, or "stdin"). */
  source: string;
  /** Where relative file and caption_file paths are resolved. */
  baseDir: string;
  zone: string;
  waitForQuota: boolean;
}

export function problemLine(p: Problem): string {
  const where = p.n !== undefined ? `item ${p.n}${p.line !== undefined ? ` (line ${p.line})` : ''}: ` : p.line !== undefined ? `line ${p.line}: ` : '';
  return `${where}${p.message}`;
}

/** exit 2 with every problem, one per line. */
export function problemsError(problems: Problem[], source: string): UsageError {
  const sorted = [...problems].sort((a, b) => (a.n ?? 0) - (b.n ?? 0) || (a.line ?? 0) - (b.line ?? 0));
  const n = sorted.length;
  const err = new UsageError(`${n} problem${n === 1 ? '' : 's'} in ${sanitize(source)}; nothing was sent`, {
    hint: [...sorted.map((p) => `  ${sanitize(problemLine(p))}`), 'Fix them and run it again ("--dry-run" shows the plan without sending anything).'].join('\n'),
  });
  // With --json, the same list as data: the JSON error object carries it as "problems".
  return Object.assign(err, { problems: sorted.map((p) => ({ item: p.n ?? null, line: p.line ?? null, message: sanitize(p.message) })) });
}

/** What the service said, read once for the whole manifest. */
interface ServiceView {
  me: Me;
  names: Record<string, string>;
  /** Per item, each name in "to" resolved, or why not; items naming the same destinations share one list. */
  resolved: Resolved[][];
  optionsById: Map<string, DestinationOptions>;
  mediaById: Map<string, Media | Error>;
  findChosen: (name: string, chosen: ChosenDestination[]) => ChosenDestination | undefined;
  /** Each distinct pair of destinations and options, planned once: items that name the same share it. */
  plansOf: Map<string, { plans: DestinationPlan[]; messages: string[] }>;
}

type Resolved = { name: string; destination: Destination } | Error;

/** Everything known of the items before each is planned: the local checks' results and the service's answers. */
interface Checked {
  videos: (LocalVideo | undefined)[];
  captions: (string | undefined)[];
  whens: (ResolvedWhen | null | undefined)[];
  service: ServiceView;
}

/**
 * Builds the plan; throws UsageError (exit 2) listing every problem, or
 * RateLimitError (exit 4) when the daily allowance cannot hold the items.
 * Only reads: GET /me, GET /destinations, GET /destinations/{id}/options
 * once per destination named, GET /media/{id} for items that name a video id.
 */
export async function buildPlan(input: PlanInput, session: Session, paced: PacedClient): Promise<BatchPlan> {
  const { manifest, baseDir, zone } = input;
  const problems: Problem[] = [...manifest.problems];
  const now = session.clock.now();
  const alike = readAlike();
  const local = manifest.items.map((raw) => readLocal(raw, problems, alike));
  if (manifest.items.length === 0 && problems.length === 0) problems.push({ message: 'the manifest has no items' });
  // Nothing to check against the service: said as it is, whether or not the service answers.
  if (manifest.items.length === 0) throw problemsError(problems, input.source);

  // Files and links, captions and times: local, in parallel.
  const videos = await localVideos(local, baseDir, problems);
  const captions = await localCaptions(local, baseDir, problems);
  const { whens, past } = localWhens(local, { now, zone, allowPast: session.journal !== undefined }, problems);
  const service = await readService(paced, session, { local, videos }, problems);
  const { items, pastKeys } = planItems(local, { videos, captions, whens, service }, { batchKey: manifest.batchKey, past }, problems);
  problems.push(...past.values()); // items with other problems: no key to look up
  const postedBefore = pastKeys.size > 0 ? await session.journal?.postIdsByKeys(pastKeys.keys()) : undefined;
  for (const [key, problem] of pastKeys) if (!postedBefore?.has(key)) problems.push(problem);
  if (problems.length > 0) throw problemsError(problems, input.source);

  const daily = service.me.limits?.api_posts_per_day;
  return {
    items,
    names: service.names,
    postsNeeded: items.reduce((n, it) => n + (it.draft ? 0 : (it.groups?.length ?? 1)), 0),
    postsLeft: typeof daily?.remaining === 'number' ? daily.remaining : undefined,
    postsLimit: typeof daily?.limit === 'number' ? daily.limit : undefined,
    dailyResetAt: daily?.reset_at,
    zone,
    me: service.me,
  };
}

/** The service: one look at the account, the destinations, each named destination's options, and each video named by id. */
async function readService(paced: PacedClient, session: Session, of: { local: LocalItem[]; videos: (LocalVideo | undefined)[] }, problems: Problem[]): Promise<ServiceView> {
  const { resolveDestination, matchChosen } = await import('../posts/destinations.js');
  const client = paced.client;
  const { signal } = session;
  const me = await client.getMe({ signal });
  paced.seed(me);
  const all = await client.listDestinations({ signal });
  const byNames = new Map<string, Resolved[]>();
  const resolveAll = (names: string[]): Resolved[] =>
    names.map((name) => {
      try {
        return { name, destination: resolveDestination(name, all) };
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    });
  const resolved = of.local.map((it) => {
    const names = JSON.stringify(it.to);
    const r = byNames.get(names) ?? byNames.set(names, resolveAll(it.to)).get(names)!;
    for (const x of r) if (x instanceof Error) problems.push({ n: it.raw.n, line: it.raw.line, message: messageOf(x) });
    return r;
  });
  const ids = new Set<string>();
  for (const r of byNames.values()) for (const x of r) if (!(x instanceof Error) && x.destination.status === 'active') ids.add(x.destination.id);
  const optionsById = new Map<string, DestinationOptions>();
  await Promise.all(
    [...ids].map(async (id) => {
      const o = await client.getDestinationOptions(id, { signal });
      optionsById.set(id, Array.isArray(o.options) ? o : { ...o, options: [] });
    }),
  );
  const mediaIds = [...new Set(of.videos.filter((v) => v?.kind === 'media').map((v) => v!.id))];
  const mediaById = new Map<string, Media | Error>();
  await Promise.all(
    mediaIds.map(async (id) => {
      try {
        mediaById.set(id, await client.getMedia(id, { signal }));
      } catch (err) {
        if (signal.aborted) throw err;
        mediaById.set(id, err as Error);
      }
    }),
  );
  return { me, names: namesOf(all), resolved, optionsById, mediaById, findChosen: matchChosen, plansOf: new Map() };
}

/**
 * Each item planned in turn; a repeat of an earlier item, or a "key" two
 * items give, is a problem. An item whose only problem is a past time goes
 * to `pastKeys` (its key, to look up in the journal) instead.
 */
function planItems(
  local: LocalItem[],
  checked: Checked,
  batch: { batchKey?: string; past: Map<number, Problem> },
  problems: Problem[],
): { items: PlannedItem[]; pastKeys: Map<string, Problem> } {
  const items: PlannedItem[] = [];
  const seenKeys = new Map<string, number>();
  const userKeys = new Map<string, number>();
  const pastKeys = new Map<string, Problem>();
  local.forEach((it, i) => {
    const add = (message: string) => problems.push({ n: it.raw.n, line: it.raw.line, message });
    const item = planItem(it, i, checked, batch.batchKey, add);
    if (!item) return;
    const { key } = item;
    const dup = seenKeys.get(key);
    if (dup !== undefined) return add(`repeats item ${dup} (the same video, destinations, caption, options and time); give one a "key" if both are meant`);
    seenKeys.set(key, it.raw.n);
    if (it.userKey !== undefined) {
      const other = userKeys.get(it.userKey);
      if (other !== undefined) add(`key "${sanitize(it.userKey)}" is also item ${other}'s`);
      userKeys.set(it.userKey, it.raw.n);
    }
    const past = batch.past.get(i);
    if (past) {
      batch.past.delete(i);
      pastKeys.set(key, past);
    }
    items.push(item);
  });
  return { items, pastKeys };
}

/** One item against what the service said, with its key: undefined once it has a problem (added with `add`). */
function planItem(it: LocalItem, i: number, checked: Checked, batchKey: string | undefined, add: (message: string) => void): PlannedItem | undefined {
  let problems = 0;
  const counted = (message: string) => {
    problems++;
    add(message);
  };
  const { service } = checked;
  const { plans, messages } = destinationPlans(it, service.resolved[i]!, service);
  for (const m of messages) counted(m);
  const video = serviceVideo(checked.videos[i], service.mediaById, counted);
  if (video) checkVideo(video, plans, counted);
  const caption = checked.captions[i];
  const groups = it.captions && plans.length > 0 ? itemGroups(it.captions, plans, caption, counted) : undefined;
  const when = checked.whens[i];
  if (problems > 0 || !video || (caption === undefined && !groups) || when === undefined || plans.length === 0) return undefined;
  // What identifies the item: the video, where, what, when. A relative time counts as written.
  const content = {
    video: video.kind === 'file' ? { file: it.video?.kind === 'file' ? it.video.path : video.shown, size: video.file.size } : video.kind === 'url' ? { url: video.url } : { media: video.id },
    to: plans.map((p) => ({ id: p.destination.id, options: Object.fromEntries(p.values.map((v) => [v.key, v.value])) })),
    caption, captions: groupsContent(groups),
    when: when === null ? 'draft' : when.now ? 'now' : /^\+/.test((it.at ?? '').trim()) ? { relative: it.at!.trim() } : when.utc,
    key: it.userKey ?? null,
  };
  // Written out whole, never spread (see rawItem in manifest.ts), with the fields the journal fills
  // in later (batch-flow.ts): added to every item afterwards, each would get a store of its own.
  return {
    n: it.raw.n,
    line: it.raw.line,
    video,
    caption: groups?.length === 1 ? groups[0]!.caption : (caption ?? ''), groups: groups && groups.length > 1 ? groups : undefined,
    plans,
    when,
    draft: it.draft,
    fromDefaults: it.raw.fromDefaults,
    key: itemKey(content, batchKey),
    forceNew: it.forceNew, allowDuplicate: it.allowDuplicate,
    timeless: it.at === undefined && !it.draft,
    alreadyPosted: false,
    earlierPostId: undefined,
  };
}

/**
 * The item's destinations and options planned, with what is wrong with them:
 * planned once for all the items that name the same destinations and options
 * (the same plans, shared; the messages told for each).
 */
function destinationPlans(it: LocalItem, resolved: Resolved[], service: ServiceView): { plans: DestinationPlan[]; messages: string[] } {
  const given = it.assignments.map((a) => `${it.raw.fromDefaults.has(a.dest !== undefined ? `${a.dest}:${a.key}` : a.key) ? '*' : ''}${a.text}`);
  const signature = JSON.stringify([it.to, given]);
  const known = service.plansOf.get(signature);
  if (known) return known;
  const messages: string[] = [];
  const add = (m: string) => void messages.push(m);
  const chosen = chosenFor(resolved, service.optionsById, add);
  const planned = { plans: chosen.length > 0 ? optionPlans(it, chosen, service.findChosen, add) : [], messages };
  service.plansOf.set(signature, planned);
  return planned;
}

/** The item's destinations: active, each once. */
function chosenFor(resolved: ServiceView['resolved'][number], optionsById: Map<string, DestinationOptions>, add: (message: string) => void): ChosenDestination[] {
  const chosen: ChosenDestination[] = [];
  for (const r of resolved) {
    if (r instanceof Error) continue;
    if (r.destination.status !== 'active') {
      add(`cannot post to ${destinationLabel(r.destination)}: it is ${sanitize(String(r.destination.status ?? 'not active'))} (reconnect it in the web app, or leave it out)`);
      continue;
    }
    if (chosen.some((c) => c.destination.id === r.destination.id)) continue;
    chosen.push({ name: r.name, destination: r.destination, options: optionsById.get(r.destination.id)! });
  }
  return chosen;
}

/** The item's options against its destinations', each on its own so every bad one is reported; then what is still missing. */
function optionPlans(it: LocalItem, chosen: ChosenDestination[], findChosen: ServiceView['findChosen'], add: (message: string) => void): DestinationPlan[] {
  const good: OptionAssignment[] = [];
  for (const a of it.assignments) {
    // A default that does not concern this item's destinations is not for it.
    if (it.raw.fromDefaults.has(a.dest !== undefined ? `${a.dest}:${a.key}` : a.key)) {
      const target = a.dest !== undefined ? findChosen(a.dest, chosen) : undefined;
      if (a.dest !== undefined ? !target : !chosen.some((c) => c.options.options.some((o) => o.key === a.key))) continue;
    }
    try {
      planOptions(chosen, [a], findChosen);
      good.push(a);
    } catch (err) {
      add(`option ${a.text}: ${messageOf(err).replace(/--option /g, '').replace(/--to destinations/g, 'item\'s destinations')}`);
    }
  }
  const plans = planOptions(chosen, good, findChosen);
  for (const p of plans) {
    for (const o of p.missing) {
      const allowed = allowedValues(o);
      const personal = p.options.creator != null && /privacy/i.test(o.key);
      // Where to write it in every manifest format: YAML and JSON have an options map, CSV a column per option.
      const where = `options: {${o.key}: VALUE} in YAML or JSON, a column option:${o.key} in CSV`;
      add(
        `${p.name} needs option "${o.key}"${o.label ? ` (${sanitize(o.label)})` : ''}${allowed ? `, one of: ${allowed}` : ''}` +
          (personal ? `; write it in the item or in defaults (${where}): a person chooses it, vidpub never fills it in` : `; add it (${where})`),
      );
    }
  }
  return plans;
}

/** A video named by id, as the service has it: a problem when it cannot be read or failed there. */
function serviceVideo(video: LocalVideo | undefined, mediaById: Map<string, Media | Error>, add: (message: string) => void): ItemVideo | undefined {
  if (video?.kind !== 'media') return video;
  const m = mediaById.get(video.id);
  if (m instanceof Error || m === undefined) return void add(`video ${video.id}: ${sanitize(m ? messageOf(m) : 'not found')}`);
  if (m.status === 'failed') return void add(`video ${video.id} failed at the service${m.error?.message ? `: ${sanitize(m.error.message)}` : ''}`);
  return { kind: 'media', id: video.id, media: m };
}

/** exit 4 when the items do not fit in what is left of today's post allowance. */
export function allowanceError(plan: BatchPlan): RateLimitError | undefined {
  if (plan.postsLeft === undefined || plan.postsNeeded <= plan.postsLeft) return undefined;
  const left = plan.postsLeft;
  let fit = 0;
  let count = 0;
  for (const it of plan.items) {
    if (!it.draft && !it.alreadyPosted) count++;
    if (count > left) break;
    fit++;
  }
  return new RateLimitError(
    `The batch needs ${plan.postsNeeded} posts of the daily allowance, but ${left} ${left === 1 ? 'is' : 'are'} left${plan.postsLimit !== undefined ? ` of ${plan.postsLimit}` : ''}: only the first ${fit} item${fit === 1 ? '' : 's'} would fit. Nothing was sent.`,
    {
      code: 'daily_post_limit',
      resetAt: plan.dailyResetAt,
      hint: `Split the manifest, make some items drafts, or add --wait-for-quota to post the rest after the reset${plan.dailyResetAt ? ` (${resetPhrase(plan.dailyResetAt, plan.zone)})` : ''}.`,
    },
  );
}

/** The allowance's reset as a person reads it ("2026-11-23 00:00 UTC (2026-11-23T00:00:00Z)"), or the text as given. */
export function resetPhrase(iso: string, zone: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? sanitize(iso) : describeMoment(ms, zone);
}

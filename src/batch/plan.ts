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
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ApiClient } from '../api/client.js';
import type { DestinationOptions, Me, Media } from '../api/wire-types.js';
import { RateLimitError, UsageError, VidpubError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import type { VideoFile } from '../media/check.js';
import { parseOptionFlag, planOptions, allowedValues, type ChosenDestination, type DestinationPlan, type OptionAssignment } from '../posts/options.js';
import { destinationLabel, namesOf } from '../posts/post-view.js';
import { pastTimeError } from '../time/at-grammar.js';
import { parseWhen, type ResolvedWhen } from '../time/parse-when.js';
import { isValidTimeZone } from '../time/zones.js';
import { formatDuration } from '../time/duration.js';
import { itemKey } from './keys.js';
import { FALSE_TEXT, TRUE_TEXT, flattenOptions, type Manifest, type Problem, type RawItem } from './manifest.js';
import type { PacedClient } from './allowance-gate.js';
import { captionFileRefusal, captionRefusal, optionValueRefusal, tooLongFor, type Refusal } from '../core/post-rules.js';


export type ItemVideo =
  | { kind: 'file'; file: VideoFile; shown: string; durationSec?: number }
  | { kind: 'url'; url: string; filename: string }
  | { kind: 'media'; id: string; media: Media };

/** One item, resolved and checked: what will be sent. */
export interface PlannedItem {
  n: number;
  line?: number;
  video: ItemVideo;
  caption: string;
  plans: DestinationPlan[];
  /** null: a draft. */
  when: ResolvedWhen | null;
  draft: boolean;
  /** Base of the item's Idempotency-Keys. */
  key: string;
  /** Option keys (KEY or DEST:KEY) that came from the defaults block. */
  fromDefaults: Set<string>;
  /** A journal says an earlier run posted it: its replay spends no allowance. */
  alreadyPosted?: boolean;
  /** The post this machine's journal holds under the item's key: reported as it is now, not posted again. */
  earlierPostId?: string;
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

function messageOf(err: unknown): string {
  if (err instanceof VidpubError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

function toList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const parts = Array.isArray(v) ? v.map((x) => String(x)) : typeof v === 'string' ? v.split(/[,;\s]+/) : [String(v)];
  return parts.map((s) => s.trim()).filter((s) => s !== '');
}

/** Local checks of one item (no request): video, caption, time, option syntax. */
interface LocalItem {
  raw: RawItem;
  video?: { kind: 'file'; path: string } | { kind: 'url'; url: string } | { kind: 'media'; id: string };
  to: string[];
  caption?: string;
  captionFile?: string;
  assignments: OptionAssignment[];
  at?: string;
  tz?: string;
  draft: boolean;
  userKey?: string;
}

function readLocal(raw: RawItem, problems: Problem[]): LocalItem {
  const f = raw.fields;
  const where = { n: raw.n, line: raw.line };
  const add = (message: string) => problems.push({ ...where, message });
  const videos = (['file', 'url', 'media'] as const).filter((k) => f[k] !== undefined && f[k] !== '');
  let video: LocalItem['video'];
  if (videos.length === 0) add('no video: give file, url or media');
  else if (videos.length > 1) add(`give one video, not ${videos.join(' and ')}`);
  else {
    const k = videos[0]!;
    const v = str(f[k]);
    if (v === undefined || v.trim() === '') add(`${k} must be text`);
    else if (k === 'file') video = { kind: 'file', path: v };
    else if (k === 'url') video = { kind: 'url', url: v.trim() };
    else if (!/^[A-Za-z0-9_-]{1,200}$/.test(v.trim())) add(`invalid media "${sanitize(v)}": give a video id such as med_123`);
    else video = { kind: 'media', id: v.trim() };
  }
  const to = toList(f.to) ?? [];
  if (to.length === 0) add('"to" is missing: where should it be posted? (ids, @handles or platforms)');
  const caption = f.caption === undefined || f.caption === null ? undefined : str(f.caption);
  if (f.caption !== undefined && f.caption !== null && caption === undefined) add('caption must be text');
  const captionFile = str(f.caption_file);
  if (caption !== undefined && captionFile !== undefined) add('give caption or caption_file, not both');
  if (caption === undefined && captionFile === undefined) add('no caption: give caption (caption: "" posts without one) or caption_file');
  const optionProblems: string[] = [];
  const assignments: OptionAssignment[] = [];
  for (const [k, v] of flattenOptions(f.options, optionProblems)) {
    try {
      const a = parseOptionFlag(`${k}=${v === null ? '' : String(v)}`);
      const tooLong = optionValueRefusal(a.key, a.value, 'option');
      if (tooLong) add(tooLong.message);
      else assignments.push(a);
    } catch (err) {
      add(messageOf(err).replace(/--option/g, 'option'));
    }
  }
  for (const p of optionProblems) add(p);
  // Text reads as in a CSV cell; any other text is a problem, never "publish now".
  const draft = f.draft === true || (typeof f.draft === 'string' && TRUE_TEXT.test(f.draft.trim()));
  if (typeof f.draft === 'string' && !TRUE_TEXT.test(f.draft.trim()) && !FALSE_TEXT.test(f.draft.trim())) add(`draft must be true or false, not "${sanitize(f.draft)}"`);
  else if (f.draft !== undefined && typeof f.draft !== 'boolean' && typeof f.draft !== 'string') add('draft must be true or false');
  const at = str(f.at);
  const tz = str(f.tz);
  // A list or a map is no time, zone or key: never read as absent ("now", the default zone).
  const notText = (v: unknown) => v !== undefined && v !== null && str(v) === undefined;
  if (notText(f.at)) add('at must be text (a time such as "2026-11-25 09:00", or "+2h")');
  if (notText(f.tz)) add('tz must be text (an IANA name such as Europe/Paris)');
  if (notText(f.key)) add('key must be text');
  if (draft && at !== undefined) add('a draft has no time: drop "at", or drop "draft" to schedule it');
  if (tz !== undefined && !isValidTimeZone(tz)) add(`unknown time zone "${sanitize(tz)}" (an IANA name such as Europe/Paris)`);
  const userKey = str(f.key);
  return { raw, video, to, caption, captionFile, assignments, at, tz, draft, userKey };
}

/** A caption_file's text (its last line break dropped), or why it cannot be had. */
async function readCaptionFile(file: string, baseDir: string): Promise<string | Refusal> {
  const path = resolve(baseDir, file);
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new Error('not a file');
    const tooBig = captionFileRefusal(st.size, `caption_file ${sanitize(file)}`);
    if (tooBig) return tooBig;
    return (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { message: `caption_file ${sanitize(file)} cannot be read: ${code === 'ENOENT' ? 'no such file' : sanitize(messageOf(err))}` };
  }
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
  const local = manifest.items.map((raw) => readLocal(raw, problems));
  if (manifest.items.length === 0 && problems.length === 0) problems.push({ message: 'the manifest has no items' });
  // Nothing to check against the service: said as it is, whether or not the service answers.
  if (manifest.items.length === 0) throw problemsError(problems, input.source);

  const { checkVideoFile } = await import('../media/check.js');
  const { readDurationSec } = await import('../media/mp4-duration.js');
  const { checkImportUrl } = await import('../media/import-url.js');
  const { resolveDestination, matchChosen } = await import('../posts/destinations.js');

  // Files and links, captions and times: local, in parallel.
  const videos = await Promise.all(
    local.map(async (it): Promise<ItemVideo | { kind: 'media'; id: string } | undefined> => {
      const where = { n: it.raw.n, line: it.raw.line };
      try {
        if (it.video?.kind === 'file') {
          const file = await checkVideoFile(it.video.path, baseDir);
          return { kind: 'file', file, shown: it.video.path, durationSec: await readDurationSec(file.path) };
        }
        if (it.video?.kind === 'url') {
          const link = checkImportUrl(it.video.url);
          return { kind: 'url', url: link.url, filename: link.filename };
        }
        if (it.video?.kind === 'media') return { kind: 'media', id: it.video.id };
      } catch (err) {
        problems.push({ ...where, message: messageOf(err).replace('(it is relative to the current directory)', '') });
      }
      return undefined;
    }),
  );
  const captions = await Promise.all(
    local.map(async (it) => {
      const refused = (r: Refusal) => void problems.push({ n: it.raw.n, line: it.raw.line, message: r.message });
      const caption = it.captionFile === undefined ? it.caption : await readCaptionFile(it.captionFile, baseDir);
      if (typeof caption === 'object') return refused(caption);
      // What `post` refuses, refused here in its words: before any upload, not by the service after it.
      const tooLong = captionRefusal(caption);
      return tooLong ? refused(tooLong) : caption;
    }),
  );
  // A time now past is a problem unless this machine's journal holds the item's post (a rerun
  // after it was scheduled): its key is computed from the time as written, and looked up below.
  const pastProblems = new Map<number, Problem>();
  const whens = local.map((it, i) => {
    if (it.draft) return null;
    const z = it.tz !== undefined && isValidTimeZone(it.tz) ? it.tz : zone;
    const problem = (err: unknown): Problem => ({ n: it.raw.n, line: it.raw.line, message: messageOf(err).replace(/ for --at/g, '') });
    try {
      const when = parseWhen(it.at ?? 'now', { now, zone: z, allowPast: session.journal !== undefined });
      if (!when.now && when.ms < now) {
        pastProblems.set(i, problem(pastTimeError(when)));
        return when;
      }
      return when;
    } catch (err) {
      problems.push(problem(err));
      return undefined;
    }
  });

  // The service: one look at the account, the destinations, and each named destination's options.
  const client: ApiClient = paced.client;
  const { signal } = session;
  const me = await client.getMe({ signal });
  paced.seed(me);
  const all = await client.listDestinations({ signal });
  const names = namesOf(all);
  const resolved = local.map((it) =>
    it.to.map((name) => {
      try {
        return { name, destination: resolveDestination(name, all) };
      } catch (err) {
        problems.push({ n: it.raw.n, line: it.raw.line, message: messageOf(err) });
        return undefined;
      }
    }),
  );
  const ids = [...new Set(resolved.flat().filter((r) => r && r.destination.status === 'active').map((r) => r!.destination.id))];
  const optionsById = new Map<string, DestinationOptions>();
  await Promise.all(
    ids.map(async (id) => {
      const o = await client.getDestinationOptions(id, { signal });
      optionsById.set(id, Array.isArray(o.options) ? o : { ...o, options: [] });
    }),
  );
  const mediaIds = [...new Set(videos.filter((v) => v?.kind === 'media').map((v) => v!.id))];
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

  const items: PlannedItem[] = [];
  const seenKeys = new Map<string, number>();
  const userKeys = new Map<string, number>();
  const findChosen = matchChosen;
  const pastKeys = new Map<string, Problem>();
  local.forEach((it, i) => {
    const where = { n: it.raw.n, line: it.raw.line };
    const add = (message: string) => problems.push({ ...where, message });
    const before = problems.length;
    // Destinations: active, each once.
    const chosen: ChosenDestination[] = [];
    for (const r of resolved[i]!) {
      if (!r) continue;
      if (r.destination.status !== 'active') {
        add(`cannot post to ${destinationLabel(r.destination)}: it is ${sanitize(String(r.destination.status ?? 'not active'))} (reconnect it in the web app, or leave it out)`);
        continue;
      }
      if (chosen.some((c) => c.destination.id === r.destination.id)) continue;
      chosen.push({ name: r.name, destination: r.destination, options: optionsById.get(r.destination.id)! });
    }
    let plans: DestinationPlan[] = [];
    if (chosen.length > 0) {
      // Each option on its own, so every bad one is reported.
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
      plans = planOptions(chosen, good, findChosen);
      for (const p of plans) {
        for (const o of p.missing) {
          const allowed = allowedValues(o);
          const personal = p.options.creator != null && /privacy/i.test(o.key);
          add(
            `${p.name} needs option "${o.key}"${o.label ? ` (${sanitize(o.label)})` : ''}${allowed ? `, one of: ${allowed}` : ''}` +
              (personal ? `; write it in the item or in defaults (options: {${o.key}: ...}): a person chooses it, vidpub never fills it in` : `; add options: {${o.key}: ...}`),
          );
        }
      }
    }
    // The video against each destination.
    let video = videos[i];
    if (video?.kind === 'media' && !('media' in video)) {
      const m = mediaById.get(video.id);
      if (m instanceof Error || m === undefined) {
        add(`video ${video.id}: ${sanitize(m ? messageOf(m) : 'not found')}`);
        video = undefined;
      } else if (m.status === 'failed') {
        add(`video ${video.id} failed at the service${m.error?.message ? `: ${sanitize(m.error.message)}` : ''}`);
        video = undefined;
      } else video = { kind: 'media', id: video.id, media: m };
    }
    if (video) {
      const durationSec = video.kind === 'file' ? video.durationSec : video.kind === 'media' ? video.media.duration_sec : undefined;
      const size = video.kind === 'file' ? video.file.size : video.kind === 'media' ? video.media.size_bytes ?? undefined : undefined;
      const type = video.kind === 'file' ? video.file.contentType : video.kind === 'media' ? video.media.content_type : undefined;
      for (const t of tooLongFor(durationSec, plans)) {
        add(`the video is ${formatDuration(durationSec! * 1000)} long; ${destinationLabel(t.destination.destination)} takes at most ${formatDuration(t.maxSec * 1000)}`);
      }
      for (const p of plans) {
        const maxSize = p.destination.video_limits?.max_size_bytes;
        if (size !== undefined && typeof maxSize === 'number' && size > maxSize) {
          add(`the video is ${size.toLocaleString('en-US')} bytes; ${destinationLabel(p.destination)} takes at most ${maxSize.toLocaleString('en-US')}`);
        }
        const types = p.destination.video_limits?.content_types;
        if (type && Array.isArray(types) && types.length > 0 && !types.includes(type)) {
          add(`${destinationLabel(p.destination)} does not take ${sanitize(type)} video (it takes ${types.join(', ')})`);
        }
      }
    }
    const caption = captions[i];
    const when = whens[i];
    if (problems.length > before || !video || caption === undefined || when === undefined || plans.length === 0) return;

    // What identifies the item: the video, where, what, when. A relative time counts as written.
    const content = {
      video: video.kind === 'file' ? { file: it.video?.kind === 'file' ? it.video.path : video.shown, size: video.file.size } : video.kind === 'url' ? { url: video.url } : { media: video.id },
      to: plans.map((p) => ({ id: p.destination.id, options: Object.fromEntries(p.values.map((v) => [v.key, v.value])) })),
      caption,
      when: when === null ? 'draft' : when.now ? 'now' : /^\+/.test((it.at ?? '').trim()) ? { relative: it.at!.trim() } : when.utc,
      key: it.userKey ?? null,
    };
    const key = itemKey(content, manifest.batchKey);
    const dup = seenKeys.get(key);
    if (dup !== undefined) {
      add(`repeats item ${dup} (the same video, destinations, caption, options and time); give one a "key" if both are meant`);
      return;
    }
    seenKeys.set(key, it.raw.n);
    if (it.userKey !== undefined) {
      const other = userKeys.get(it.userKey);
      if (other !== undefined) add(`key "${sanitize(it.userKey)}" is also item ${other}'s`);
      userKeys.set(it.userKey, it.raw.n);
    }
    const past = pastProblems.get(i);
    if (past) {
      pastProblems.delete(i);
      pastKeys.set(key, past);
    }
    items.push({ n: it.raw.n, line: it.raw.line, video, caption, plans, when, draft: it.draft, key, fromDefaults: it.raw.fromDefaults });
  });
  problems.push(...pastProblems.values()); // items with other problems: no key to look up
  const postedBefore = pastKeys.size > 0 ? await session.journal?.postIdsByKeys(pastKeys.keys()) : undefined;
  for (const [key, problem] of pastKeys) if (!postedBefore?.has(key)) problems.push(problem);

  if (problems.length > 0) throw problemsError(problems, input.source);

  const daily = me.limits?.api_posts_per_day;
  const postsNeeded = items.filter((it) => !it.draft).length;
  const plan: BatchPlan = {
    items,
    names,
    postsNeeded,
    postsLeft: typeof daily?.remaining === 'number' ? daily.remaining : undefined,
    postsLimit: typeof daily?.limit === 'number' ? daily.limit : undefined,
    dailyResetAt: daily?.reset_at,
    zone,
    me,
  };
  return plan;
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
      hint: `Split the manifest, make some items drafts, or add --wait-for-quota to post the rest after the reset${plan.dailyResetAt ? ` (${plan.dailyResetAt})` : ''}.`,
    },
  );
}

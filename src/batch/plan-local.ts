/**
 * The checks of a batch plan that need no request: each item's fields read
 * (one video, destinations, caption or caption_file, option syntax, draft,
 * time and zone), its video file or link checked, its caption read and held
 * to post's rules (src/core/post-rules.ts), its time resolved. Every problem
 * is added to the list with the item's number and line.
 */
import { readCaptionsField, type ItemCaption } from './item-captions.js';
import { resolve } from 'node:path';
import { VidpubError, sanitize } from '../errors.js';
import type { VideoFile } from '../media/check.js';
import type { EarlierPost } from '../posts/duplicate-guard.js';
import { parseOptionFlag, type OptionAssignment } from '../posts/options.js';
import { pastTimeError } from '../time/at-grammar.js';
import { parseWhen, type ResolvedWhen } from '../time/parse-when.js';
import { isValidTimeZone } from '../time/zones.js';
import { captionFileRefusal, captionRefusal, optionValueRefusal, type Refusal } from '../core/post-rules.js';
import { decodeUtf8 } from '../core/text-rules.js';
import { readUserFile, unreadableFile } from '../util/user-file.js';
import { eachOnce } from './bounded.js';
import { FALSE_TEXT, TRUE_TEXT, flattenOptions, type Problem, type RawItem } from './manifest.js';

/** An item's fields, read and checked on their own. */
export interface LocalItem {
  raw: RawItem;
  video?: { kind: 'file'; path: string } | { kind: 'url'; url: string } | { kind: 'media'; id: string };
  to: string[];
  caption?: string;
  captionFile?: string;
  /** A destination's own caption (captions, caption:DEST columns): item-captions.ts. */
  captions?: ItemCaption[];
  assignments: OptionAssignment[];
  at?: string;
  tz?: string;
  draft: boolean;
  userKey?: string;
  /** force_new: post it although its file changed since the run that posted it (changed.ts). */
  forceNew: boolean;
  /** allow_duplicate: post it although the same video went to the same destination (duplicate-items.ts). */
  allowDuplicate: boolean;
}

/** Why an item is refused as a duplicate (duplicate-items.ts): earlier items of the manifest, and the journal's earlier posts, with its video to its destinations. */
export interface ItemDuplicate {
  items: { item: number; destination_id: string }[];
  posts: EarlierPost[];
  /** Said for a person: "the same video as item 1, which posts it to …; already posted to … (post …)". */
  message: string;
}

/** An item's video once checked here: a file (with its duration), a link, or a video id still to be read. */
export type LocalVideo =
  | { kind: 'file'; file: VideoFile; shown: string; durationSec?: number }
  | { kind: 'url'; url: string; filename: string }
  | { kind: 'media'; id: string };

export function messageOf(err: unknown): string {
  if (err instanceof VidpubError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}

const listOf = (parts: string[]): string[] => parts.map((s) => s.trim()).filter((s) => s !== '');

/** The destinations named, as a list; one list for all the items that write them alike in one text (`lists`). */
function toList(v: unknown, lists: Map<string, string[]>): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return listOf(v.map((x) => String(x)));
  if (typeof v !== 'string') return listOf([String(v)]);
  const known = lists.get(v);
  if (known) return known;
  const list = listOf(v.split(/[,;\s]+/));
  lists.set(v, list);
  return list;
}

/** Adds one problem of an item. */
type Add = (message: string) => void;

function readVideo(f: Record<string, unknown>, add: Add): LocalItem['video'] {
  const videos = (['file', 'url', 'media'] as const).filter((k) => f[k] !== undefined && f[k] !== '');
  if (videos.length === 0) return void add('no video: give file, url or media');
  if (videos.length > 1) return void add(`give one video, not ${videos.join(' and ')}`);
  const k = videos[0]!;
  const v = str(f[k]);
  if (v === undefined || v.trim() === '') return void add(`${k} must be text`);
  if (k === 'file') return { kind: 'file', path: v };
  if (k === 'url') return { kind: 'url', url: v.trim() };
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(v.trim())) return void add(`invalid media "${sanitize(v)}": give a video id such as med_123`);
  return { kind: 'media', id: v.trim() };
}

/** One option as a --option flag would give it, held to post's rule: the assignment, or what is wrong with it. */
function readOption(text: string): OptionAssignment | string {
  try {
    const a = parseOptionFlag(text);
    return optionValueRefusal(a.key, a.value, 'option')?.message ?? a;
  } catch (err) {
    return messageOf(err).replace(/--option/g, 'option');
  }
}

/** The options as --option flags would give them, each value held to post's rule; each KEY=VALUE read once (`alike`). */
function readOptions(options: unknown, add: Add, alike: ReadAlike): OptionAssignment[] {
  const optionProblems: string[] = [];
  const assignments: OptionAssignment[] = [];
  for (const [k, v] of flattenOptions(options, optionProblems)) {
    const text = `${k}=${v === null ? '' : String(v)}`;
    const read = alike.options.get(text) ?? alike.options.set(text, readOption(text)).get(text)!;
    if (typeof read === 'string') add(read);
    else assignments.push(read);
  }
  for (const p of optionProblems) add(p);
  return assignments;
}

function readCaptionFields(f: Record<string, unknown>, add: Add, own = false): { caption?: string; captionFile?: string } {
  const caption = f.caption === undefined || f.caption === null ? undefined : str(f.caption);
  if (f.caption !== undefined && f.caption !== null && caption === undefined) add('caption must be text');
  const captionFile = str(f.caption_file);
  if (caption !== undefined && captionFile !== undefined) add('give caption or caption_file, not both');
  // With captions of the destinations' own, one without is told once they are known (item-captions.ts).
  if (caption === undefined && captionFile === undefined && !own) add('no caption: give caption (an empty one posts without a caption: caption: "" in YAML and JSON, a quoted empty cell "" in CSV) or caption_file');
  return { caption, captionFile };
}

/** A true-or-false field (draft, force_new): a boolean, or text as in a CSV cell; anything else is a problem. */
function readFlag(f: Record<string, unknown>, name: 'draft' | 'force_new' | 'allow_duplicate', add: Add): boolean {
  const v = f[name];
  if (typeof v === 'string' && !TRUE_TEXT.test(v.trim()) && !FALSE_TEXT.test(v.trim())) add(`${name} must be true or false, not "${sanitize(v)}"`);
  else if (v !== undefined && v !== null && typeof v !== 'boolean' && typeof v !== 'string') add(`${name} must be true or false`);
  return v === true || (typeof v === 'string' && TRUE_TEXT.test(v.trim()));
}

/** draft, at, tz and key: text as in a CSV cell; any other text is a problem, never "publish now". */
function readTiming(f: Record<string, unknown>, add: Add): Pick<LocalItem, 'draft' | 'at' | 'tz' | 'userKey'> {
  const draft = readFlag(f, 'draft', add);
  const at = str(f.at);
  const tz = str(f.tz);
  // A list or a map is no time, zone or key: never read as absent ("now", the default zone).
  const notText = (v: unknown) => v !== undefined && v !== null && str(v) === undefined;
  if (notText(f.at)) add('at must be text (a time such as "2026-11-25 09:00", or "+2h")');
  if (notText(f.tz)) add('tz must be text (an IANA name such as Europe/Paris)');
  if (notText(f.key)) add('key must be text');
  if (draft && at !== undefined) add('a draft has no time: drop "at", or drop "draft" to schedule it');
  if (tz !== undefined && !isValidTimeZone(tz)) add(`unknown time zone "${sanitize(tz)}" (an IANA name such as Europe/Paris)`);
  return { draft, at, tz, userKey: str(f.key) };
}

/**
 * What the items of a manifest write alike, read once and shared: the
 * destination lists by their text, the options by their KEY=VALUE.
 */
export interface ReadAlike {
  lists: Map<string, string[]>;
  options: Map<string, OptionAssignment | string>;
}

export const readAlike = (): ReadAlike => ({ lists: new Map(), options: new Map() });

/** One item's fields, checked on their own (no request, no file read). */
export function readLocal(raw: RawItem, problems: Problem[], alike: ReadAlike): LocalItem {
  const f = raw.fields;
  const add: Add = (message) => problems.push({ n: raw.n, line: raw.line, message });
  const video = readVideo(f, add);
  const to = toList(f.to, alike.lists) ?? [];
  if (to.length === 0) add('"to" is missing: where should it be posted? (ids, @handles or platforms)');
  const captions = readCaptionsField(f.captions, add);
  const { caption, captionFile } = readCaptionFields(f, add, captions !== undefined);
  const assignments = readOptions(f.options, add, alike);
  const { draft, at, tz, userKey } = readTiming(f, add);
  const forceNew = readFlag(f, 'force_new', add);
  const allowDuplicate = readFlag(f, 'allow_duplicate', add);
  // Written out, never spread (see rawItem in manifest.ts).
  return { raw, video, to, caption, captionFile, captions, assignments, at, tz, draft, userKey, forceNew, allowDuplicate };
}

/**
 * How many of the items' files are open at once while they are checked
 * (a video's head and movie header, a caption file): well under any open-file
 * limit a system sets, and enough to keep a disk busy.
 */
export const FILES_AT_ONCE = 16;

/** The items' values of one kind, each once, in item order. */
function* named(local: LocalItem[], pick: (it: LocalItem) => string | undefined): Generator<string> {
  for (const it of local) {
    const v = pick(it);
    if (v !== undefined) yield v;
  }
}

const filePath = (it: LocalItem) => (it.video?.kind === 'file' ? it.video.path : undefined);

/**
 * Each item's file checked (exists, type, size, duration) or link checked; undefined where there is a problem.
 * Each file named is checked once however many items name it, FILES_AT_ONCE at a time: the items naming it share the result.
 */
export async function localVideos(local: LocalItem[], baseDir: string, problems: Problem[]): Promise<(LocalVideo | undefined)[]> {
  const { checkVideoFile } = await import('../media/check.js');
  const { readDurationSec } = await import('../media/mp4-duration.js');
  const { checkImportUrl } = await import('../media/import-url.js');
  const files = await eachOnce(named(local, filePath), FILES_AT_ONCE, async (path): Promise<LocalVideo | Error> => {
    try {
      const file = await checkVideoFile(path, baseDir);
      return { kind: 'file', file, shown: path, durationSec: await readDurationSec(file.path) };
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  });
  return local.map((it): LocalVideo | undefined => {
    try {
      const v = it.video;
      if (v?.kind === 'file') {
        const checked = files.get(v.path)!;
        if (checked instanceof Error) throw checked;
        return checked;
      }
      if (v?.kind === 'url') {
        const link = checkImportUrl(v.url);
        return { kind: 'url', url: link.url, filename: link.filename };
      }
      if (v?.kind === 'media') return { kind: 'media', id: v.id };
    } catch (err) {
      problems.push({ n: it.raw.n, line: it.raw.line, message: messageOf(err).replace('(it is relative to the current directory)', '') });
    }
    return undefined;
  });
}

/** A caption_file's text (its last line break dropped), or why it cannot be had. */
async function readCaptionFile(file: string, baseDir: string): Promise<string | Refusal> {
  const path = resolve(baseDir, file);
  let tooBig: Refusal | undefined;
  try {
    // Opened without waiting on a FIFO, and asked what it is on the open file (no stat before it to race).
    const bytes = await readUserFile(path, {
      inspect: (st) => {
        tooBig = captionFileRefusal(st.size, `caption_file ${sanitize(file)}`);
        if (tooBig) throw new Error(tooBig.message);
      },
    });
    const text = decodeUtf8(bytes, `caption_file ${sanitize(file)}`);
    // In the batch's list of problems, one line: what is wrong and the conversion.
    return typeof text === 'string' ? text.replace(/\r?\n$/, '') : { message: `${text.message} (${text.hint!.replace(/^Nothing was uploaded or posted\. If/, 'if')})` };
  } catch (err) {
    if (tooBig) return tooBig;
    return { message: unreadableFile(`caption_file ${sanitize(file)}`, err) };
  }
}

/** A caption held to post's rule: what `post` refuses, refused here in its words, before any upload. */
const heldToRule = (caption: string | Refusal | undefined): string | Refusal | undefined => (typeof caption === 'string' ? (captionRefusal(caption) ?? caption) : caption);

/**
 * Each item's caption, given or read from its caption_file, held to post's rule; undefined where there is a problem.
 * Each caption file is read once, FILES_AT_ONCE at a time, however many items name it.
 */
export async function localCaptions(local: LocalItem[], baseDir: string, problems: Problem[]): Promise<(string | undefined)[]> {
  const files = await eachOnce(named(local, (it) => it.captionFile), FILES_AT_ONCE, async (file) => heldToRule(await readCaptionFile(file, baseDir)));
  return local.map((it) => {
    const caption = it.captionFile === undefined ? heldToRule(it.caption) : files.get(it.captionFile);
    if (typeof caption !== 'object') return caption;
    problems.push({ n: it.raw.n, line: it.raw.line, message: caption.message });
    return undefined;
  });
}

/**
 * Each item's time (null: a draft; undefined: a problem). A time now past is
 * kept aside (`past`, by item index) rather than added: it is no problem when
 * this machine's journal holds the item's post (a rerun after it was
 * scheduled), which its key, computed from the time as written, tells.
 */
export function localWhens(
  local: LocalItem[],
  at: { now: number; zone: string; allowPast: boolean },
  problems: Problem[],
): { whens: (ResolvedWhen | null | undefined)[]; past: Map<number, Problem> } {
  const past = new Map<number, Problem>();
  // The items that write the same time in the same zone share one resolved time (or why not):
  // resolved once, and held once by the plan, however many items write it (most write "now").
  const alike = new Map<string, ResolvedWhen | { failed: unknown }>();
  const resolveOnce = (text: string, zone: string): ResolvedWhen | { failed: unknown } => {
    const id = `${zone}\n${text}`;
    let known = alike.get(id);
    if (!known) {
      try {
        // The time range (not past, at most MAX_DAYS_AHEAD) is parseWhen's, as for post's --at.
        known = parseWhen(text, { now: at.now, zone, allowPast: at.allowPast });
      } catch (err) {
        known = { failed: err };
      }
      alike.set(id, known);
    }
    return known;
  };
  const whens = local.map((it, i) => {
    if (it.draft) return null;
    const zone = it.tz !== undefined && isValidTimeZone(it.tz) ? it.tz : at.zone;
    const problem = (err: unknown): Problem => ({ n: it.raw.n, line: it.raw.line, message: messageOf(err).replace(/ for --at/g, '') });
    const when = resolveOnce(it.at ?? 'now', zone);
    if ('failed' in when) {
      problems.push(problem(when.failed));
      return undefined;
    }
    if (!when.now && when.ms < at.now) past.set(i, problem(pastTimeError(when)));
    return when;
  });
  return { whens, past };
}

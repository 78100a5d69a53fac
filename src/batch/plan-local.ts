/**
 * The checks of a batch plan that need no request: each item's fields read
 * (one video, destinations, caption or caption_file, option syntax, draft,
 * time and zone), its video file or link checked, its caption read and held
 * to post's rules (src/core/post-rules.ts), its time resolved. Every problem
 * is added to the list with the item's number and line.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { VidpubError, sanitize } from '../errors.js';
import type { VideoFile } from '../media/check.js';
import { parseOptionFlag, type OptionAssignment } from '../posts/options.js';
import { pastTimeError } from '../time/at-grammar.js';
import { parseWhen, type ResolvedWhen } from '../time/parse-when.js';
import { isValidTimeZone } from '../time/zones.js';
import { captionFileRefusal, captionRefusal, optionValueRefusal, type Refusal } from '../core/post-rules.js';
import { FALSE_TEXT, TRUE_TEXT, flattenOptions, type Problem, type RawItem } from './manifest.js';

/** An item's fields, read and checked on their own. */
export interface LocalItem {
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

function toList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const parts = Array.isArray(v) ? v.map((x) => String(x)) : typeof v === 'string' ? v.split(/[,;\s]+/) : [String(v)];
  return parts.map((s) => s.trim()).filter((s) => s !== '');
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

/** The options as --option flags would give them, each value held to post's rule. */
function readOptions(options: unknown, add: Add): OptionAssignment[] {
  const optionProblems: string[] = [];
  const assignments: OptionAssignment[] = [];
  for (const [k, v] of flattenOptions(options, optionProblems)) {
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
  return assignments;
}

function readCaptionFields(f: Record<string, unknown>, add: Add): { caption?: string; captionFile?: string } {
  const caption = f.caption === undefined || f.caption === null ? undefined : str(f.caption);
  if (f.caption !== undefined && f.caption !== null && caption === undefined) add('caption must be text');
  const captionFile = str(f.caption_file);
  if (caption !== undefined && captionFile !== undefined) add('give caption or caption_file, not both');
  if (caption === undefined && captionFile === undefined) add('no caption: give caption (caption: "" posts without one) or caption_file');
  return { caption, captionFile };
}

/** draft, at, tz and key: text as in a CSV cell; any other text is a problem, never "publish now". */
function readTiming(f: Record<string, unknown>, add: Add): Pick<LocalItem, 'draft' | 'at' | 'tz' | 'userKey'> {
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
  return { draft, at, tz, userKey: str(f.key) };
}

/** One item's fields, checked on their own (no request, no file read). */
export function readLocal(raw: RawItem, problems: Problem[]): LocalItem {
  const f = raw.fields;
  const add: Add = (message) => problems.push({ n: raw.n, line: raw.line, message });
  const video = readVideo(f, add);
  const to = toList(f.to) ?? [];
  if (to.length === 0) add('"to" is missing: where should it be posted? (ids, @handles or platforms)');
  const captions = readCaptionFields(f, add);
  const assignments = readOptions(f.options, add);
  return { raw, video, to, ...captions, assignments, ...readTiming(f, add) };
}

/** Each item's file checked (exists, type, size, duration) or link checked; undefined where there is a problem. */
export async function localVideos(local: LocalItem[], baseDir: string, problems: Problem[]): Promise<(LocalVideo | undefined)[]> {
  const { checkVideoFile } = await import('../media/check.js');
  const { readDurationSec } = await import('../media/mp4-duration.js');
  const { checkImportUrl } = await import('../media/import-url.js');
  return Promise.all(
    local.map(async (it): Promise<LocalVideo | undefined> => {
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
        problems.push({ n: it.raw.n, line: it.raw.line, message: messageOf(err).replace('(it is relative to the current directory)', '') });
      }
      return undefined;
    }),
  );
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

/** Each item's caption, given or read from its caption_file, held to post's rule; undefined where there is a problem. */
export function localCaptions(local: LocalItem[], baseDir: string, problems: Problem[]): Promise<(string | undefined)[]> {
  return Promise.all(
    local.map(async (it) => {
      const refused = (r: Refusal) => void problems.push({ n: it.raw.n, line: it.raw.line, message: r.message });
      const caption = it.captionFile === undefined ? it.caption : await readCaptionFile(it.captionFile, baseDir);
      if (typeof caption === 'object') return refused(caption);
      // What `post` refuses, refused here in its words: before any upload, not by the service after it.
      const tooLong = captionRefusal(caption);
      return tooLong ? refused(tooLong) : caption;
    }),
  );
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
  const whens = local.map((it, i) => {
    if (it.draft) return null;
    const zone = it.tz !== undefined && isValidTimeZone(it.tz) ? it.tz : at.zone;
    const problem = (err: unknown): Problem => ({ n: it.raw.n, line: it.raw.line, message: messageOf(err).replace(/ for --at/g, '') });
    try {
      // The time range (not past, at most MAX_DAYS_AHEAD) is parseWhen's, as for post's --at.
      const when = parseWhen(it.at ?? 'now', { now: at.now, zone, allowPast: at.allowPast });
      if (!when.now && when.ms < at.now) past.set(i, problem(pastTimeError(when)));
      return when;
    } catch (err) {
      problems.push(problem(err));
      return undefined;
    }
  });
  return { whens, past };
}

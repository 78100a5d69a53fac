/**
 * What the service takes in a post, checked here before anything is sent:
 * the caption (its length, and the size of a file it is read from), option
 * values, the video's duration against each destination, and the time
 * (docs/api-notes.md, "Posts"). One home for each rule: `post`, `batch`,
 * `publish`, `retry` and the local MCP tools all ask these, so a dry run
 * refuses what the real run would, in the same words.
 *
 * A rule returns what is wrong (a Refusal) or undefined; `refuse` turns one
 * into the exit-2 error a single command throws, a batch lists it with the
 * item it belongs to.
 *
 * The limits themselves, how each is counted and the words that refuse it are
 * the service's, in service-rules.ts, which the emulator uses too.
 */
import { UsageError, sanitize } from '../errors.js';
import {
  MAX_CAPTION_CHARS,
  MAX_OPTION_VALUE_CHARS,
  MAX_SCHEDULE_AHEAD_DAYS,
  MAX_SCHEDULE_AHEAD_MS,
  PLATFORM_CAPTION_CHARS,
  SCHEDULE_RANGE_WORDS,
  serviceChars,
  tooManyCharsWords,
} from '../contract/service-rules.js';
import { captionControlRefusal } from './text-rules.js';
import { exactBytes } from '../util/bytes.js';

/** Something the service would refuse, said before anything is sent. */
export interface Refusal {
  message: string;
  hint?: string;
}

const NOTHING_SENT = 'Shorten it; nothing was uploaded or posted.';

/** Throws a Refusal as exit 2; does nothing for undefined. */
export function refuse(r: Refusal | undefined): void {
  if (r) throw new UsageError(r.message, { hint: r.hint });
}

// ---------------------------------------------------------------- the caption

/** The largest caption file (or caption on stdin) read: far more than MAX_CAPTION_CHARS of any script. */
export const MAX_CAPTION_FILE_BYTES = 100_000;

/** A caption longer than the service takes, or with a control character in it (text-rules.ts). */
export function captionRefusal(caption: string | undefined): Refusal | undefined {
  if (caption === undefined) return undefined;
  const control = captionControlRefusal(caption);
  if (control) return control;
  const n = serviceChars(caption);
  if (n <= MAX_CAPTION_CHARS) return undefined;
  return { message: tooManyCharsWords('the caption', n, MAX_CAPTION_CHARS), hint: NOTHING_SENT };
}

/** A caption file too big to read (`what` names it as the caller does); undefined when `sizeBytes` fits. */
export function captionFileRefusal(sizeBytes: number, what: string): Refusal | undefined {
  return sizeBytes > MAX_CAPTION_FILE_BYTES ? { message: `${what} is longer than ${exactBytes(MAX_CAPTION_FILE_BYTES)}` } : undefined;
}

// ---------------------------------------------------------------- option values

/** An option value longer than the service takes. `flag`: how the caller names options ("--option" on the command line). */
export function optionValueRefusal(key: string, value: unknown, flag = '--option'): Refusal | undefined {
  if (typeof value !== 'string') return undefined;
  const n = serviceChars(value);
  if (n <= MAX_OPTION_VALUE_CHARS) return undefined;
  return { message: tooManyCharsWords(`the value of ${flag} ${sanitize(key)}`, n, MAX_OPTION_VALUE_CHARS), hint: NOTHING_SENT };
}

// ---------------------------------------------------------------- the video's duration

/** What a destination says of the longest video it takes: its options (creator platforms) or its video limits. */
export interface DurationLimited {
  options: { max_duration_sec?: number | null };
  destination: { video_limits?: { max_duration_sec?: number | null } | null };
}

/** The longest video a destination takes, in seconds (undefined: no limit known). */
export function maxDurationOf(d: DurationLimited): number | undefined {
  const fromOptions = d.options.max_duration_sec;
  if (typeof fromOptions === 'number' && fromOptions > 0) return fromOptions;
  const fromLimits = d.destination.video_limits?.max_duration_sec;
  return typeof fromLimits === 'number' && fromLimits > 0 ? fromLimits : undefined;
}

/** The destinations a video of `durationSec` is too long for, each with its maximum (seconds). */
export function tooLongFor<D extends DurationLimited>(durationSec: number | undefined, destinations: D[]): { destination: D; maxSec: number }[] {
  if (durationSec === undefined || !Number.isFinite(durationSec)) return [];
  return destinations.flatMap((destination) => {
    const maxSec = maxDurationOf(destination);
    return maxSec !== undefined && durationSec > maxSec ? [{ destination, maxSec }] : [];
  });
}

/** The destinations whose platform would cut `caption` (PLATFORM_CAPTION_CHARS), each with what it takes. */
export function captionCutFor<D extends { destination: { platform?: string } }>(caption: string, destinations: D[]): { destination: D; max: number; chars: number }[] {
  const chars = serviceChars(caption);
  return destinations.flatMap((destination) => {
    const max = PLATFORM_CAPTION_CHARS[String(destination.destination.platform ?? '').toLowerCase()];
    return max !== undefined && chars > max ? [{ destination, max, chars }] : [];
  });
}

// ---------------------------------------------------------------- the time

/**
 * A `publish_at` the service would refuse for its time: past, or more than
 * MAX_SCHEDULE_AHEAD_DAYS days ahead. (`--at` is read by parseWhen, which holds the
 * same range; this is for a time given as the service takes it, such as an
 * MCP tool's `publish_at`, or one resolved earlier that may have passed
 * since, as publish sends it. `field` names it in the message.)
 */
export function publishAtRefusal(publishAt: string | undefined, now: number, field = 'publish_at'): Refusal | undefined {
  // Only a time with its offset is one the service reads; the rest is its to refuse.
  if (publishAt === undefined || !/^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(publishAt.trim())) return undefined;
  const ms = Date.parse(publishAt.trim());
  if (!Number.isFinite(ms)) return undefined;
  const shown = sanitize(publishAt);
  if (ms < now) return { message: `the time ${shown} for ${field} is in the past`, hint: 'Give a later time, or "now" to post now.' };
  if (ms - now > MAX_SCHEDULE_AHEAD_MS) {
    return { message: `the time ${shown} for ${field} is more than ${MAX_SCHEDULE_AHEAD_DAYS} days ahead; ${SCHEDULE_RANGE_WORDS}` };
  }
  return undefined;
}

// ---------------------------------------------------------------- a whole post

/** What a post sends, as POST /posts (and POST /posts/{id}/publish) take it. */
export interface PostBody {
  caption?: string;
  destinations?: { options?: Record<string, unknown> }[];
  publish_at?: string;
}

/** The first thing the service would refuse in a post's caption, option values or time (`flag`: how options are named). */
export function postRefusal(body: PostBody, now: number, flag = 'option'): Refusal | undefined {
  const options = (body.destinations ?? []).flatMap((d) => Object.entries(d.options ?? {}));
  return (
    captionRefusal(body.caption) ??
    options.map(([key, value]) => optionValueRefusal(key, value, flag)).find((r) => r !== undefined) ??
    publishAtRefusal(body.publish_at, now)
  );
}

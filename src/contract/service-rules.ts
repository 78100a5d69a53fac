/**
 * The service's limits on what a request carries, each declared once with
 * how it is counted and the words that refuse it. The client's checks
 * (post-rules.ts: post, batch, publish, retry, the local MCP tools; the file
 * check of src/media/) and the emulator's validation (src/emulator/posts.ts,
 * media.ts) both use this module, so a value the client lets through is one
 * the emulator takes, and a refusal reads the same on both sides.
 *
 * The contract states the file size (1 GB, §8 rule 6) and leaves the rest
 * "not shown"; the project's answers, and how they are counted, are in
 * docs/api-notes.md ("Posts", "Uploads"). test/support/service-limits.ts is
 * the one table of values at and over each limit that both sides' tests run.
 */
import { exactBytes } from '../util/bytes.js';

// ---------------------------------------------------------------- how text is counted

/**
 * Characters of a text as the service counts them: Unicode code points. An
 * emoji or any other astral character (two UTF-16 units) is one; a combining
 * mark is one of its own (`é` written as e + U+0301 is two); an emoji made of
 * several code points joined by U+200D counts each of them.
 */
export function serviceChars(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The words that refuse a text over its limit: "<what> has N characters; the service takes at most MAX". */
export function tooManyCharsWords(what: string, chars: number, max: number): string {
  return `${what} has ${count(chars)} characters; the service takes at most ${count(max)}`;
}

// ---------------------------------------------------------------- the caption

/** The most characters (serviceChars) a post's caption may have. */
export const MAX_CAPTION_CHARS = 10_000;

/**
 * The caption each platform takes (serviceChars): a longer one is cut when the post goes out
 * (warning caption_truncated; a draft's issue caption_too_long). The contract's destination
 * record does not carry it, so it is the platforms' known figure, declared once: the emulator's
 * default destinations take exactly these (default-fixture.ts), and the client says before
 * posting that a caption would be cut (core/post-rules.ts, captionCutFor). A platform not listed
 * is not checked: the service has the last word.
 */
export const PLATFORM_CAPTION_CHARS: Readonly<Record<string, number>> = {
  tiktok: 2200,
  youtube: 5000,
  linkedin: 3000,
  instagram: 2200,
};

// ---------------------------------------------------------------- option values

/** The most characters (serviceChars) a string option value may have (more: 400 invalid_option_value). */
export const MAX_OPTION_VALUE_CHARS = 1000;

// ---------------------------------------------------------------- destinations

/** The most destinations one post may go to (more: 400 invalid_field). */
export const MAX_DESTINATIONS_PER_POST = 25;

// ---------------------------------------------------------------- the schedule

/** How far ahead a publish_at may be, in days of 24 hours from the service's now (more: 400 invalid_publish_at). */
export const MAX_SCHEDULE_AHEAD_DAYS = 365;

/** MAX_SCHEDULE_AHEAD_DAYS in milliseconds: a time `ms` is too far when `ms - now` is more than this. */
export const MAX_SCHEDULE_AHEAD_MS = MAX_SCHEDULE_AHEAD_DAYS * 86_400_000;

/** The words that close a refusal of a time too far ahead. */
export const SCHEDULE_RANGE_WORDS = `the service schedules at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead`;

// ---------------------------------------------------------------- the file

/** 1 GB, the contract's maximum file size (decimal, as the service states it), in bytes. */
export const MAX_FILE_SIZE_BYTES = 1_000_000_000;

/** The words that refuse a file over MAX_FILE_SIZE_BYTES: "N bytes; the service accepts at most 1 GB (1,000,000,000 bytes)". */
export function fileTooLargeWords(sizeBytes: number): string {
  return `${exactBytes(sizeBytes)}; the service accepts at most 1 GB (${exactBytes(MAX_FILE_SIZE_BYTES)})`;
}

/**
 * The words the --at grammar shares between its forms: the formats and
 * examples an error shows, the units, how far ahead the service takes a time,
 * and the errors (each a usage error, exit 2, said before anything is sent).
 */
import { UsageError, sanitize } from '../errors.js';
import { MAX_SCHEDULE_AHEAD_DAYS, SCHEDULE_RANGE_WORDS } from '../contract/service-rules.js';
import { pad } from './iso-time.js';
import { wallAt } from './zones.js';

export const WHEN_FORMATS =
  'now; "in 2h", +30m, +1h30m, +1d (from now); 9:00 or 9am (its next occurrence); "tomorrow 9:00", "today 18:30", ' +
  '"mon 09:00", "monday 9am" (the next such day); "YYYY-MM-DD 9:00" (local time, or in --tz ZONE); ISO 8601 with an offset or Z';

/**
 * Examples of WHEN that are valid at `now` (relative forms, and a date a week
 * ahead), for error messages: never a date already past.
 */
export function whenExamples(now: number, zone: string): string {
  const w = wallAt(now + 7 * 86_400_000, zone);
  const date = `${pad(w.y, 4)}-${pad(w.mo)}-${pad(w.d)}`;
  return `now, "in 2h", +30m, 9:00, "tomorrow 9:00", "mon 09:00", "monday 9am", "${date} 09:00", ${date}T09:00:00Z (ISO 8601)`;
}

const MINUTE = 60_000;
/** Milliseconds per unit of a relative time (`+30m`, `in 2 weeks`). */
export const UNIT_MS: Record<string, number> = { s: 1000, m: MINUTE, h: 60 * MINUTE, d: 24 * 60 * MINUTE, w: 7 * 24 * 60 * MINUTE };

/** How far ahead the service takes a publish_at, in days (src/contract/service-rules.ts). */
export const MAX_DAYS_AHEAD = MAX_SCHEDULE_AHEAD_DAYS;

/** --at beyond what the service takes: an invalid time (exit 2), said before anything is sent. */
export function tooFarAhead(text: string, flag = '--at'): UsageError {
  return new UsageError(`invalid time "${sanitize(text)}" for ${flag}: ${SCHEDULE_RANGE_WORDS}`, {
    hint: `Give a time within ${MAX_DAYS_AHEAD} days, e.g. --at +30d, or save a draft (--draft) and publish it later.`,
  });
}

/** A time that has passed (exit 2), said as parseWhen says it. */
export function pastTimeError(when: { local: string; utc: string }, flag = '--at'): UsageError {
  return new UsageError(`the time ${when.local} (${when.utc}) for ${flag} is in the past`, {
    hint: 'Give a later time, or "now" to post now.',
  });
}

// The time and zone of the parseWhen call under way (parsing is synchronous), so
// the examples in an error are valid then.
let examplesAt: { now: number; zone: string; flag?: string } | undefined;

/** The time and zone that the examples of the next errors are valid at, and the flag they name (set by parseWhen). */
export function giveExamplesAt(at: { now: number; zone: string; flag?: string }): void {
  examplesAt = at;
}

/** A WHEN that is not one of the forms, or names no moment; `why` says what is wrong. */
export function malformed(text: string, why?: string): UsageError {
  return new UsageError(`invalid time "${sanitize(text)}" for ${examplesAt?.flag ?? '--at'}${why ? `: ${why}` : ''}`, {
    hint: examplesAt
      ? `For example: ${whenExamples(examplesAt.now, examplesAt.zone)}. Local times are read in ${examplesAt.zone} (--tz ZONE changes it).`
      : `Write it as ${WHEN_FORMATS}.`,
  });
}

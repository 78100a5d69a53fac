/**
 * WHEN, as `--at` takes it: `now`; ISO 8601 with an offset (`Z` or ±hh:mm);
 * a local date-time (`2026-11-21 09:00`, `2026-11-21T09:00:30`) read in the
 * local zone or `--tz ZONE`; a relative time (`+30m`, `+2h`, `+1d`,
 * `+1h30m`; days and weeks are calendar days: relative.ts); or one of the forms people type (natural-when.ts). Pure: the
 * current time and the zone are passed in.
 *
 * Local times that fall in a DST gap (clocks move forward) do not exist and
 * are refused. Local times that occur twice (clocks move back) resolve to the
 * earlier of the two, and the result says so (`note`), so the person sees it
 * in the summary before anything is sent: local-time.ts resolveWall, for the
 * local date-time and the natural forms alike.
 */
import { giveExamplesAt, malformed, MAX_DAYS_AHEAD, pastTimeError, tooFarAhead, UNIT_MS } from './at-grammar.js';
import { formatOffset, isoInZone, isoUtc, isoWithOffset } from './iso-time.js';
import { checkedWall, resolveWall } from './local-time.js';
import { parseNatural } from './natural-when.js';
import { addRelative } from './relative.js';
import { offsetAt, wallAsUtc } from './zones.js';

export interface ResolvedWhen {
  /** True for `now`: publish_at is sent as "now". */
  now: boolean;
  /** Epoch ms of the moment (the current time for `now`). */
  ms: number;
  /** What to send as publish_at: "now" or ISO 8601 with offset, e.g. 2026-11-21T09:00:00+01:00. */
  publishAt: string;
  /** The moment with its offset, e.g. 2026-11-21T09:00:00+01:00. */
  local: string;
  /** The moment in UTC, e.g. 2026-11-21T08:00:00Z. */
  utc: string;
  /** The zone the local form is in (an IANA name, or the offset that was written). */
  zone: string;
  /** Something the person should know (an ambiguous local time). */
  note?: string;
  /** Counted from this machine's clock (`+30m`, "in 2h"): off by as much as that clock is off. */
  fromNow?: boolean;
}

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)$/i;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:T|\s+)(\d{2}):(\d{2})(?::(\d{2}))?$/i;
const RELATIVE = /^\+\s*((?:\d+\s*[smhdw]\s*)+)$/i;

function parseOffset(text: string, raw: string): number {
  if (raw.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(raw)!;
  const hours = Number(m[2]);
  const minutes = m[3] === undefined ? 0 : Number(m[3]);
  if (hours > 14 || minutes > 59) throw malformed(text, `offset ${raw} is out of range`);
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes) * UNIT_MS.m!;
}

/**
 * `now` as a WHEN. The zone is asked for (and the local form made) only when
 * read: a post sent now, printed as JSON, never pays for ICU's time zone data.
 */
export function nowWhen(now: number, zone: () => string): ResolvedWhen {
  let local: string | undefined;
  return {
    now: true,
    ms: now,
    publishAt: 'now',
    utc: isoUtc(now),
    get zone() {
      return zone();
    },
    get local() {
      return (local ??= isoInZone(now, zone()));
    },
  };
}

/**
 * Resolves WHEN against `now` (epoch ms) and `zone` (IANA, from
 * resolveTimeZone). Throws UsageError for a malformed time, a time that does
 * not exist in the zone, or a time in the past; `allowPast`: a time before
 * `now` is returned (the caller decides) instead of refused.
 */
export function parseWhen(input: string, opts: { now: number; zone: string; allowPast?: boolean; flag?: string }): ResolvedWhen {
  const text = String(input).trim();
  const { now, zone } = opts;
  giveExamplesAt({ now: opts.now, zone: opts.zone, flag: opts.flag });
  if (/^now$/i.test(text)) return nowWhen(now, () => zone);

  let ms: number;
  let shownOffset: number;
  let shownZone = zone;
  let note: string | undefined;

  const rel = RELATIVE.exec(text);
  const iso = rel ? null : ISO_WITH_OFFSET.exec(text);
  const local = rel || iso ? null : LOCAL.exec(text);
  if (rel) {
    const parts = [...rel[1]!.matchAll(/(\d+)\s*([smhdw])/gi)].map((p) => ({ n: Number(p[1]), unit: p[2]!.toLowerCase() }));
    ({ ms, note } = addRelative(text, parts, now, zone));
    shownOffset = offsetAt(ms, zone);
  } else if (iso) {
    const wall = checkedWall(text, iso);
    const offset = parseOffset(text, iso[8]!);
    ms = wallAsUtc(wall) - offset;
    shownOffset = offset;
    shownZone = iso[8]!.toUpperCase() === 'Z' ? 'UTC' : formatOffset(offset);
  } else if (local) {
    ({ ms, note } = resolveWall(text, checkedWall(text, local), zone, true));
    shownOffset = offsetAt(ms, zone);
  } else {
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) throw malformed(text, 'add a time of day, e.g. "' + text + ' 09:00"');
    const natural = parseNatural(text, now, zone);
    if (!natural) throw malformed(text);
    ms = natural.ms;
    note = natural.note;
    shownOffset = offsetAt(ms, zone);
  }

  if (!Number.isFinite(ms) || ms - now > MAX_DAYS_AHEAD * UNIT_MS.d!) throw tooFarAhead(text, opts.flag);
  const shown = isoWithOffset(ms, shownOffset);
  const fromNow = rel !== null || /^in\s/i.test(text);
  const when: ResolvedWhen = { now: false, ms, publishAt: shown, local: shown, utc: isoUtc(ms), zone: shownZone, note, ...(fromNow ? { fromNow } : {}) };
  if (ms < now && !opts.allowPast) throw pastTimeError(when, opts.flag);
  return when;
}

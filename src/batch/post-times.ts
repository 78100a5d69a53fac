/**
 * The times of a backlog: each item without its own time gets the next free
 * slot of a rule (src/time/slot-rule.ts). Pure: what is already scheduled
 * (vidpub's journal) and the daily allowance (GET /me) are passed in.
 *
 * A slot is free for a destination while fewer than `perSlot` posts are
 * scheduled there within the slot's minute. Items take slots in manifest
 * order (an item never gets an earlier time than the one before it). A local
 * day is skipped once its posts (each post counts once, whatever its
 * destinations) would pass the daily allowance; the plan says so.
 */
import { UsageError } from '../errors.js';
import { MAX_SCHEDULE_AHEAD_DAYS, MAX_SCHEDULE_AHEAD_MS } from '../contract/service-rules.js';
import { isoUtc, isoWithOffset } from '../time/iso-time.js';
import { dayOf, slotsFrom, type SlotRule } from '../time/slot-rule.js';

/** An item that needs a time: its number in the manifest and its destinations' ids. */
export interface TimelessItem {
  n: number;
  destinations: readonly string[];
}

/** A post already scheduled (by hand, or by an earlier run): its time and destinations' ids. */
export interface ScheduledPost {
  ms: number;
  destinations: readonly string[];
}

export interface PostTimesInput {
  rule: SlotRule;
  /** The first moment a slot may be at (--from, or now). */
  from: number;
  now: number;
  zone: string;
  perSlot: number;
  /** Posts a day may hold (GET /me limits.api_posts_per_day.limit); undefined: no limit known. */
  dailyLimit?: number;
  items: readonly TimelessItem[];
  scheduled: readonly ScheduledPost[];
}

export interface PostTime {
  n: number;
  ms: number;
  /** The time in the plan's zone, with its offset. */
  local: string;
  utc: string;
  note?: string;
}

export interface PostTimes {
  times: PostTime[];
  /** What the plan should say: days skipped for the allowance, slots the clocks skip. */
  notes: string[];
}

/** The plan's slots (slot-step.ts): each timed item's time and where it came from, and what the plan says of them. */
export interface PlanSlots {
  rule: string;
  perSlot: number;
  rows: { item: number; destination: string; local: string; utc: string; from: 'slot' | 'journal' }[];
  notes: string[];
}

const MINUTE = 60_000;

/** Each item's time; exit 2 when the rule has too few slots within what the service schedules ahead. */
export function planPostTimes(input: PostTimesInput): PostTimes {
  const { zone, perSlot, dailyLimit } = input;
  const taken = new Map<string, number>();
  const perDay = new Map<string, number>();
  const takenKey = (dest: string, ms: number) => `${Math.floor(ms / MINUTE)}\u0000${dest}`;
  for (const post of input.scheduled) {
    for (const d of post.destinations) taken.set(takenKey(d, post.ms), (taken.get(takenKey(d, post.ms)) ?? 0) + 1);
    const day = dayOf(post.ms, zone);
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  const times: PostTime[] = [];
  const notes: string[] = [];
  const skippedDays = new Set<string>();
  const start = Math.max(input.from, input.now + 1);
  const slots = slotsFrom(input.rule, start, input.now + MAX_SCHEDULE_AHEAD_MS, zone);
  let slot = slots.next();
  const told = new Set<string>();
  const tell = (note: string | undefined) => {
    if (!note || told.has(note)) return;
    notes.push(note);
    told.add(note);
  };
  for (const item of input.items) {
    for (; !slot.done; slot = slots.next()) {
      const s = slot.value;
      if (s.skipped) {
        tell(s.note);
        continue;
      }
      if (dailyLimit !== undefined && (perDay.get(s.day) ?? 0) >= dailyLimit) {
        if (!skippedDays.has(s.day)) {
          skippedDays.add(s.day);
          tell(`${s.day} is skipped: ${perDay.get(s.day)} posts are scheduled that day, the daily allowance is ${dailyLimit}`);
        }
        continue;
      }
      if (item.destinations.every((d) => (taken.get(takenKey(d, s.ms)) ?? 0) < perSlot)) break;
    }
    if (slot.done) {
      throw new UsageError(
        `the rule "${input.rule.text}" has slots for ${times.length} of the ${input.items.length} items without a time within the ${MAX_SCHEDULE_AHEAD_DAYS} days the service schedules ahead; nothing was sent`,
        { hint: 'Add times to the rule, raise --per-slot, or split the manifest.' },
      );
    }
    const s = slot.value;
    for (const d of item.destinations) taken.set(takenKey(d, s.ms), (taken.get(takenKey(d, s.ms)) ?? 0) + 1);
    perDay.set(s.day, (perDay.get(s.day) ?? 0) + 1);
    tell(s.note);
    times.push({ n: item.n, ms: s.ms, local: isoWithOffset(s.ms, s.offsetMs), utc: isoUtc(s.ms), note: s.note });
  }
  return { times, notes };
}

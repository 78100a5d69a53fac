/**
 * batch --slots / --every: the step after the plan is checked that gives each
 * item without its own time the next free slot (post-times.ts), around what
 * vidpub's journal holds scheduled; an item an earlier run posted keeps the
 * time that run gave it (the journal), so a rerun moves nothing, least of all
 * a post that went out. Then the plan's slots as a table and as data.
 */
import { UsageError, sanitize } from '../errors.js';
import type { Journal } from '../journal/journal-types.js';
import type { Session } from '../session/session.js';
import type { Colors } from '../ui/color.js';
import { renderTable } from '../ui/table.js';
import { isoInZone, isoUtc } from '../time/iso-time.js';
import { parseFrom, parseSlotRule, type SlotRule } from '../time/slot-rule.js';
import type { ResolvedWhen } from '../time/parse-when.js';
import { planPostTimes, type PlanSlots, type ScheduledPost } from './post-times.js';

export type { PlanSlots } from './post-times.js';
import type { BatchPlan, PlannedItem } from './plan.js';

/** What --slots/--every, --from and --per-slot asked. */
export interface SlotOpts {
  rule: SlotRule;
  from: number;
  perSlot: number;
}


/** The flags read and checked before anything is sent (exit 2); undefined without --slots or --every. */
export function readSlotFlags(
  flags: { slots?: string; every?: string; from?: string; perSlot?: string },
  now: number,
  zone: string,
): SlotOpts | undefined {
  if (flags.slots === undefined && flags.every === undefined) {
    const lone = flags.from !== undefined ? '--from' : flags.perSlot !== undefined ? '--per-slot' : undefined;
    if (lone) throw new UsageError(`${lone} goes with a rule of times: add --slots "mon-fri 09:00,17:00" or --every 2h`);
    return undefined;
  }
  const rule = parseSlotRule(flags);
  const from = flags.from === undefined ? now : parseFrom(flags.from, now, zone);
  const perSlot = flags.perSlot === undefined ? 1 : Number(flags.perSlot);
  if (!Number.isInteger(perSlot) || perSlot < 1 || perSlot > 1000) {
    throw new UsageError(`--per-slot must be a whole number from 1 to 1000, not "${sanitize(String(flags.perSlot))}"`);
  }
  return { rule, from, perSlot };
}

/** Gives the plan's timeless items their times (item.when), and keeps what it did on plan.slots. */
export async function applySlots(plan: BatchPlan, opts: SlotOpts, session: Session): Promise<void> {
  const zone = plan.zone;
  const timeless = plan.items.filter((it) => it.timeless);
  const earlier = new Map<PlannedItem, number>();
  const scheduled = session.journal ? await scheduledPosts(session.journal) : [];
  for (const it of timeless) {
    if (!it.alreadyPosted || !session.journal) continue;
    const post = it.earlierPostId ? await session.journal.find(it.earlierPostId) : await session.journal.findByKey(it.key);
    const ms = post?.publish_at ? Date.parse(post.publish_at) : NaN;
    if (Number.isFinite(ms)) earlier.set(it, ms);
  }
  const fresh = timeless.filter((it) => !earlier.has(it));
  const { times, notes } = planPostTimes({
    rule: opts.rule,
    from: opts.from,
    now: session.clock.now(),
    zone,
    perSlot: opts.perSlot,
    dailyLimit: plan.postsLimit,
    items: fresh.map((it) => ({ n: it.n, destinations: it.plans.map((p) => p.destination.id) })),
    scheduled,
  });
  const at = new Map<PlannedItem, { ms: number; local?: string; note?: string; from: 'slot' | 'journal' }>();
  fresh.forEach((it, i) => at.set(it, { ms: times[i]!.ms, local: times[i]!.local, note: times[i]!.note, from: 'slot' }));
  for (const [it, ms] of earlier) at.set(it, { ms, from: 'journal' });
  const rows: PlanSlots['rows'] = [];
  for (const it of timeless) {
    const t = at.get(it)!;
    it.when = slotWhen(t.ms, t.local ?? isoInZone(t.ms, zone), zone, t.note);
    for (const p of it.plans) rows.push({ item: it.n, destination: plan.names[p.destination.id] ?? p.destination.id, local: it.when.local, utc: it.when.utc, from: t.from });
  }
  plan.slots = { rule: opts.rule.text, perSlot: opts.perSlot, rows, notes };
  // Said on stderr too, for a run (--dry-run also lists them under its table).
  for (const n of notes) session.log.info(`Slots: ${sanitize(n)}`);
}

/** A slot's moment as an item's time: sent with its offset in the plan's zone. */
function slotWhen(ms: number, local: string, zone: string, note?: string): ResolvedWhen {
  return { now: false, ms, publishAt: local, local, utc: isoUtc(ms), zone, note };
}

/** The posts vidpub's journal holds scheduled from now on, with their destinations. */
async function scheduledPosts(journal: Journal): Promise<ScheduledPost[]> {
  const posts = await journal.history({ limit: 1_000_000, state: 'scheduled' });
  const out: ScheduledPost[] = [];
  for (const p of posts) {
    const ms = p.publish_at ? Date.parse(p.publish_at) : NaN;
    if (Number.isFinite(ms)) out.push({ ms, destinations: p.destinations.map((d) => d.id) });
  }
  return out;
}

/** The slots table under the plan (--dry-run): item, destination, local time, UTC; then what the plan says. */
export function slotLines(slots: PlanSlots, zone: string, c: Colors, tty: boolean): string[] {
  const head = `Slots of "${sanitize(slots.rule)}" in ${zone}${slots.perSlot > 1 ? `, ${slots.perSlot} a slot per destination` : ''}:`;
  const table = renderTable(
    slots.rows,
    [
      { header: 'item', value: (r) => String(r.item) },
      { header: 'destination', value: (r) => r.destination },
      { header: 'local time', value: (r) => r.local + (r.from === 'journal' ? ' (as posted)' : '') },
      { header: 'utc', value: (r) => r.utc },
    ],
    { tty, bold: tty ? c.bold : undefined },
  );
  return [head, ...table, ...slots.notes.map((n) => `note: ${sanitize(n)}`)];
}

/** The slots as data (--dry-run --json). */
export function slotJson(slots: PlanSlots): unknown {
  return { rule: slots.rule, per_slot: slots.perSlot, times: slots.rows.map((r) => ({ item: r.item, destination: r.destination, local: r.local, utc: r.utc, from: r.from })), notes: slots.notes };
}

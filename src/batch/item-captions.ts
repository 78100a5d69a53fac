/**
 * A manifest item's caption for each destination: `captions: {youtube: "…",
 * tiktok: "…"}` in YAML and JSON, `caption:DEST` columns in CSV, DEST read as
 * `to` reads a destination. As `post --caption-for`: the item's destinations
 * grouped by the caption each gets, one post per group from the item's one
 * video, each caption checked against its destinations' limits before
 * anything is sent. The groups are part of what identifies the item (keys.ts).
 */
import { captionCutFor, captionRefusal } from '../core/post-rules.js';
import { sanitize } from '../errors.js';
import { matchChosen } from '../posts/destinations.js';
import type { DestinationPlan } from '../posts/options.js';
import { destinationLabel } from '../posts/view.js';

/** A caption of the item's own for one destination, as written. */
export interface ItemCaption {
  dest: string;
  text: string;
}

/** The destinations of an item that get one caption: one post. */
export interface ItemCaptionGroup {
  caption: string;
  plans: DestinationPlan[];
}

/** The `captions` field (a CSV row's `caption:DEST` cells gathered into it): each DEST with its text; problems told with `add`. */
export function readCaptionsField(value: unknown, add: (message: string) => void): ItemCaption[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    add('captions must be a map of DEST: CAPTION (DEST as "to" names a destination)');
    return undefined;
  }
  const out: ItemCaption[] = [];
  for (const [dest, text] of Object.entries(value as Record<string, unknown>)) {
    const name = dest.trim();
    if (name === '') add('captions: a caption has no destination: give DEST: CAPTION');
    else if (typeof text !== 'string') add(`captions: the caption for "${sanitize(name)}" must be text`);
    else if (text.trim() === '') add(`captions: the caption for "${sanitize(name)}" is empty (leave it out to post the item's caption there)`);
    else out.push({ dest: name, text });
  }
  return out;
}

/**
 * The item's posts: its destinations grouped by caption (their own, else `base`), in the order of `to`.
 * A DEST that is none of the item's destinations, two captions for one, a caption the service or a
 * destination's platform would refuse or cut: told with `add` (undefined then).
 */
export function itemGroups(own: ItemCaption[], plans: DestinationPlan[], base: string | undefined, add: (message: string) => void): ItemCaptionGroup[] | undefined {
  const mine = new Map<DestinationPlan, ItemCaption>();
  let bad = false;
  const fail = (message: string) => {
    bad = true;
    add(message);
  };
  for (const c of own) {
    const plan = matchChosen(c.dest, plans);
    if (!plan) fail(`captions: "${sanitize(c.dest)}" is not one of the item's destinations (to: ${sanitize(plans.map((p) => p.name).join(', '))})`);
    else if (mine.has(plan)) fail(`captions: ${destinationLabel(plan.destination)} has two captions ("${sanitize(mine.get(plan)!.dest)}" and "${sanitize(c.dest)}")`);
    else mine.set(plan, c);
  }
  const groups: ItemCaptionGroup[] = [];
  for (const p of plans) {
    const caption = mine.get(p)?.text ?? base;
    if (caption === undefined) {
      fail(`no caption for ${destinationLabel(p.destination)}: give caption, or captions with "${sanitize(p.name)}"`);
      continue;
    }
    const group = groups.find((g) => g.caption === caption);
    if (group) group.plans.push(p);
    else groups.push({ caption, plans: [p] });
  }
  for (const g of groups) {
    const to = g.plans.map((p) => destinationLabel(p.destination)).join(', ');
    const refusal = captionRefusal(g.caption);
    if (refusal) fail(`${refusal.message}, for ${sanitize(to)}`);
    const cut = captionCutFor(g.caption, g.plans);
    if (cut.length > 0) fail(`the caption for ${sanitize(to)} has ${cut[0]!.chars.toLocaleString('en-US')} characters: ${cut.map((c) => `${destinationLabel(c.destination.destination)} takes ${c.max.toLocaleString('en-US')}`).join('; ')}`);
  }
  return bad ? undefined : groups;
}

/** What identifies the item's captions (keys.ts): each caption with its destinations' ids. */
export function groupsContent(groups: ItemCaptionGroup[] | undefined): unknown {
  return groups?.map((g) => [g.caption, g.plans.map((p) => p.destination.id)]);
}

/**
 * Idempotency keys that come from the manifest itself: the canonical JSON of
 * one resolved item (its video, destinations, caption, options and time) and
 * the manifest's `batch_key`, hashed. The same item in a rerun gets the same
 * keys, so the service replays what was done (within its 24 h window) instead
 * of doing it twice; editing one item changes only that item's keys.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level; undefined members left out. Built in one string: it runs once per item. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (value[i] === undefined ? 'null' : canonicalJson(value[i]));
    return out + ']';
  }
  const o = value as Record<string, unknown>;
  let out = '{';
  // Object.keys().sort() orders by UTF-16 code units, as `<` does.
  for (const k of Object.keys(o).sort()) {
    if (o[k] === undefined) continue;
    out += (out.length > 1 ? ',' : '') + JSON.stringify(k) + ':' + canonicalJson(o[k]);
  }
  return out + '}';
}

/** The base of an item's Idempotency-Keys: `batch-<32 hex>` (steps add `:upload`, `:post`…). */
export function itemKey(content: unknown, batchKey: string | undefined): string {
  const h = createHash('sha256').update(canonicalJson({ batch_key: batchKey ?? null, item: content })).digest('hex');
  // One flat string: a slice joined to a prefix is kept as three (the whole hash among them), 170 bytes an item.
  return Buffer.from(`batch-${h.slice(0, 32)}`, 'latin1').toString('latin1');
}

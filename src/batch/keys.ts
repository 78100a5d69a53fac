/**
 * Idempotency keys that come from the manifest itself: the canonical JSON of
 * one resolved item (its video, destinations, caption, options and time) and
 * the manifest's `batch_key`, hashed. The same item in a rerun gets the same
 * keys, so the service replays what was done (within its 24 h window) instead
 * of doing it twice; editing one item changes only that item's keys.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level; undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The base of an item's Idempotency-Keys: `batch-<32 hex>` (steps add `:upload`, `:post`…). */
export function itemKey(content: unknown, batchKey: string | undefined): string {
  const h = createHash('sha256').update(canonicalJson({ batch_key: batchKey ?? null, item: content })).digest('hex');
  return `batch-${h.slice(0, 32)}`;
}

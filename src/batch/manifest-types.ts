/**
 * What a batch manifest reads into, whatever its format (manifest.ts, manifest-csv.ts): the
 * items as written, the problems found, and the words every format shares.
 */

export type ManifestFormat = 'yaml' | 'csv' | 'json' | 'jsonl';

export const FORMATS: ManifestFormat[] = ['yaml', 'csv', 'json', 'jsonl'];

/** One item as written (defaults merged in), with where it came from. */
export interface RawItem {
  /** 1-based position in the manifest. */
  n: number;
  /** 1-based line the item starts on (YAML, CSV, JSON Lines). */
  line?: number;
  fields: Record<string, unknown>;
  /** Option keys (`KEY` or `DEST:KEY`) that came from the `defaults:` block. */
  fromDefaults: ReadonlySet<string>;
}

/** The items without a `defaults:` block share it: no set per item. */
export const NO_DEFAULTS: ReadonlySet<string> = new Set();

/**
 * One item. Per-item objects are written out as literals, never spread
 * (`{ ...where, fields }`): V8 gives each object made by a spread a hidden
 * class of its own, which a 100,000-row manifest pays in memory per item
 * (docs/performance.md).
 */
export function rawItem(where: { n: number; line?: number }, fields: Record<string, unknown>, fromDefaults: ReadonlySet<string> = NO_DEFAULTS): RawItem {
  return { n: where.n, line: where.line, fields, fromDefaults };
}

/** A problem found in the manifest, before any request. */
export interface Problem {
  n?: number;
  line?: number;
  message: string;
}

export interface Manifest {
  format: ManifestFormat;
  items: RawItem[];
  batchKey?: string;
  problems: Problem[];
}

export const ITEM_FIELDS = ['file', 'url', 'media', 'to', 'caption', 'caption_file', 'captions', 'options', 'at', 'tz', 'draft', 'key', 'force_new', 'allow_duplicate'];

/** How `draft` is written as text (a CSV cell, a quoted YAML value). */
export const TRUE_TEXT = /^(true|yes|y|1)$/i;
export const FALSE_TEXT = /^(false|no|n|0|)$/i;

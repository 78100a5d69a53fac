/**
 * Reading a batch manifest: YAML (`.yaml`/`.yml`), CSV with a header row
 * (`.csv`), a JSON array (`.json`) or JSON Lines (`.jsonl`). Every item
 * keeps its number and, where the format has lines (YAML, CSV, JSON Lines),
 * the line it starts on, so every problem can point at it. YAML and JSON may
 * wrap the items as `{ batch_key, defaults, items }`; items inherit
 * `defaults`. Nothing here sends a request.
 *
 * Parsers: `yaml` (eemeli/yaml: YAML 1.2, no code execution, source ranges for
 * line numbers) and `csv-parse` (quoted fields, embedded line breaks, the line
 * of each record). Both are loaded only by `vidpub batch`.
 */
import { UsageError, sanitize } from '../errors.js';
import { parseCsv } from './manifest-csv.js';
import { FORMATS, ITEM_FIELDS, NO_DEFAULTS, rawItem, type Manifest, type ManifestFormat, type Problem, type RawItem } from './manifest-types.js';

export { FALSE_TEXT, FORMATS, ITEM_FIELDS, NO_DEFAULTS, TRUE_TEXT, type Manifest, type ManifestFormat, type Problem, type RawItem } from './manifest-types.js';

const TOP_FIELDS = ['items', 'defaults', 'batch_key'];

export function formatOfPath(path: string): ManifestFormat | undefined {
  const m = /\.([A-Za-z]+)$/.exec(path);
  const ext = m?.[1]?.toLowerCase();
  if (ext === 'yaml' || ext === 'yml') return 'yaml';
  if (ext === 'csv') return 'csv';
  if (ext === 'json') return 'json';
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Option entries as `KEY` / `DEST:KEY` -> value, from `{KEY: v, DEST: {KEY: v}}` or `{"DEST:KEY": v}`. */
export function flattenOptions(value: unknown, problems: string[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value === undefined || value === null) return out;
  if (!isObject(value)) {
    problems.push('options must be a map of KEY: VALUE (or DEST: {KEY: VALUE})');
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    if (isObject(v)) {
      for (const [k2, v2] of Object.entries(v)) {
        if (isObject(v2) || Array.isArray(v2)) problems.push(`option ${k}:${k2} must be a single value`);
        else out.set(`${k}:${k2}`, v2);
      }
    } else if (Array.isArray(v)) {
      problems.push(`option ${k} must be a single value`);
    } else {
      out.set(k, v);
    }
  }
  return out;
}

/** Merges the defaults into one item: item fields win; options merge key by key. */
function withDefaults(item: Record<string, unknown>, defaults: Record<string, unknown> | undefined): { fields: Record<string, unknown>; fromDefaults: ReadonlySet<string> } {
  if (!defaults) return { fields: item, fromDefaults: NO_DEFAULTS };
  const fromDefaults = new Set<string>();
  const fields: Record<string, unknown> = Object.assign({}, defaults, item);
  // One video per item: a default video never joins an item's own.
  if (['file', 'url', 'media'].some((k) => item[k] !== undefined)) for (const k of ['file', 'url', 'media']) if (item[k] === undefined) delete fields[k];
  if (item.caption !== undefined || item.caption_file !== undefined) {
    if (item.caption === undefined) delete fields.caption;
    if (item.caption_file === undefined) delete fields.caption_file;
  }
  if (isObject(defaults.options) || isObject(item.options)) {
    const ignored: string[] = [];
    const d = flattenOptions(defaults.options, ignored);
    const own = flattenOptions(item.options, ignored);
    const merged: Record<string, unknown> = {};
    for (const [k, v] of d) {
      if (!own.has(k)) {
        merged[k] = v;
        fromDefaults.add(k);
      }
    }
    for (const [k, v] of own) merged[k] = v;
    fields.options = merged;
  }
  return { fields, fromDefaults };
}

function checkFields(fields: Record<string, unknown>, where: Omit<Problem, 'message'>, problems: Problem[], what = 'field'): void {
  for (const k of Object.keys(fields)) {
    if (!ITEM_FIELDS.includes(k)) problems.push({ ...where, message: `unknown ${what} "${sanitize(k)}" (fields: ${ITEM_FIELDS.join(', ')})` });
  }
}

function fromDocument(doc: unknown, format: ManifestFormat, lineOf: (i: number) => number | undefined): Manifest {
  const problems: Problem[] = [];
  let list: unknown;
  let defaults: Record<string, unknown> | undefined;
  let batchKey: string | undefined;
  if (Array.isArray(doc)) {
    list = doc;
  } else if (isObject(doc)) {
    for (const k of Object.keys(doc)) if (!TOP_FIELDS.includes(k)) problems.push({ message: `unknown top-level field "${sanitize(k)}" (expected ${TOP_FIELDS.join(', ')})` });
    list = doc.items;
    if (doc.defaults !== undefined) {
      if (!isObject(doc.defaults)) problems.push({ message: 'defaults must be a map of item fields' });
      else {
        defaults = doc.defaults;
        checkFields(defaults, {}, problems, 'field in defaults:');
        if (['file', 'url', 'media', 'key'].some((k) => defaults![k] !== undefined)) problems.push({ message: 'defaults may not hold file, url, media or key: each item has its own' });
      }
    }
    if (doc.batch_key !== undefined) {
      if (typeof doc.batch_key !== 'string' && typeof doc.batch_key !== 'number') problems.push({ message: 'batch_key must be a string' });
      else batchKey = String(doc.batch_key);
    }
    if (list === undefined) problems.push({ message: 'the manifest has no items: give a list, or an "items:" list' });
  } else {
    problems.push({ message: 'the manifest must be a list of items (or a map with "items:")' });
  }
  const items: RawItem[] = [];
  if (Array.isArray(list)) {
    list.forEach((raw, i) => {
      const where = { n: i + 1, line: lineOf(i) };
      if (!isObject(raw)) {
        problems.push({ ...where, message: 'an item must be a map of fields (file, to, caption…)' });
        return;
      }
      checkFields(raw, where, problems);
      const merged = withDefaults(raw, defaults);
      items.push(rawItem(where, merged.fields, merged.fromDefaults));
    });
  } else if (list !== undefined) {
    problems.push({ message: '"items" must be a list' });
  }
  return { format, items, batchKey, problems };
}

async function parseYaml(text: string): Promise<Manifest> {
  const { parseDocument, LineCounter, isSeq, isMap } = await import('yaml');
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      format: 'yaml',
      items: [],
      problems: doc.errors.map((e) => ({ line: lc.linePos(e.pos[0]).line, message: `not valid YAML: ${sanitize(e.message.split('\n')[0] ?? '')}` })),
    };
  }
  const root = doc.contents;
  const seq = isSeq(root) ? root : isMap(root) ? root.get('items', true) : undefined;
  const lineOf = (i: number): number | undefined => {
    const node = isSeq(seq) ? (seq.items[i] as { range?: [number, number, number] } | undefined) : undefined;
    return node?.range ? lc.linePos(node.range[0]).line : undefined;
  };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // yaml's guard against a document whose aliases (*name) expand without end: a "billion laughs" bomb.
    if (!(err instanceof ReferenceError && /alias/i.test(err.message))) throw err;
    return { format: 'yaml', items: [], problems: [{ message: 'refused: its aliases (*name) expand into a document far too large (more than 100 uses of an alias); write the items out' }] };
  }
  return fromDocument(data, 'yaml', lineOf);
}

function parseJson(text: string): Manifest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // JSON.parse names a character position: the line (and column) is what an editor shows.
    const message = (err as Error).message;
    const at = /^(.*) in JSON at position (\d+)/.exec(message);
    if (!at) return { format: 'json', items: [], problems: [{ message: `not valid JSON: ${sanitize(message)}` }] };
    const before = text.slice(0, Number(at[2])).split('\n');
    return { format: 'json', items: [], problems: [{ line: before.length, message: `not valid JSON: ${sanitize(at[1]!)} (column ${before[before.length - 1]!.length + 1})` }] };
  }
  return fromDocument(doc, 'json', () => undefined);
}

function parseJsonLines(text: string): Manifest {
  const problems: Problem[] = [];
  const items: RawItem[] = [];
  let n = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const where = { n: ++n, line: i + 1 };
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push({ ...where, message: `not valid JSON: ${sanitize((err as Error).message)}` });
      return;
    }
    if (!isObject(value)) {
      problems.push({ ...where, message: 'each line must be one JSON object (an item)' });
      return;
    }
    checkFields(value, where, problems);
    items.push(rawItem(where, value));
  });
  return { format: 'jsonl', items, problems };
}


/** Parses a manifest's text. Syntax problems come back in `problems` (with lines where known). */
export async function parseManifest(text: string, format: ManifestFormat): Promise<Manifest> {
  switch (format) {
    case 'yaml':
      return parseYaml(text);
    case 'csv':
      // CRLF line ends (as Windows saves): read as LF, as the YAML parser does. csv-parse counts
      // a CRLF inside a quoted cell as two lines, and a caption would differ from the same file
      // saved with LF (another caption, other Idempotency-Keys: posted again).
      return parseCsv(text.replace(/\r\n/g, '\n'));
    case 'json':
      return parseJson(text);
    case 'jsonl':
      return parseJsonLines(text);
  }
}

export function parseFormat(text: unknown): ManifestFormat {
  const f = String(text).toLowerCase();
  if (f === 'yml') return 'yaml';
  if (f === 'ndjson') return 'jsonl';
  if ((FORMATS as string[]).includes(f)) return f as ManifestFormat;
  throw new UsageError(`unknown --format "${sanitize(String(text))}": give yaml, csv, json or jsonl`);
}

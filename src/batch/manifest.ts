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
 * class of its own, some 200 bytes an item, 60 MB of a 100,000-row manifest.
 */
function rawItem(where: { n: number; line?: number }, fields: Record<string, unknown>, fromDefaults: ReadonlySet<string> = NO_DEFAULTS): RawItem {
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

export const ITEM_FIELDS = ['file', 'url', 'media', 'to', 'caption', 'caption_file', 'options', 'at', 'tz', 'draft', 'key', 'force_new'];
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

export const TRUE_TEXT = /^(true|yes|y|1)$/i;
export const FALSE_TEXT = /^(false|no|n|0|)$/i;

/** What to do about a CSV syntax error (csv-parse's code and message). */
function csvSyntaxMessage(err: Error & { code?: string }): string {
  const quoteHow = 'put the whole cell in quotes and double each quote in it: "say ""hi"""';
  switch (err.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const m = /expect (\d+), got (\d+)/.exec(err.message);
      if (m) return `${m[2]} cells where the header has ${m[1]} (a cell with a comma in it needs quotes: "Hello, world")`;
      break;
    }
    case 'INVALID_OPENING_QUOTE':
      return `a quote in the middle of a cell; ${quoteHow}`;
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `text after a quoted cell's closing quote; ${quoteHow}; the rows after it are read once it is fixed`;
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quote opened in this row is never closed (close it, or double it "" where it is part of the text); the rows after it are read once it is fixed';
  }
  return sanitize(err.message);
}

/**
 * The line each CSV record starts on, for records told in order: the first
 * line with text after the previous record's last (empty lines are no
 * records). One pass forward over the text, no copy of its lines.
 */
function recordStarts(text: string): (lastEnd: number) => number {
  let total = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) total++;
  let line = 1;
  let pos = 0; // where `line` starts
  const goTo = (l: number) => {
    for (; line < l; line++) pos = text.indexOf('\n', pos) + 1;
  };
  const empty = () => {
    const c = text.charCodeAt(pos);
    return pos >= text.length || c === 10 || (c === 13 && (pos + 1 >= text.length || text.charCodeAt(pos + 1) === 10));
  };
  return (lastEnd) => {
    let l = lastEnd + 1;
    goTo(l);
    while (l < total && empty()) goTo(++l);
    return l;
  };
}

/** The header row's names, and what is wrong with them. */
function csvHeader(record: string[], problems: Problem[]): string[] {
  const header = record.map((h) => h.trim());
  for (const [c, h] of header.entries()) {
    if (h !== '' && header.indexOf(h) !== c) {
      // Only one cell of each field would be read: the other would be dropped without a word.
      if (header.indexOf(h, c + 1) === -1) problems.push({ line: 1, message: `column "${sanitize(h)}" is named twice: give each field one column (several destinations go in one cell, separated by ";")` });
      continue;
    }
    if (h === '' ) problems.push({ line: 1, message: 'an empty column name in the header row' });
    else if (h === 'options') problems.push({ line: 1, message: 'a CSV manifest has no "options" column: give each option its own column, option:KEY or option:DEST:KEY' });
    else if (!h.startsWith('option:') && !ITEM_FIELDS.includes(h)) problems.push({ line: 1, message: `unknown column "${sanitize(h)}" (columns: ${ITEM_FIELDS.filter((f) => f !== 'options').join(', ')}, option:KEY, option:DEST:KEY)` });
  }
  return header;
}

/** One CSV row as an item's fields (empty cells left out). */
function csvFields(header: string[], record: string[], where: { n: number; line: number }, problems: Problem[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let options: Record<string, unknown> | undefined;
  header.forEach((h, c) => {
    const cell = record[c] ?? '';
    if (cell.trim() === '' || h === 'options') return;
    if (h.startsWith('option:')) (options ??= {})[h.slice('option:'.length)] = cell;
    else if (h === 'draft') {
      if (TRUE_TEXT.test(cell.trim())) fields.draft = true;
      else if (!FALSE_TEXT.test(cell.trim())) problems.push({ n: where.n, line: where.line, message: `draft must be true or false, not "${sanitize(cell)}"` });
    } else fields[h] = cell;
  });
  if (options) fields.options = options;
  return fields;
}

async function parseCsv(text: string): Promise<Manifest> {
  const { parse } = await import('csv-parse/sync');
  // Every record in order, the good and the bad: each bad one is told (not just the first),
  // and keeps its item number. Each row becomes its item as it is read: no list of rows is kept.
  const startAfter = recordStarts(text);
  let lastEnd = 0;
  let header: string[] | undefined;
  let headerError: Problem | undefined;
  const items: RawItem[] = [];
  const problems: Problem[] = [];
  let n = 0;
  const row = (line: number, record: string[] | undefined, error?: string) => {
    if (header === undefined && headerError === undefined) {
      if (record) header = csvHeader(record, problems);
      else headerError = { line, message: `not valid CSV (the header row): ${error}` };
    } else if (header !== undefined) {
      const where = { n: ++n, line };
      if (record) items.push(rawItem(where, csvFields(header, record, where, problems)));
      else problems.push({ n: where.n, line, message: `not valid CSV: ${error}` });
    }
  };
  let unreadable = false;
  let errorLine: number | undefined;
  try {
    parse(text, {
      relax_column_count: false,
      skip_empty_lines: true,
      bom: true,
      trim: false,
      skip_records_with_error: true,
      on_record: (record: string[], context: { lines: number }) => {
        row(startAfter(lastEnd), record);
        lastEnd = context.lines;
        return null; // kept as its item: csv-parse keeps no list of its own
      },
      on_skip: (err) => {
        // A row's first trouble is told: a second one on the same line is the same row's, and
        // past a bad closing quote the parser reads on as one quoted cell to the end of the file.
        const at = typeof err?.lines === 'number' ? err.lines : lastEnd;
        if (!err || unreadable || at === errorLine) return;
        if (err.code === 'CSV_INVALID_CLOSING_QUOTE') unreadable = true;
        row(startAfter(lastEnd), undefined, csvSyntaxMessage(err));
        lastEnd = errorLine = at;
      },
    });
  } catch (err) {
    const e = err as Error & { lines?: number };
    return { format: 'csv', items: [], problems: [{ line: e.lines, message: `not valid CSV: ${sanitize(e.message)}` }] };
  }
  if (headerError) return { format: 'csv', items: [], problems: [headerError] };
  if (header === undefined) return { format: 'csv', items: [], problems: [{ message: 'the CSV manifest is empty: it needs a header row and one row per item' }] };
  return { format: 'csv', items, problems };
}

/** Parses a manifest's text. Syntax problems come back in `problems` (with lines where known). */
export async function parseManifest(text: string, format: ManifestFormat): Promise<Manifest> {
  // A UTF-8 byte order mark (as some Windows editors save): the YAML and CSV parsers drop it, JSON.parse does not.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
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

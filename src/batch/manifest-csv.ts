/**
 * A CSV manifest: a header row naming the fields (`option:KEY` and `option:DEST:KEY` for options),
 * a row per item. Read with `csv-parse` (quoted fields, embedded line breaks, the line of each
 * record), loaded only by `vidpub batch`; every bad row is told, with its line.
 */
import { sanitize } from '../errors.js';
import { FALSE_TEXT, ITEM_FIELDS, rawItem, TRUE_TEXT, type Manifest, type Problem, type RawItem } from './manifest-types.js';

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

/**
 * A cell written `""` (quoted, empty): an empty value given on purpose, told apart from a cell
 * left empty. For the caption, `""` is an empty caption (as `caption: ""` in YAML) and an empty
 * cell is no caption at all, which is refused (plan-local.ts).
 */
const QUOTED_EMPTY = '\u0000"" (quoted empty)';

/**
 * The header row's names, and what is wrong with them. Empty names at the end (the trailing
 * comma spreadsheets export) are no columns and are dropped; an empty name before a named column
 * is told once, with the columns it is.
 */
function csvHeader(record: string[], problems: Problem[]): string[] {
  const header = record.map((h) => (h === QUOTED_EMPTY ? '' : h.trim()));
  while (header.length > 0 && header[header.length - 1] === '') header.pop();
  const unnamed = header.flatMap((h, c) => (h === '' ? [c + 1] : []));
  if (unnamed.length > 0) {
    problems.push({ line: 1, message: `${unnamed.length === 1 ? 'column' : 'columns'} ${unnamed.join(', ')} of the header row ${unnamed.length === 1 ? 'has' : 'have'} no name: name ${unnamed.length === 1 ? 'it' : 'them'}, or remove the ${unnamed.length === 1 ? 'column' : 'columns'}` });
  }
  for (const [c, h] of header.entries()) {
    if (h === '') continue;
    if (header.indexOf(h) !== c) {
      // Only one cell of each field would be read: the other would be dropped without a word.
      if (header.indexOf(h, c + 1) === -1) problems.push({ line: 1, message: `column "${sanitize(h)}" is named twice: give each field one column (several destinations go in one cell, separated by ";")` });
      continue;
    }
    if (h === 'options' || h === 'captions') problems.push({ line: 1, message: h === 'options' ? 'a CSV manifest has no "options" column: give each option its own column, option:KEY or option:DEST:KEY' : 'a CSV manifest has no "captions" column: give each destination\'s caption its own column, caption:DEST' });
    else if (!h.startsWith('option:') && !h.startsWith('caption:') && !ITEM_FIELDS.includes(h)) problems.push({ line: 1, message: `unknown column "${sanitize(h)}" (columns: ${ITEM_FIELDS.filter((f) => f !== 'options').join(', ')}, option:KEY, option:DEST:KEY)` });
  }
  return header;
}

/** One CSV row as an item's fields (empty cells left out; a quoted empty caption, `""`, is an empty caption). */
function csvFields(header: string[], record: string[], where: { n: number; line: number }, problems: Problem[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let options: Record<string, unknown> | undefined;
  // Cells past the named columns (the trailing empty ones of a spreadsheet's export): text there is told, not lost.
  const extra = record.slice(header.length).filter((cell) => cell !== QUOTED_EMPTY && cell.trim() !== '');
  if (extra.length > 0) problems.push({ n: where.n, line: where.line, message: `text in a column with no name in the header row: "${sanitize(extra[0]!)}"` });
  header.forEach((h, c) => {
    const cell = record[c] ?? '';
    if (cell === QUOTED_EMPTY) {
      if (h === 'caption') fields.caption = '';
      return;
    }
    if (cell.trim() === '' || h === 'options' || h === 'captions') return;
    if (h.startsWith('option:')) (options ??= {})[h.slice('option:'.length)] = cell;
    // caption:DEST, as the captions map of YAML and JSON (an empty cell: that destination takes the item's caption).
    else if (h.startsWith('caption:')) ((fields.captions ??= {}) as Record<string, string>)[h.slice('caption:'.length)] = cell;
    else if (h === 'draft') {
      if (TRUE_TEXT.test(cell.trim())) fields.draft = true;
      else if (!FALSE_TEXT.test(cell.trim())) problems.push({ n: where.n, line: where.line, message: `draft must be true or false, not "${sanitize(cell)}"` });
    } else fields[h] = cell;
  });
  if (options) fields.options = options;
  return fields;
}

export async function parseCsv(text: string): Promise<Manifest> {
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
      cast: (value: string, context: { quoting: boolean }) => (value === '' && context.quoting ? QUOTED_EMPTY : value),
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

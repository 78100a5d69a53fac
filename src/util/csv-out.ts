/**
 * Rows as CSV (RFC 4180) for a spreadsheet: a header row, then a row each,
 * CRLF between records, a field quoted when it holds a comma, a quote or a
 * line break. The columns are the rows' fields (those of --json), in the
 * order they first appear; a nested value is written as its JSON. A text
 * field a spreadsheet would run as a formula (starting with =, +, -, @, or a
 * tab or carriage return) is prefixed with an apostrophe. UTF-8, as stdout is.
 */

const FORMULA = /^[=+\-@\t\r]/;

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? (FORMULA.test(value) ? `'${value}` : value) : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The CSV of `rows`: the header and a record per row, each ending in CRLF. */
export function csvOf(rows: readonly object[]): string {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const k of Object.keys(row)) {
      if (seen.has(k)) continue;
      seen.add(k);
      columns.push(k);
    }
  }
  const lines = [columns.map(cell).join(',')];
  for (const row of rows) lines.push(columns.map((c) => cell((row as Record<string, unknown>)[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

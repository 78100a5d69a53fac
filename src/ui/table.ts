import { sanitize } from '../errors.js';

export interface Column<R> {
  header: string;
  value(row: R): string;
  /** Colour applied on a TTY only, after padding. */
  style?(text: string, row: R): string;
}

/**
 * A table for a person (stdout is a TTY: a bold header, aligned columns) or
 * stable tab-separated lines for a pipe (no header, no padding, no colour), the
 * way gh prints lists. Cell text is sanitized: it may come from the server.
 */
export function renderTable<R>(
  rows: R[],
  columns: Column<R>[],
  opts: { tty: boolean; bold?: (s: string) => string },
): string[] {
  // On a terminal a cell keeps the spaces it starts with: a command's indent (profiles: "* " marks one row, "  " the others).
  const cells = rows.map((row) =>
    columns.map((c) => {
      const text = c.value(row);
      return (opts.tty ? /^ */.exec(text)![0] : '') + sanitize(text);
    }),
  );
  if (!opts.tty) return cells.map((line) => line.join('\t'));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((line) => line[i]!.length)));
  const bold = opts.bold ?? ((s: string) => s);
  const pad = (text: string, i: number) => (i === columns.length - 1 ? text : text.padEnd(widths[i]!));
  const header = bold(columns.map((c, i) => pad(c.header.toUpperCase(), i)).join('  ').trimEnd());
  const body = cells.map((line, r) =>
    line
      .map((text, i) => {
        const padded = pad(text, i);
        const style = columns[i]!.style;
        return style ? style(padded, rows[r]!) : padded;
      })
      .join('  ')
      .trimEnd(),
  );
  return [header, ...body];
}

/** "key: value" lines for a record, aligned on a TTY, tab-separated for a pipe. */
export function renderFields(fields: [string, string][], opts: { tty: boolean; dim?: (s: string) => string }): string[] {
  if (!opts.tty) return fields.map(([k, v]) => `${k}\t${sanitize(v)}`);
  const width = Math.max(...fields.map(([k]) => k.length));
  const dim = opts.dim ?? ((s: string) => s);
  return fields.map(([k, v]) => `${dim((k + ':').padEnd(width + 1))} ${sanitize(v)}`);
}

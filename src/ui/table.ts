import { sanitize } from '../errors.js';
import { wrapLine } from './wrap.js';

export interface Column<R> {
  header: string;
  value(row: R): string;
  /** Colour applied on a TTY only, after padding. */
  style?(text: string, row: R): string;
  /**
   * Free text that may be cut (at a word, with "…") when the table is wider than the terminal;
   * `anywhere`: text with nothing that must stay whole (a caption), cut down to its header's width
   * if need be, inside a word too.
   */
  shrink?: boolean | 'anywhere';
}

/** `text` cut to `width` columns at a word boundary, with "…" (a single word too long is cut inside). */
export function truncateWords(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const room = text.slice(0, width - 1);
  const space = room.lastIndexOf(' ');
  // Ending at a word: the space before the cut word, or the cut falls right after a word.
  const cut = text[width - 1] === ' ' ? room : space > 0 ? room.slice(0, space) : room;
  return cut.replace(/[\s,;:]+$/, '') + '…';
}

/**
 * The narrowest a column may be cut to: a cell is cut only at a space, so its first word (with
 * "…" when more follows) stays whole: a handle, an id or a URL is never cut inside.
 */
function narrowest<R>(column: Column<R>, cells: string[]): number {
  const whole = Math.max(column.header.length, ...cells.map((t) => t.length));
  if (!column.shrink) return whole;
  if (column.shrink === 'anywhere') return Math.min(whole, column.header.length);
  const firstWords = cells.map((t) => {
    const word = /^ *\S*/.exec(t)![0];
    return word.length < t.length ? word.length + 1 : word.length;
  });
  return Math.min(whole, Math.max(column.header.length, ...firstWords));
}

/**
 * Column widths that fit `width`: the widest column that may shrink gives up a column at a
 * time, down to its narrowest (never inside a word). Undefined when even then the table does
 * not fit: the rows are then shown one field a line (stacked).
 */
function fitWidths<R>(widths: number[], columns: Column<R>[], cells: string[][], width: number | undefined): number[] | undefined {
  const out = [...widths];
  if (!width) return out;
  let over = out.reduce((a, b) => a + b, 0) + 2 * (out.length - 1) - width;
  const floors = columns.map((c, i) => narrowest(c, cells.map((line) => line[i]!)));
  while (over > 0) {
    let pick = -1;
    for (let i = 0; i < out.length; i++) if (out[i]! > floors[i]! && (pick < 0 || out[i]! > out[pick]!)) pick = i;
    if (pick < 0) return undefined;
    out[pick]!--;
    over--;
  }
  return out;
}

/** Each row as "Header: value" lines (values wrapped at spaces under themselves), a blank line between rows. */
function stacked<R>(rows: R[], columns: Column<R>[], cells: string[][], width: number, bold: (s: string) => string): string[] {
  const label = Math.max(...columns.map((c) => c.header.length)) + 2;
  const out: string[] = [];
  cells.forEach((line, r) => {
    if (r > 0) out.push('');
    columns.forEach((c, i) => {
      const text = line[i]!.trim();
      if (text === '') return;
      const wrapped = wrapLine(`${(c.header + ':').padEnd(label)}${text}`, width, label, label);
      const style = (t: string) => (c.style ? c.style(t, rows[r]!) : t);
      wrapped.split('\n').forEach((l, n) => out.push(n === 0 ? `${bold(l.slice(0, label))}${style(l.slice(label))}` : `${l.slice(0, label)}${style(l.slice(label))}`));
    });
  });
  return out;
}

/**
 * A table for a person (stdout is a TTY: a bold header, aligned columns) or
 * stable tab-separated lines for a pipe (no header, no padding, no colour), the
 * way gh prints lists. Cell text is sanitized: it may come from the server.
 * On a terminal `width` wide, the columns marked `shrink` are cut (widest
 * first, at a word, with "…") so that a row fits on one line, as gh does; a
 * handle, an id or a URL is never cut inside. When the table cannot fit so,
 * each row is shown as "Header: value" lines, every column kept.
 */
export function renderTable<R>(
  rows: R[],
  columns: Column<R>[],
  opts: { tty: boolean; bold?: (s: string) => string; width?: number },
): string[] {
  // On a terminal a cell keeps the spaces it starts with: a command's indent (profiles: "* " marks one row, "  " the others).
  const cells = rows.map((row) =>
    columns.map((c) => {
      const text = c.value(row);
      return (opts.tty ? /^ */.exec(text)![0] : '') + sanitize(text);
    }),
  );
  if (!opts.tty) return cells.map((line) => line.join('\t'));
  const natural = columns.map((c, i) => Math.max(c.header.length, ...cells.map((line) => line[i]!.length)));
  const bold = opts.bold ?? ((s: string) => s);
  const widths = fitWidths(natural, columns, cells, opts.width);
  if (!widths) return stacked(rows, columns, cells, opts.width!, bold);
  const last = widths.length - 1;
  const pad = (text: string, i: number) => {
    const fitted = truncateWords(text, widths[i]!);
    return i === last ? fitted : fitted.padEnd(widths[i]!);
  };
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

/**
 * "key: value" lines for a record, aligned on a TTY, tab-separated for a pipe. On a terminal
 * `width` wide, a long value wraps at spaces under itself (a URL or a time is never broken).
 */
export function renderFields(fields: [string, string][], opts: { tty: boolean; dim?: (s: string) => string; width?: number }): string[] {
  if (!opts.tty) return fields.map(([k, v]) => `${k}\t${sanitize(v)}`);
  const width = Math.max(...fields.map(([k]) => k.length));
  const dim = opts.dim ?? ((s: string) => s);
  return fields.flatMap(([k, v]) => wrapLine(`${dim((k + ':').padEnd(width + 1))} ${sanitize(v)}`, opts.width, width + 2, width + 2).split('\n'));
}

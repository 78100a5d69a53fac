import { sanitize } from '../errors.js';

export interface Column<R> {
  header: string;
  value(row: R): string;
  /** Colour applied on a TTY only, after padding. */
  style?(text: string, row: R): string;
  /** Free text that may be cut (at a word, with "…") when the table is wider than the terminal. */
  shrink?: boolean;
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
 * Column widths that fit `width` when they can: the widest column that may
 * shrink gives up a column at a time, down to its header's width (or 8).
 */
function fitWidths<R>(widths: number[], columns: Column<R>[], width: number | undefined): number[] {
  const out = [...widths];
  if (!width) return out;
  let over = out.reduce((a, b) => a + b, 0) + 2 * (out.length - 1) - width;
  const floor = (i: number) => Math.max(columns[i]!.header.length, Math.min(8, widths[i]!));
  while (over > 0) {
    let pick = -1;
    for (let i = 0; i < out.length; i++) if (columns[i]!.shrink && out[i]! > floor(i) && (pick < 0 || out[i]! > out[pick]!)) pick = i;
    if (pick < 0) break;
    out[pick]!--;
    over--;
  }
  // Still too wide: the rightmost of those columns are left out (width 0), and the last one left gets the room there is (3 at least).
  const shrinkable = out.map((_, i) => i).filter((i) => columns[i]!.shrink);
  while (over > 0 && shrinkable.length > 0) {
    const i = shrinkable.pop()!;
    if (shrinkable.length === 0) {
      out[i] = Math.max(3, out[i]! - over);
      break;
    }
    over -= out[i]! + 2;
    out[i] = 0;
  }
  return out;
}

/**
 * A table for a person (stdout is a TTY: a bold header, aligned columns) or
 * stable tab-separated lines for a pipe (no header, no padding, no colour), the
 * way gh prints lists. Cell text is sanitized: it may come from the server.
 * On a terminal `width` wide, the columns marked `shrink` are cut (widest
 * first, at a word, with "…") so that a row fits on one line, as gh does.
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
  const widths = fitWidths(natural, columns, opts.width);
  const bold = opts.bold ?? ((s: string) => s);
  const last = widths.reduce((l, w, i) => (w > 0 ? i : l), 0);
  const pad = (text: string, i: number) => {
    const fitted = truncateWords(text, widths[i]!);
    return i === last ? fitted : fitted.padEnd(widths[i]!);
  };
  const shown = (_: unknown, i: number) => widths[i]! > 0;
  const header = bold(columns.map((c, i) => pad(c.header.toUpperCase(), i)).filter(shown).join('  ').trimEnd());
  const body = cells.map((line, r) =>
    line
      .map((text, i) => {
        const padded = pad(text, i);
        const style = columns[i]!.style;
        return style ? style(padded, rows[r]!) : padded;
      })
      .filter(shown)
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

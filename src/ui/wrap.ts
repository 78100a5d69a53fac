/**
 * Text fitted to the terminal width, broken at word boundaries (never inside
 * a word unless the word alone is wider than the line): `the service`, never
 * `the servi` / `ce`.
 */

/** Visible length (ANSI colour codes do not count). */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/**
 * Breaks `text` into lines of at most `width` columns at spaces. The first
 * line starts after `first` columns already used (a label); the following
 * lines start with `indent` spaces. Below 20 columns of room, nothing is
 * broken (the terminal is too narrow for it to help).
 */
export function wrapWords(text: string, width: number, opts: { indent?: number; first?: number } = {}): string[] {
  const indent = opts.indent ?? 0;
  const room = width - indent;
  if (!Number.isFinite(width) || room < 20) return [text];
  const words = text.split(/ +/);
  const lines: string[] = [];
  let line = '';
  let used = opts.first ?? 0;
  const limit = () => (lines.length === 0 ? width - (opts.first ?? 0) : room);
  for (const word of words) {
    const w = visibleLength(word);
    if (line === '') {
      line = word;
      used = w;
      continue;
    }
    if (used + 1 + w <= limit()) {
      line += ' ' + word;
      used += 1 + w;
    } else {
      lines.push(line);
      line = word;
      used = w;
    }
  }
  lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : ' '.repeat(indent) + l));
}

/** The index in `text` where `n` visible columns end (colour codes skipped). */
function indexAfterColumns(text: string, n: number): number {
  let seen = 0;
  let i = 0;
  while (i < text.length && seen < n) {
    // eslint-disable-next-line no-control-regex
    const esc = /^\u001b\[[0-9;]*m/.exec(text.slice(i));
    if (esc) {
      i += esc[0].length;
      continue;
    }
    i++;
    seen++;
  }
  // colour codes right after the columns belong to them (a label's closing code)
  // eslint-disable-next-line no-control-regex
  const tail = /^(?:\u001b\[[0-9;]*m)+/.exec(text.slice(i));
  return i + (tail ? tail[0].length : 0);
}

/**
 * A line for a terminal `width` wide, wrapped under itself: the first `keep`
 * columns (a padded label, leading spaces) stay as they are, the rest wraps
 * at spaces, continuation lines start at column `indent`.
 */
export function wrapLine(line: string, width: number | undefined, indent: number, keep?: number): string {
  if (!width || visibleLength(line) <= width) return line;
  const lead = keep ?? /^ */.exec(line)![0].length;
  const cut = indexAfterColumns(line, lead);
  const head = line.slice(0, cut);
  const rest = line.slice(cut);
  return wrapWords(rest, width, { indent, first: lead })
    .map((l, i) => (i === 0 ? head + l : l))
    .join('\n');
}

/**
 * A shell command broken at spaces outside quotes, before a flag (a flag keeps
 * its value on its line), with " \" line continuations, each piece within
 * `width` when it can be.
 */
export function wrapCommand(command: string, width: number, indent = 4): string {
  if (command.length <= width || width < 30) return command;
  const tokens = command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [command];
  const words: string[] = [];
  for (const t of tokens) {
    const last = words[words.length - 1];
    if (last !== undefined && !t.startsWith('-') && /^-[^ ]*$/.test(last)) words[words.length - 1] = `${last} ${t}`;
    else words.push(t);
  }
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const candidate = line === '' ? word : `${line} ${word}`;
    const limit = (lines.length === 0 ? width : width - indent) - 2;
    if (line !== '' && candidate.length > limit) {
      lines.push(line + ' \\');
      line = word;
    } else {
      line = candidate;
    }
  }
  lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : ' '.repeat(indent) + l)).join('\n');
}

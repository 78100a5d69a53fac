/**
 * A word for a POSIX shell: as it is when it needs no quotes, else single-quoted; a word with a
 * control character in it (a file name with a line break or an escape sequence) in ANSI-C quotes,
 * `$'t\e]0;x\a.mp4'` (bash, zsh, ksh, and POSIX.1-2024 sh), which show each control, so a hint
 * that names it neither acts on the terminal nor hides it, and still runs as written.
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  // eslint-disable-next-line no-control-regex -- the controls are what is looked for
  if (!/[\u0000-\u001f\u007f-\u009f]/.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  const named: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r', '\u001b': '\\e', '\u0007': '\\a' };
  // eslint-disable-next-line no-control-regex -- the controls are what is escaped
  const body = word.replace(/[\\'\u0000-\u001f\u007f-\u009f]/g, (ch) => {
    const code = ch.charCodeAt(0);
    return named[ch] ?? (code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
  return `$'${body}'`;
}

/** A command line as a person would type it (each argument quoted when it needs it). */
export function shellLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}

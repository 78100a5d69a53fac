/** A word for a POSIX shell: as it is when it needs no quotes, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line as a person would type it (each argument quoted when it needs it). */
export function shellLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}

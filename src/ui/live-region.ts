/**
 * A few lines on a terminal rewritten in place (the post watch, the batch
 * view): each paint goes back up to the region's first line, rewrites every
 * line, and clears what a taller earlier paint left below it. The lines must
 * fit the terminal's width: a wrapped line would break the count.
 */
export class LiveRegion {
  private drawn = 0;

  constructor(private readonly write: (text: string) => void) {}

  /** Shows `lines` in place of what the region showed. */
  paint(lines: readonly string[]): void {
    let out = this.drawn > 0 ? `\u001b[${this.drawn}A` : '';
    for (const line of lines) out += `\r\u001b[2K${line}\n`;
    // Fewer lines than last time: clear what is left below, and come back up.
    for (let i = lines.length; i < this.drawn; i++) out += '\r\u001b[2K\n';
    if (this.drawn > lines.length) out += `\u001b[${this.drawn - lines.length}A`;
    this.write(out);
    this.drawn = lines.length;
  }

  /** Removes the region; the cursor is left where it began. */
  clear(): void {
    if (this.drawn === 0) return;
    let out = `\u001b[${this.drawn}A`;
    for (let i = 0; i < this.drawn; i++) out += '\r\u001b[2K\n';
    out += `\u001b[${this.drawn}A`;
    this.write(out);
    this.drawn = 0;
  }

  /** Leaves what is shown as ordinary output: a later paint starts below it. */
  release(): void {
    this.drawn = 0;
  }
}

/**
 * Whether stderr can be redrawn in place (cursor up, erase line): a terminal,
 * and not TERM=dumb, which takes no cursor-control codes (there, plain lines).
 */
export function canRepaint(stderrIsTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  return stderrIsTTY && env.TERM !== 'dumb';
}

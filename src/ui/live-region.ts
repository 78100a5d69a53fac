/**
 * A few lines on a terminal rewritten in place (the post watch, the batch
 * view): each paint goes back up to the region's first line, rewrites every
 * line, and clears what a taller earlier paint left below it. A line wider
 * than the terminal would wrap onto a second row the count does not know of,
 * and be left behind on the screen at the next paint; so the terminal's line
 * wrapping (DECAWM) is off while the region is written, and a line too wide
 * (a name with wide characters, a narrow window) is cut by the terminal itself,
 * which alone knows how wide each character is. Callers still fit their lines,
 * with an "…", where they can.
 */

/** The terminal's automatic wrap at the right margin, off and on again (as cli-progress does for its bar). */
const WRAP_OFF = '\u001b[?7l';
const WRAP_ON = '\u001b[?7h';

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
    this.write(WRAP_OFF + out + WRAP_ON);
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

/** The lines rewritten in place by the post watch and the batch view. */
import { describe, expect, it } from 'vitest';
import { LiveRegion } from '../../src/ui/live-region.js';

const UP = (n: number) => `\u001b[${n}A`;
const LINE = (text: string) => `\r\u001b[2K${text}\n`;

/** A paint is written with the terminal's line wrap off (a line too wide is cut, never wrapped onto a row the count misses). */
const PAINT = (text: string) => `\u001b[?7l${text}\u001b[?7h`;

function region() {
  const out: string[] = [];
  return { r: new LiveRegion((t) => out.push(t)), out };
}

describe('LiveRegion', () => {
  it('paints, then goes back up over exactly what it drew', () => {
    const { r, out } = region();
    r.paint(['a', 'b']);
    r.paint(['c', 'd']);
    expect(out).toEqual([PAINT(LINE('a') + LINE('b')), PAINT(UP(2) + LINE('c') + LINE('d'))]);
  });

  it('a shorter paint clears the lines left below, and the next paint starts at the region again', () => {
    const { r, out } = region();
    r.paint(['a', 'b', 'c']);
    r.paint(['d']);
    r.paint(['e']);
    expect(out[1]).toBe(PAINT(UP(3) + LINE('d') + LINE('') + LINE('') + UP(2)));
    // One line up, not three: going up by the taller count would overwrite output above the region.
    expect(out[2]).toBe(PAINT(UP(1) + LINE('e')));
  });

  it('clear() removes it; release() leaves it as output, so the next paint goes below', () => {
    const { r, out } = region();
    r.paint(['a', 'b']);
    r.clear();
    expect(out[1]).toBe(UP(2) + LINE('') + LINE('') + UP(2));
    r.clear();
    expect(out).toHaveLength(2);
    r.paint(['x']);
    r.release();
    r.paint(['y']);
    expect(out[3]).toBe(PAINT(LINE('y')));
  });
});

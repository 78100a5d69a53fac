/**
 * TERM=dumb: a terminal that takes no cursor-control codes. The upload
 * progress, the live view of a post and the notices come as plain lines; the
 * menus are numbered (readNumbers reads the answer). The menus themselves are
 * driven in a pseudo-terminal in test/pty/frictions-pty.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readNumbers } from '../../src/ui/prompter.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 50 });
const ESC = '\u001b';

describe('TERM=dumb', () => {
  const post = (env: Record<string, string>) =>
    runCli(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'hi', '--yes'], { tty: true, env: { ...emu.env(), NO_COLOR: '1', ...env } });

  it('post at a terminal: the bar and the live view repaint with cursor codes; with TERM=dumb none, plain lines instead (exit 0 both)', async () => {
    const xterm = await post({ TERM: 'xterm' });
    expect(xterm.code).toBe(0);
    expect(xterm.stderr).toContain(`${ESC}[`);
    const dumb = await post({ TERM: 'dumb' });
    expect(dumb.code, dumb.stderr).toBe(0);
    expect(dumb.stderr).not.toContain(ESC);
    expect(dumb.stderr).toMatch(/^Uploading clip\.mp4 \(\d+\.\d+ MB\)$/m);
    expect(dumb.stderr).toMatch(/@vidpub-demo \(linkedin\): published/);
  });
});

describe('readNumbers (the numbered menu)', () => {
  it('one number for a select, several (commas or spaces) for a checkbox; anything else is refused', () => {
    expect(readNumbers('2', 3, false)).toEqual([2]);
    expect(readNumbers(' 3 ', 3, false)).toEqual([3]);
    expect(readNumbers('1, 3', 3, true)).toEqual([1, 3]);
    expect(readNumbers('3 1 3', 3, true)).toEqual([3, 1]);
    expect(readNumbers('', 3, true)).toEqual([]);
    expect(readNumbers('1,2', 3, false)).toBeUndefined();
    expect(readNumbers('4', 3, false)).toBeUndefined();
    expect(readNumbers('0', 3, true)).toBeUndefined();
    expect(readNumbers('two', 3, false)).toBeUndefined();
  });
});

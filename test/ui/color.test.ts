import { describe, expect, it } from 'vitest';
import { Chalk } from 'chalk';
import { colorLevel, makeColors, type ColorLevel } from '../../src/ui/color.js';

const tty = (env: Record<string, string | undefined>, flag = true) => colorLevel({ isTTY: true, flag, env });

describe('colorLevel (no-color.org, FORCE_COLOR, TERM, COLORTERM)', () => {
  it('NO_COLOR with any non-empty value turns colour off, even with FORCE_COLOR', () => {
    expect(tty({ NO_COLOR: '1' })).toBe(0);
    expect(tty({ NO_COLOR: 'false' })).toBe(0);
    expect(tty({ NO_COLOR: '1', FORCE_COLOR: '3' })).toBe(0);
  });

  it('an empty NO_COLOR is as if unset (no-color.org): a terminal keeps its colour', () => {
    expect(tty({ NO_COLOR: '' })).toBe(1);
    expect(tty({ NO_COLOR: '', COLORTERM: 'truecolor' })).toBe(3);
  });

  it('--no-color wins over everything; FORCE_COLOR colours a pipe; TERM=dumb and TERM=*256* are honoured', () => {
    expect(tty({ FORCE_COLOR: '3' }, false)).toBe(0);
    expect(colorLevel({ isTTY: false, flag: true, env: { FORCE_COLOR: '2' } })).toBe(2);
    expect(colorLevel({ isTTY: false, flag: true, env: { FORCE_COLOR: '0' } })).toBe(0);
    expect(colorLevel({ isTTY: false, flag: true, env: {} })).toBe(0);
    expect(tty({ TERM: 'dumb' })).toBe(0);
    expect(tty({ TERM: 'xterm-256color' })).toBe(2);
    expect(tty({ COLORTERM: '24bit' })).toBe(3);
  });
});

describe('makeColors writes what chalk writes', () => {
  const texts = ['', 'plain', 'two\nlines\r\nand crlf\n', 'nested \u001b[1mbold\u001b[22m and \u001b[31mred\u001b[39m inside', '\u001b[2m\n'];
  const names = ['bold', 'dim', 'red', 'green', 'yellow', 'cyan'] as const;
  for (const level of [0, 1, 2, 3] as ColorLevel[]) {
    it(`at level ${level}, every style and text alike, enabled ${level > 0}`, () => {
      const ours = makeColors(level);
      const chalk = new Chalk({ level });
      expect(ours.enabled).toBe(level > 0);
      for (const name of names) for (const text of texts) expect(JSON.stringify(ours[name](text)), `${name} ${JSON.stringify(text)}`).toBe(JSON.stringify(chalk[name](text)));
      // styles composed the way vidpub composes them
      expect(ours.bold(ours.red('a\nb'))).toBe(chalk.bold(chalk.red('a\nb')));
    });
  }
});

/**
 * Colour decisions made from the injected env and TTY flags, never from
 * process globals. NO_COLOR (any non-empty value; an empty one is as if unset,
 * as no-color.org says) and --no-color switch colour off; FORCE_COLOR=1..3
 * forces it on (FORCE_COLOR=0 forces it off); otherwise a stream is coloured
 * only when it is a TTY and TERM is not "dumb" (COLORTERM and TERM pick the
 * level).
 */
export type ColorLevel = 0 | 1 | 2 | 3;

export function colorLevel(opts: {
  isTTY: boolean;
  flag: boolean;
  env: Readonly<Record<string, string | undefined>>;
}): ColorLevel {
  const { env } = opts;
  if (!opts.flag) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '' || force === 'true' || force === '1') return 1;
    if (force === '0' || force === 'false') return 0;
    if (force === '2') return 2;
    if (force === '3') return 3;
    return 1;
  }
  if (!opts.isTTY || env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (env.TERM?.includes('256')) return 2;
  return 1;
}

/** The few styles vidpub uses; plain identity functions at level 0. */
export interface Colors {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

/** The SGR codes [open, close] of the styles vidpub uses: chalk's, the same at every level for these. */
const SGR = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] } as const;

/**
 * One style, written as chalk writes it: a close code already inside the text reopens the style
 * (nesting), and a line break closes it before and reopens it after (`\r\n` kept together), so
 * a terminal never bleeds the colour into the next line. Not chalk itself: its module built ~100
 * styles and looked at the terminal on every command's start-up, colour or not (docs/performance.md).
 */
function style([openCode, closeCode]: readonly [number, number]): (s: string) => string {
  const open = `\u001b[${openCode}m`;
  const close = `\u001b[${closeCode}m`;
  return (s) => {
    if (!s) return s;
    const reopened = s.includes('\u001b') ? s.split(close).join(close + open) : s;
    return open + reopened.replace(/\r?\n/g, (nl) => close + nl + open) + close;
  };
}

const plain = (s: string) => s;

/** The styles at the level decided for one stream: plain text at level 0. */
export function makeColors(level: ColorLevel): Colors {
  const on = level > 0;
  const pick = (name: keyof typeof SGR) => (on ? style(SGR[name]) : plain);
  return { enabled: on, bold: pick('bold'), dim: pick('dim'), red: pick('red'), green: pick('green'), yellow: pick('yellow'), cyan: pick('cyan') };
}

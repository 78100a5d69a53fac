import { Chalk } from 'chalk';

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

/** A chalk instance at the level decided for one stream (chalk itself never looks at process). */
export function makeColors(level: ColorLevel): Colors {
  const c = new Chalk({ level });
  return {
    enabled: level > 0,
    bold: (s) => c.bold(s),
    dim: (s) => c.dim(s),
    red: (s) => c.red(s),
    green: (s) => c.green(s),
    yellow: (s) => c.yellow(s),
    cyan: (s) => c.cyan(s),
  };
}

/**
 * The `--version` / `--help` fast path: the entry of dist/fast.cjs
 * (scripts/build.mjs), which bin/vidpub.js runs before loading the CLI. It
 * imports the root help renderer and, through it, the registry and the
 * global flags: data and string functions, no dependency.
 */
import type { Context } from '../run/context.js';
import { renderRootHelp } from './root-help.js';

/** What the fast path needs of a Context (bin/vidpub.js passes just this). */
export type FastContext = Pick<Context, 'version'> & { io: Pick<Context['io'], 'stdout' | 'columns'> };

/**
 * Answers `vidpub --version`, `vidpub --help`, `vidpub help` and `vidpub`
 * alone without loading commander or any command: start-up time is a feature.
 * Built on its own into dist/fast.cjs (scripts/build.mjs) for bin/vidpub.js.
 * Returns the exit code, or undefined when argv needs the full parser.
 */
export function fastPath(argv: readonly string[], ctx: FastContext): number | undefined {
  if (argv.length > 1) return undefined;
  const arg = argv[0];
  if (arg === '--version' || arg === '-V') {
    ctx.io.stdout.write(ctx.version + '\n');
    return 0;
  }
  if (arg === undefined || arg === '--help' || arg === '-h' || arg === 'help') {
    ctx.io.stdout.write(renderRootHelp(ctx.io.columns));
    return 0;
  }
  return undefined;
}

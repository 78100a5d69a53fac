/**
 * The root help (`vidpub --help`), rendered from the registry, the global
 * flags and the table of exit codes without commander or chalk. main.ts prints it for commander
 * (program.helpInformation) and the fast path (./fast-path.ts) prints it
 * without the CLI, so both are the same text.
 */
import { EXIT_CODES } from '../../exit-codes.js';
import { COMMANDS, commandTerm, type CommandEntry } from '../commands/index.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG, anyFlags, flagTerm, type FlagSpec } from './flags.js';
import { wrapWords } from '../../ui/wrap.js';

export const ROOT_DESCRIPTION = 'Publish videos to connected social accounts through the Video Publishing Service.';

export const ROOT_EXAMPLES = [
  'vidpub demo',
  'vidpub login',
  'vidpub destinations',
  'vidpub post clip.mp4 --to @vidpub.demo --caption "Hello"',
  'vidpub post clip.mp4 --to youtube --caption "Nightly" --no-input --json',
  'vidpub emulator --port 0 --json',
];

export const GROUP_TITLES: Record<CommandEntry['group'], string> = {
  account: 'Account commands:',
  media: 'Media commands:',
  posts: 'Post commands:',
  tools: 'Tools:',
};

/** Under each command's help, in place of the global flags (which `vidpub --help` lists once). */
export const GLOBAL_FLAGS_LINE = '\nGlobal flags (--json, --quiet…): see vidpub --help\n';

export function examplesText(examples: readonly string[]): string {
  return examples.length ? `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n` : '';
}

/** The exit codes' lines are no wider than this, on a wider terminal too: a list is read down, not across. */
const EXIT_CODES_WIDTH = 80;

/**
 * The "Exit codes:" of the root help, from the table (src/exit-codes.ts): "0 ok · 1 …",
 * as many to a line as fit in `columns` (at most EXIT_CODES_WIDTH), in the table's order.
 */
export function exitCodesText(columns: number): string {
  const width = Math.min(columns, EXIT_CODES_WIDTH);
  const lines: string[] = [];
  let line = '';
  for (const { code, meaning } of EXIT_CODES) {
    const entry = `${code} ${meaning}`;
    if (line && 2 + line.length + 3 + entry.length > width) {
      lines.push(line);
      line = '';
    }
    line = line ? `${line} · ${entry}` : entry;
  }
  lines.push(line);
  return ['', 'Exit codes:', ...lines.map((l) => `  ${l}`), ''].join('\n');
}

/** The width help text is wrapped to, from the terminal's. */
export function helpWidth(columns: number | undefined): number {
  return Math.min(columns ?? 100, 120);
}

const MIN_WIDTH_TO_WRAP = 40;

/** Wraps each line of `text` at spaces to `width` columns (as commander's Help.boxWrap does, without colour). */
function wrap(text: string, width: number): string[] {
  if (width < MIN_WIDTH_TO_WRAP) return text.split('\n');
  return text.split('\n').flatMap((raw) => (raw.trim() === '' ? [''] : wrapWords(raw, width)));
}

function item(term: string, termWidth: number, description: string, width: number): string {
  const lines = wrap(description, width - termWidth - 4);
  return ['  ' + term.padEnd(termWidth) + '  ' + lines[0], ...lines.slice(1).map((l) => ' '.repeat(termWidth + 4) + l)].join('\n');
}

/** A flag's description as help shows it, its default after it (as commander writes it for a command's flags). */
export function optionDescription(o: FlagSpec): string {
  return o.default === undefined ? o.description : `${o.description} (default: ${o.default})`;
}

/** `vidpub --help`: every command with its summary, then the global flags, examples and exit codes. */
export function renderRootHelp(columns: number | undefined): string {
  const width = helpWidth(columns);
  const options = anyFlags([VERSION_FLAG, ...GLOBAL_FLAGS, HELP_FLAG]).filter((o) => !o.hidden);
  const termWidth = Math.max(...options.map((o) => flagTerm(o).length), ...COMMANDS.map((c) => commandTerm(c).length));
  // Commands first (what a person came for), then the flags every command takes, as gh lists them.
  const out = ['Usage: vidpub [options] [command]', '', ...wrap(ROOT_DESCRIPTION, width)];
  for (const group of Object.keys(GROUP_TITLES) as CommandEntry['group'][]) {
    const inGroup = COMMANDS.filter((c) => c.group === group);
    if (inGroup.length === 0) continue;
    out.push('', GROUP_TITLES[group]);
    for (const c of inGroup) out.push(item(commandTerm(c), termWidth, c.summary, width));
  }
  out.push('', 'Global flags (every command takes them):');
  for (const o of options) out.push(item(flagTerm(o), termWidth, optionDescription(o), width));
  return (
    out.join('\n') +
    '\n' +
    examplesText(ROOT_EXAMPLES) +
    exitCodesText(width) +
    '\nRun "vidpub COMMAND --help" for a command\'s flags,\n"vidpub help environment" for the environment variables it reads.\n'
  );
}

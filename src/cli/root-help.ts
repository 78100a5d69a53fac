/**
 * The global flags and the root help (`vidpub --help`), as plain data and a
 * renderer that need neither commander nor chalk. main.ts declares the same
 * flags to commander from GLOBAL_OPTIONS and prints the root help with
 * renderRootHelp(), so `vidpub --help` answered by the fast path (fastPath
 * below, run by bin/vidpub.js) is the same text as `vidpub --json --help`
 * answered through commander.
 */
import { COMMANDS, type CommandEntry } from './commands/index.js';
import type { Context } from './context.js';

/** What the fast path needs of a Context (bin/vidpub.js passes just this). */
export type FastContext = Pick<Context, 'version'> & { io: Pick<Context['io'], 'stdout' | 'columns'> };

export interface GlobalOptionSpec {
  /** Commander flags syntax: "-q, --quiet", "--profile <name>". */
  flags: string;
  description: string;
  /** Default value, shown as `(default: "...")`. */
  default?: string;
}

export const DEFAULT_MAX_WAIT = '10m';

export const VERSION_FLAGS = '-V, --version';
export const VERSION_DESCRIPTION = 'print the version';
export const HELP_FLAGS = '-h, --help';
export const HELP_DESCRIPTION = 'show help for a command';

/** Flags every command accepts. */
export const GLOBAL_OPTIONS: readonly GlobalOptionSpec[] = [
  { flags: '--json', description: 'print one JSON document on stdout' },
  { flags: '-q, --quiet', description: 'print only data and errors (no progress or hints)' },
  {
    flags: '--no-input',
    description: 'never prompt; fail with a usage error instead (also VIDPUB_NO_INPUT=1, automatic when stdin is not a terminal)',
  },
  { flags: '--no-color', description: 'no colour (NO_COLOR and FORCE_COLOR are honoured too)' },
  { flags: '--profile <name>', description: 'stored profile to use (VIDPUB_PROFILE; default "default")' },
  { flags: '--base-url <url>', description: 'service base URL, including /v1 (VIDPUB_BASE_URL)' },
  { flags: '--api-key-file <path>', description: 'read the API key from this file (else VIDPUB_API_KEY, else the profile)' },
  { flags: '--workspace <name>', description: 'refuse to write unless the key belongs to this workspace (VIDPUB_WORKSPACE)' },
  { flags: '--max-wait <dur>', description: 'longest total wait for rate limits (90s, 5m, 1h)', default: DEFAULT_MAX_WAIT },
  { flags: '--wait-for-quota', description: 'when the daily post allowance is used up, sleep until it resets instead of failing' },
  { flags: '--debug', description: 'log each request and response on stderr, secrets redacted (VIDPUB_DEBUG=1)' },
];

/** Long names of the global flags that take a value ("--profile", ...). */
export const GLOBAL_VALUE_FLAGS: ReadonlySet<string> = new Set(
  GLOBAL_OPTIONS.filter((o) => o.flags.includes('<')).map((o) => o.flags.split(/[ ,]+/).find((f) => f.startsWith('--'))!),
);

export const ROOT_DESCRIPTION = 'Publish videos to connected social accounts through the Video Publishing Service.';

export const ROOT_EXAMPLES = [
  'vidpub demo',
  'vidpub login',
  'vidpub destinations',
  'vidpub post clip.mp4 --to @vidpub.demo --caption "Hello"',
  'vidpub post clip.mp4 --to youtube --caption "Nightly" --no-input --json',
  'vidpub emulator --port 0 --json',
];

const GROUP_TITLES: Record<CommandEntry['group'], string> = {
  account: 'Account commands:',
  media: 'Media commands:',
  posts: 'Post commands:',
  tools: 'Tools:',
};

export function examplesText(examples: readonly string[]): string {
  return examples.length ? `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n` : '';
}

export function exitCodesText(): string {
  return [
    '',
    'Exit codes:',
    '  0 ok · 1 error · 2 usage or invalid input · 3 authentication or permission',
    '  4 rate limited · 5 not found · 6 finished but failed · 7 timed out waiting',
    '  8 blocked by issues · 9 outcome unknown (rerun with the printed key)',
    '  130 interrupted · 143 terminated (SIGTERM) · 129 hung up (SIGHUP)',
    '',
  ].join('\n');
}

/** The width help text is wrapped to, from the terminal's. */
export function helpWidth(columns: number | undefined): number {
  return Math.min(columns ?? 100, 120);
}

const MIN_WIDTH_TO_WRAP = 40;

/** Wraps at whitespace to `width` columns (commander's Help.boxWrap, without colour). */
function wrap(text: string, width: number): string[] {
  if (width < MIN_WIDTH_TO_WRAP) return text.split('\n');
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const chunks = raw.match(/\s*\S+/g);
    if (!chunks) {
      lines.push('');
      continue;
    }
    let line = chunks.shift()!;
    for (const chunk of chunks) {
      if (line.length + chunk.length <= width) {
        line += chunk;
      } else {
        lines.push(line);
        line = chunk.trimStart();
      }
    }
    lines.push(line);
  }
  return lines;
}

function item(term: string, termWidth: number, description: string, width: number): string {
  const lines = wrap(description, width - termWidth - 4);
  return ['  ' + term.padEnd(termWidth) + '  ' + lines[0], ...lines.slice(1).map((l) => ' '.repeat(termWidth + 4) + l)].join('\n');
}

function optionDescription(o: GlobalOptionSpec): string {
  return o.default === undefined ? o.description : `${o.description} (default: ${JSON.stringify(o.default)})`;
}

function commandTerm(c: CommandEntry): string {
  return c.args ? `${c.name} ${c.args}` : c.name;
}

/** `vidpub --help`: every command with its summary, the global flags, examples and exit codes. */
export function renderRootHelp(columns: number | undefined): string {
  const width = helpWidth(columns);
  const options: GlobalOptionSpec[] = [
    { flags: VERSION_FLAGS, description: VERSION_DESCRIPTION },
    ...GLOBAL_OPTIONS,
    { flags: HELP_FLAGS, description: HELP_DESCRIPTION },
  ];
  const termWidth = Math.max(...options.map((o) => o.flags.length), ...COMMANDS.map((c) => commandTerm(c).length));
  const out = ['Usage: vidpub [options] [command]', '', ...wrap(ROOT_DESCRIPTION, width), '', 'Options:'];
  for (const o of options) out.push(item(o.flags, termWidth, optionDescription(o), width));
  for (const group of Object.keys(GROUP_TITLES) as CommandEntry['group'][]) {
    const entries = COMMANDS.filter((c) => c.group === group);
    if (entries.length === 0) continue;
    out.push('', GROUP_TITLES[group]);
    for (const c of entries) out.push(item(commandTerm(c), termWidth, c.summary, width));
  }
  return (
    out.join('\n') +
    '\n' +
    examplesText(ROOT_EXAMPLES) +
    exitCodesText() +
    '\nRun "vidpub COMMAND --help" for a command\'s flags.\n'
  );
}

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

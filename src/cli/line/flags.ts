/**
 * What a flag or a positional argument is, as data, and the flags every
 * command accepts. Help (commander's and the root help), the `--version` /
 * `--help` fast path and the shell completion scripts all read these
 * definitions; nothing here imports commander or any other dependency.
 */

/**
 * What a value is. Completion offers destination names for `destination`,
 * files for `file`, the `choices` for `choice` and command names for
 * `command`; the other kinds are free text to the shells.
 */
/** `post`: the id of a post or video made from this machine (completed from the journal); `option`: KEY=VALUE of a destination's options. */
export type ValueKind = 'text' | 'number' | 'duration' | 'url' | 'file' | 'destination' | 'choice' | 'command' | 'post' | 'post-or-video' | 'option';

export interface FlagSpec {
  /** Long name without the dashes: "caption-file"; "no-wait" for a switch that turns a default off. */
  name: string;
  /** One-letter alias without the dash: "y" for -y. */
  short?: string;
  description: string;
  /** The value's name in help ("dest" shows as `--to <dest>`); a flag without one is a switch. */
  value?: string;
  /** What the value is (default "text"). */
  kind?: ValueKind;
  /** The values a `choice` takes. */
  choices?: readonly string[];
  /** Default value, shown as `(default: ...)`. */
  default?: string;
  /** May be given more than once: the command gets every value, in order (an array). */
  repeatable?: boolean;
  /** The value is a comma-separated list: completion goes on after a comma and adds no space after a name. */
  commaList?: boolean;
  /** Accepted, but not shown in help or offered by completion. */
  hidden?: boolean;
}

export interface ArgSpec {
  /** As shown in usage: "file-or-url" shows as `[file-or-url]` or `<file-or-url>`. */
  name: string;
  kind: ValueKind;
  choices?: readonly string[];
  /** Required (`<name>`) or optional (`[name]`). */
  required: boolean;
  /** The last argument only: takes every word left (`<file...>`), given to the command as a list. */
  variadic?: boolean;
}

/** `caption-file` as a key: `captionFile`. */
type CamelCase<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;

/** The key of a flag's value, as commander names it: `--caption-file` is captionFile, `--no-wait` is wait. */
export type FlagKey<F extends FlagSpec> = F['name'] extends `no-${infer N}` ? CamelCase<N> : CamelCase<F['name']>;

/**
 * A flag's value as a command gets it: a switch is a boolean (a `--no-X` switch true unless it
 * is given); a flag with a value is the text typed (always there when it has a default); a
 * repeatable one is every value given, in order. A `number` flag is its text too: each command
 * says in its own words what it accepts.
 */
export type FlagValue<F extends FlagSpec> = F extends { value: string }
  ? F extends { repeatable: true }
    ? readonly string[]
    : F extends { default: string }
      ? string
      : string | undefined
  : 'value' extends keyof F
    ? string | boolean | readonly string[] | undefined // any flag (FlagSpec itself): one of these
    : boolean;

/** The values of a list of flags (a registry entry's, declared `as const`), by key: what a command's parse() receives. */
export type FlagsOf<Fs extends readonly FlagSpec[]> = { readonly [F in Fs[number] as FlagKey<F>]: FlagValue<F> };

/** The positional values of a list of arguments: a required one is always there. */
export type ArgsOf<As extends readonly ArgSpec[]> = {
  readonly [I in keyof As]: As[I] extends { variadic: true } ? readonly string[] : As[I] extends { required: true } ? string : string | undefined;
};

/** The key of a flag's value at run time (see FlagKey). */
export function flagKey(f: FlagSpec): string {
  return f.name.replace(/^no-/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The flag as commander and help write it: "-y, --yes", "--to <dest>". */
export function flagTerm(f: FlagSpec): string {
  const long = `--${f.name}${f.value === undefined ? '' : ` <${f.value}>`}`;
  return f.short === undefined ? long : `-${f.short}, ${long}`;
}

/** The names a shell offers for a flag: "-y", "--yes". */
export function flagNames(f: FlagSpec): string[] {
  return f.short === undefined ? [`--${f.name}`] : [`-${f.short}`, `--${f.name}`];
}

/** One positional argument as usage writes it: "<destination>", "[file-or-url]", "<file...>". */
export function argTerm(a: ArgSpec): string {
  const name = a.variadic ? `${a.name}...` : a.name;
  return a.required ? `<${name}>` : `[${name}]`;
}

/** Positional arguments as usage writes them: "<destination> [file-or-url]". */
export function argsTerm(args: readonly ArgSpec[] | undefined): string {
  return (args ?? []).map(argTerm).join(' ');
}

export const DEFAULT_MAX_WAIT = '10m';

/** Default --unanswered-timeout: how long a wait rides out a service that does not answer at all. */
export const DEFAULT_UNANSWERED_TIMEOUT = '2m';

export const VERSION_FLAG: FlagSpec = { name: 'version', short: 'V', description: 'print the version' };
export const HELP_FLAG: FlagSpec = { name: 'help', short: 'h', description: 'show help for a command' };

/** Flags every command accepts. */
export const GLOBAL_FLAGS = [
  {
    name: 'json',
    description:
      'print one JSON document on stdout (--json id,status keeps those fields; a word that is not a list of the command\'s fields, such as clip.webm, is the next argument); errors as one JSON object on stderr',
  },
  { name: 'jq', value: 'expr', description: 'filter the JSON document with a jq expression (built in, nothing to install)' },
  { name: 'quiet', short: 'q', description: 'print only data and errors (no progress or hints)' },
  {
    name: 'no-input',
    description: 'never prompt; fail with a usage error instead (also VIDPUB_NO_INPUT=1, automatic when stdin is not a terminal)',
  },
  { name: 'no-color', description: 'no colour (NO_COLOR and FORCE_COLOR are honoured too)' },
  { name: 'profile', value: 'name', description: 'stored profile to use (VIDPUB_PROFILE) (default: default)' },
  { name: 'base-url', value: 'url', kind: 'url', description: 'service base URL, including /v1 (VIDPUB_BASE_URL)' },
  { name: 'api-key-file', value: 'path', kind: 'file', description: 'read the API key from this file (else VIDPUB_API_KEY, else the profile)' },
  { name: 'ca-file', value: 'path', kind: 'file', description: 'trust the CA certificates (PEM) in this file besides the system\'s (VIDPUB_CA_FILE; login keeps it)' },
  { name: 'workspace', value: 'name', description: 'refuse to write unless the key belongs to this workspace (VIDPUB_WORKSPACE)' },
  { name: 'max-wait', value: 'dur', kind: 'duration', description: 'longest total wait for rate limits (90s, 5m, 1h)', default: DEFAULT_MAX_WAIT },
  {
    name: 'unanswered-timeout',
    value: 'dur',
    kind: 'duration',
    description: 'while following a video or a post, stop (exit 7, with the line that looks again) once the service has not answered at all for this long',
    default: DEFAULT_UNANSWERED_TIMEOUT,
  },
  { name: 'no-journal', description: 'keep no record of this run in the local journal (also VIDPUB_NO_JOURNAL=1)' },
  { name: 'no-cache', description: 'read destinations, options and the key\'s workspace from the service, not from the 10-minute cache (also VIDPUB_NO_CACHE=1)' },
  { name: 'wait-for-quota', description: 'when the daily post allowance is used up, sleep until it resets instead of failing' },
  { name: 'debug', description: 'log each request and response on stderr, secrets redacted (VIDPUB_DEBUG=1)' },
] as const satisfies readonly FlagSpec[];

/** A list of flags (typed each as declared) as flags of any kind, to read what they may have. */
export function anyFlags(flags: readonly FlagSpec[]): readonly FlagSpec[] {
  return flags;
}

/** The global flags' values (resolved into GlobalOptions by invocation.ts). */
export type GlobalFlags = FlagsOf<typeof GLOBAL_FLAGS>;

/** Long names of the global flags that take a value ("--profile", ...). */
export const GLOBAL_VALUE_FLAGS: ReadonlySet<string> = new Set(anyFlags(GLOBAL_FLAGS).filter((f) => f.value !== undefined).map((f) => `--${f.name}`));

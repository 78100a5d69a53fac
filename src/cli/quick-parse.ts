/**
 * The common command line, read without commander: the command's name (or an
 * alias), its positional arguments, and the registry's flags given as
 * `--name`, `--name VALUE`, `--name=VALUE` or `-x` (a switch); the global
 * flags anywhere, the command's own after its name. What it returns has the
 * shape of commander's result (ParsedLine), so both are read by the same
 * readFlags into the same typed values; test/tools/quick-parse.test.ts holds it
 * to commander's result on generated command lines.
 *
 * Anything else returns undefined, and main() hands the line to commander
 * (./program.ts), which answers it as it always has: help and --version, an
 * unknown flag or command (with its suggestion), a missing or extra argument,
 * a missing value or one that starts with "-", `--`, grouped short flags
 * (-qy). Loading commander and building its program is a part of `vidpub
 * me`'s start-up (docs/performance.md); a line read here pays none of it.
 */
import type { CommandEntry } from './commands/index.js';
import type { ParsedLine } from './declare.js';
import { GLOBAL_FLAGS, flagKey, type FlagSpec } from './flags.js';

type Values = Record<string, unknown>;

/** The flags by the words that name them (`--to`, `-y`). */
function byWord(flags: readonly FlagSpec[] | undefined): Map<string, FlagSpec> {
  const words = new Map<string, FlagSpec>();
  for (const f of flags ?? []) {
    words.set(`--${f.name}`, f);
    if (f.short !== undefined) words.set(`-${f.short}`, f);
  }
  return words;
}

/** The values before anything is given, as commander holds them: defaults, and true for a `--no-X` switch. */
function defaults(flags: readonly FlagSpec[] | undefined): Values {
  const values: Values = {};
  for (const f of flags ?? []) {
    if (f.default !== undefined) values[flagKey(f)] = f.default;
    else if (f.value === undefined && f.name.startsWith('no-')) values[flagKey(f)] = true;
  }
  return values;
}

/** One flag given: a switch is true (false for `--no-X`), a value replaces the last, a repeatable one is added to the list. */
function give(values: Values, f: FlagSpec, value: string | undefined): void {
  const key = flagKey(f);
  if (value === undefined) values[key] = !f.name.startsWith('no-');
  else if (f.repeatable) values[key] = [...(Array.isArray(values[key]) ? (values[key] as unknown[]) : []), value];
  else values[key] = value;
}

/** The command line `args` (the command's name in it) read for `entry`, or undefined: commander's to read. */
export function quickParse(args: readonly string[], entry: CommandEntry): ParsedLine | undefined {
  const globalWords = byWord(GLOBAL_FLAGS);
  const ownWords = byWord(entry.flags);
  const globals = defaults(GLOBAL_FLAGS);
  const own = defaults(entry.flags);
  const given = new Set<string>();
  const positional: string[] = [];
  let named = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    // A word such as -1h is a value (a negative duration: `emulator clock -1h`), not a flag: no flag starts with a digit.
    if (arg.length < 2 || arg[0] !== '-' || /^-\d/.test(arg)) {
      if (named) positional.push(arg);
      else if (arg === entry.name || entry.aliases?.includes(arg)) named = true;
      else return undefined;
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const word = eq > 0 ? arg.slice(0, eq) : arg;
    const isGlobal = globalWords.has(word);
    const flag = isGlobal ? globalWords.get(word) : named ? ownWords.get(word) : undefined;
    if (!flag || (flag.value === undefined && eq > 0)) return undefined;
    const value = flag.value === undefined ? undefined : eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (flag.value !== undefined && (value === undefined || (eq < 0 && value.startsWith('-')))) return undefined;
    give(isGlobal ? globals : own, flag, value);
    if (isGlobal) given.add(flagKey(flag));
  }
  const expected = entry.args ?? [];
  if (!named || positional.length > expected.length || positional.length < expected.filter((a) => a.required).length) return undefined;
  return { positional, opts: own, optsWithGlobals: { ...globals, ...own }, given: (key) => given.has(key) };
}

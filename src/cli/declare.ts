/**
 * Between the registry and commander: the flag definitions declared to
 * commander, and what commander parsed read back, once, into the types the
 * definitions give (FlagsOf, ArgsOf) for a command's parse().
 */
import { Option, type Command } from 'commander';
import { flagKey, flagTerm, type ArgSpec, type ArgsOf, type FlagSpec, type FlagsOf } from './flags.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function toOption(f: FlagSpec): Option {
  const o = new Option(flagTerm(f), f.description);
  // Shown as written, the way every default is: "(default: 2m)".
  if (f.default !== undefined) o.default(f.default, f.default);
  if (f.repeatable) o.argParser(collect);
  if (f.hidden) o.hideHelp();
  return o;
}

export function addFlags(cmd: Command, flags: readonly FlagSpec[] | undefined): void {
  for (const f of flags ?? []) cmd.addOption(toOption(f));
}

/** One flag's value from commander's (see FlagValue). */
function flagValue(f: FlagSpec, v: unknown): string | boolean | readonly string[] | undefined {
  if (f.value === undefined) return f.name.startsWith('no-') ? v !== false : v === true;
  if (f.repeatable) return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  return typeof v === 'string' ? v : undefined;
}

/** The values of `flags` in commander's options (`cmd.opts()`, or optsWithGlobals()), typed by their definitions. */
export function readFlags<const Fs extends readonly FlagSpec[]>(flags: Fs | undefined, opts: Record<string, unknown>): FlagsOf<Fs> {
  const values: Record<string, unknown> = {};
  for (const f of flags ?? []) values[flagKey(f)] = flagValue(f, opts[flagKey(f)]);
  // The one place the parser's output meets the definitions' types: each value was just read by its definition.
  return values as FlagsOf<Fs>;
}

/** The positional values commander passed to the action, typed by their definitions (a required one is there: commander checks). */
export function readArgs<const As extends readonly ArgSpec[]>(args: As | undefined, values: readonly unknown[]): ArgsOf<As> {
  const read = (args ?? []).map((_, i) => (typeof values[i] === 'string' ? values[i] : undefined));
  return read as unknown as ArgsOf<As>;
}

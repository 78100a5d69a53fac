/**
 * Between the registry and the parser: what a command line was read into
 * (ParsedLine, by commander in ./parse.ts), read
 * back once into the types the definitions give (FlagsOf, ArgsOf) for a
 * command's parse().
 */
import { flagKey, type ArgSpec, type ArgsOf, type FlagSpec, type FlagsOf, type GlobalFlags } from './flags.js';

/**
 * A command line as the parser read it, in commander's shape: the positional values, the
 * command's own flags by key (`cmd.opts()`), those with the global ones (`optsWithGlobals()`),
 * and whether a global flag was given on the line rather than left at its default.
 */
export interface ParsedLine {
  positional: readonly unknown[];
  opts: Record<string, unknown>;
  optsWithGlobals: Record<string, unknown>;
  given(key: keyof GlobalFlags): boolean;
}

/** One flag's value from the parser's (see FlagValue). */
function flagValue(f: FlagSpec, v: unknown): string | boolean | readonly string[] | undefined {
  if (f.value === undefined) return f.name.startsWith('no-') ? v !== false : v === true;
  if (f.repeatable) return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  return typeof v === 'string' ? v : undefined;
}

/** The values of `flags` in the parser's options (`opts`, or `optsWithGlobals`), typed by their definitions. */
export function readFlags<const Fs extends readonly FlagSpec[]>(flags: Fs | undefined, opts: Record<string, unknown>): FlagsOf<Fs> {
  const values: Record<string, unknown> = {};
  for (const f of flags ?? []) values[flagKey(f)] = flagValue(f, opts[flagKey(f)]);
  // The one place the parser's output meets the definitions' types: each value was just read by its definition.
  return values as FlagsOf<Fs>;
}

/** The positional values the parser read, typed by their definitions (a required one is there: both parsers check). */
export function readArgs<const As extends readonly ArgSpec[]>(args: As | undefined, values: readonly unknown[]): ArgsOf<As> {
  const read = (args ?? []).map((a, i) => {
    const v = values[i];
    if (a.variadic) return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
    return typeof v === 'string' ? v : undefined;
  });
  return read as unknown as ArgsOf<As>;
}

/**
 * A command line written back, for a shell: the rerun line of an unknown
 * outcome, the line that continues a cut-off run, the command a hint
 * suggests. It is written from the line as read (./parse.ts), never from the
 * words as typed: the command, its arguments, then every flag that was typed
 * (global or its own, in the order first typed, each with its value as read),
 * with the edits asked for: the flags in the order typed, then those an
 * edit adds (the key of a rerun line last, where it is seen). A flag the
 * registry gains is written back with no other change.
 */
import { shellLine } from '../../util/shell.js';
import type { CommandLine } from './command-line.js';
import { GLOBAL_FLAGS, anyFlags, flagKey, type FlagSpec } from './flags.js';

/**
 * Changes to the line as read, by flag as typed (`--at`): a value in place of the one read (a
 * list for a repeatable flag, true or false for a switch), or undefined to leave the flag out.
 * A flag that was not typed is added after all that were.
 */
export type LineEdits = Readonly<Record<`--${string}`, string | readonly string[] | boolean | undefined>>;

/** The words of one flag with `value` (what the parser read, or an edit): none when it is left out. */
function flagWords(f: FlagSpec, value: unknown, jsonFields: readonly string[] | undefined): string[] {
  const word = `--${f.name}`;
  if (f.value === undefined) {
    // A switch read from the line: true (false for `--no-X`, which is then typed).
    const on = typeof value === 'boolean' ? value !== f.name.startsWith('no-') : false;
    if (!on) return [];
    return f.name === 'json' && jsonFields?.length ? [word, jsonFields.join(',')] : [word];
  }
  if (Array.isArray(value)) return value.flatMap((v: unknown) => (typeof v === 'string' ? [word, v] : []));
  return typeof value === 'string' ? [word, value] : [];
}

/** A switch edit is given as "on" (true) or "off"; as read, `--no-X` on means its value false. */
function editValue(f: FlagSpec, edit: string | readonly string[] | boolean | undefined): unknown {
  if (f.value !== undefined || typeof edit !== 'boolean') return edit;
  return f.name.startsWith('no-') ? !edit : edit;
}

/**
 * `line` as a shell line (`vidpub post clip.mp4 --to youtube …`), with `edits`; `positional` in
 * place of the arguments read. An argument that starts with "-" comes after `--`.
 */
export function renderLine(line: CommandLine, edits: LineEdits = {}, positional?: readonly string[]): string {
  const own = anyFlags(line.entry.flags ?? []);
  const global = anyFlags(GLOBAL_FLAGS);
  const byWord = new Map([...global, ...own].map((f) => [`--${f.name}`, f]));
  const added = Object.keys(edits)
    .map((word) => byWord.get(word))
    .filter((f): f is FlagSpec => f !== undefined && !line.typed.includes(f));
  const flags = [...line.typed, ...added].flatMap((f) => {
    const word = `--${f.name}` as const;
    const value = word in edits ? editValue(f, edits[word]) : (own.includes(f) ? line.opts : line.optsWithGlobals)[flagKey(f)];
    return flagWords(f, value, line.jsonFields);
  });
  // A variadic argument was read as a list: its words, in order.
  const args = (positional ?? line.positional).flat().filter((a): a is string => typeof a === 'string');
  const dashed = args.some((a) => a.startsWith('-'));
  return shellLine(['vidpub', ...line.entry.name.split(' '), ...(dashed ? [...flags, '--', ...args] : [...args, ...flags])]);
}

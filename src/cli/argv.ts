/**
 * Reading the words of a command line before (and apart from) the parser:
 * which word is the command, and the field list of `--json FIELDS`. main()
 * uses both to pick the command; the error report uses them to write the
 * rerun line and the parser's errors.
 */
import { findCommand } from './commands/index.js';
import { GLOBAL_VALUE_FLAGS } from './flags.js';

/** The first word of argv that is not a global flag or a global flag's value. */
export function commandNameOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1];
    if (a.startsWith('-')) {
      if (GLOBAL_VALUE_FLAGS.has(a)) i++;
      continue;
    }
    return a;
  }
  return undefined;
}

/** A field list after --json (`--json id,status`): lower-case names, dots for nesting, commas between; never a command name. */
const FIELD_LIST = /^[a-z_]+(?:\.[a-z_]+)*(?:,[a-z_]+(?:\.[a-z_]+)*)*$/;

/**
 * Takes `--json FIELDS` / `--json=FIELDS` out of argv (commander sees a plain
 * --json). The word after --json is a field list when it looks like one
 * (lower-case letters, "_", "." and ",", no digits: ids such as post_123 and
 * file names are not) and is not a command name where the command is still to
 * come (`vidpub --json status ID`; after it, `vidpub status ID --json status`
 * is the field).
 */
export function splitJsonFields(argv: string[]): { args: string[]; fields?: string[] } {
  const args: string[] = [];
  let fields: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i));
      break;
    }
    if (a.startsWith('--json=')) {
      const list = a.slice('--json='.length).split(',').map((f) => f.trim()).filter(Boolean);
      // `--json=` (an empty "$FIELDS" in a script) is the whole record, as --json is.
      fields = list.length > 0 ? list : undefined;
      args.push('--json');
      continue;
    }
    args.push(a);
    const next = argv[i + 1];
    if (a === '--json' && next !== undefined && FIELD_LIST.test(next) && (!findCommand(next) || commandNameOf(args.slice(0, -1)) !== undefined)) {
      fields = next.split(',');
      i++;
    }
  }
  return { args, fields };
}

/** The registry's flag definitions, declared to commander. */
import { Option, type Command } from 'commander';
import { flagTerm, type FlagSpec } from './flags.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function toOption(f: FlagSpec): Option {
  const o = new Option(flagTerm(f), f.description);
  if (f.default !== undefined) o.default(f.default);
  if (f.repeatable) o.argParser(collect);
  if (f.hidden) o.hideHelp();
  return o;
}

export function addFlags(cmd: Command, flags: readonly FlagSpec[] | undefined): void {
  for (const f of flags ?? []) cmd.addOption(toOption(f));
}

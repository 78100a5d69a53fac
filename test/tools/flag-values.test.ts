// The registry's flags reach a command's parse() typed from their definitions (FlagsOf): the
// keys the types name are the keys commander stores, and the values are read once (readFlags).
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, findCommand } from '../../src/cli/commands/index.js';
import { readArgs, readFlags } from '../../src/cli/line/read.js';
import { addFlags, toOption } from '../../src/cli/line/parse.js';
import { GLOBAL_FLAGS, flagKey } from '../../src/cli/line/flags.js';

function parsed(name: string, argv: string[]): { opts: Record<string, unknown>; args: unknown[] } {
  const entry = findCommand(name)!;
  const cmd = new Command(name).exitOverride();
  for (const a of entry.args ?? []) cmd.argument(a.required ? `<${a.name}>` : `[${a.name}]`);
  addFlags(cmd, entry.flags);
  let args: unknown[] = [];
  cmd.action((...all: unknown[]) => {
    args = all.slice(0, -2);
  });
  cmd.parse(argv, { from: 'user' });
  return { opts: cmd.opts(), args };
}

describe('flag values', () => {
  it('name each value as commander does, for every flag of the registry', () => {
    for (const f of [...GLOBAL_FLAGS, ...COMMANDS.flatMap((c) => c.flags ?? [])]) expect(flagKey(f)).toBe(toOption(f).attributeName());
  });

  it('read switches as booleans, values as text, defaults filled in and repeated flags as lists', () => {
    const post = findCommand('post')!;
    const given = parsed('post', ['clip.mp4', '--to', 'a', '--to', 'b,c', '--caption-file', 'c.txt', '--no-wait', '-y']);
    expect(readFlags(post.flags, given.opts)).toMatchObject({ to: ['a', 'b,c'], captionFile: 'c.txt', caption: undefined, wait: false, yes: true, draft: false, option: [], timeout: '30m' });
    expect(readArgs(post.args, given.args)).toEqual(['clip.mp4']);
    const none = parsed('post', []);
    expect(readFlags(post.flags, none.opts)).toMatchObject({ to: [], option: [], wait: true, yes: false, forceNew: false });
    expect(readArgs(post.args, none.args)).toEqual([undefined]);
  });
});

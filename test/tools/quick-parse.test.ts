// The command line read without commander (src/cli/quick-parse.ts) must read every line it
// accepts exactly as commander does, and leave to commander every line commander refuses or
// answers itself (help, --version, mistakes). Checked on lines generated from the registry, and
// through the built CLI for the lines a person types most.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { COMMANDS, findCommand, type CommandEntry } from '../../src/cli/commands/index.js';
import type { AnyCommandSpec } from '../../src/cli/command.js';
import { readArgs, readFlags, type ParsedLine } from '../../src/cli/declare.js';
import { GLOBAL_FLAGS, flagKey, type FlagSpec, type GlobalFlags } from '../../src/cli/flags.js';
import { runWithCommander } from '../../src/cli/program.js';
import { quickParse } from '../../src/cli/quick-parse.js';
import { makeContext } from '../support/cli.js';

const BIN = fileURLToPath(new URL('../../bin/vidpub.js', import.meta.url));

/** What a command gets from a line: its flags, the global flags, the positional values and which globals were given. */
function readLine(entry: CommandEntry, line: ParsedLine) {
  return {
    flags: readFlags(entry.flags, line.opts),
    globals: readFlags(GLOBAL_FLAGS, line.optsWithGlobals),
    args: readArgs(entry.args, line.positional),
    given: GLOBAL_FLAGS.map((f) => flagKey(f) as keyof GlobalFlags).filter((k) => line.given(k)),
  };
}

const spec = { description: '', examples: [], parse: () => ({}), run: async () => undefined } as unknown as AnyCommandSpec;

/** The line as commander reads it for `entry`: what the command would get, or undefined (help, version, a usage error). */
async function commanderReads(args: string[], entry: CommandEntry): Promise<ReturnType<typeof readLine> | undefined> {
  const { ctx } = makeContext({ env: { VIDPUB_CONFIG_DIR: '/nonexistent-vidpub-test' } });
  let read: ReturnType<typeof readLine> | undefined;
  await runWithCommander(args, ctx, { entry, spec, run: async (line) => ((read = readLine(entry, line)), 0) });
  return read;
}

/** A small seeded generator, so a failure names a line that can be run again. */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

const ODD = ['--', '-', '-5', '--bogus', '-qy', '-q5', '--help', '-h', '--version', '-V', 'help', '--json=', '--quiet=1', '--no-bogus', '-Z'];
const VALUES = ['x', 'a,b', '5m', '-x', '--json', 'post_123', '', 'two words', 'me'];

/** One word or a flag with its value, drawn from the registry's flags, positional words and odd tokens. */
function token(next: (n: number) => number, entry: CommandEntry): string[] {
  const flags: readonly FlagSpec[] = [...GLOBAL_FLAGS, ...(entry.flags ?? [])];
  const pick = next(10);
  if (pick < 5) {
    const f = flags[next(flags.length)]!;
    const name = f.short !== undefined && next(3) === 0 ? `-${f.short}` : `--${f.name}`;
    if (f.value === undefined) return [name];
    const value = VALUES[next(VALUES.length)]!;
    if (name.startsWith('--') && next(3) === 0) return [`${name}=${value}`];
    return next(8) === 0 ? [name] : [name, value];
  }
  if (pick < 8) return [['clip.mp4', 'yt', 'post_1', 'extra'][next(4)]!];
  return [ODD[next(ODD.length)]!];
}

function generatedLine(next: (n: number) => number, entry: CommandEntry): string[] {
  const before: string[] = [];
  const after: string[] = [];
  for (let i = next(3); i > 0; i--) before.push(...token(next, entry));
  for (let i = next(5); i > 0; i--) after.push(...token(next, entry));
  const name = entry.aliases && next(2) === 0 ? entry.aliases[0]! : entry.name;
  return [...before, name, ...after];
}

describe('the command line read without commander', () => {
  it('reads every generated line it accepts as commander does, and accepts none that commander refuses', async () => {
    const next = random(20261126);
    let accepted = 0;
    let tried = 0;
    for (const entry of COMMANDS) {
      for (let i = 0; i < 120; i++) {
        const args = generatedLine(next, entry);
        const quick = quickParse(args, entry);
        const slow = await commanderReads(args, entry);
        tried++;
        if (quick === undefined) continue;
        accepted++;
        expect({ line: args, read: readLine(entry, quick) }).toEqual({ line: args, read: slow });
      }
    }
    // Not a parser that passes everything on: a fair share of the lines is read here.
    expect(accepted).toBeGreaterThan(tried / 10);
  });

  it('reads the lines people type most, with defaults and globals before or after the command', async () => {
    const lines: [string, string[]][] = [
      ['me', ['me']],
      ['me', ['me', '--json']],
      ['me', ['--profile', 'work', 'me', '--timeout', '30s']],
      ['upload', ['upload', 'clip.mp4', '--no-wait', '--quiet']],
      ['upload', ['upload', 'clip.mp4', '--idempotency-key=nightly-1', '-q']],
      ['post', ['post', 'clip.mp4', '--to', 'yt', '--to', 'tt', '--caption', 'Hi there', '-y', '--max-wait', '2m']],
      ['history', ['posts', '--json']],
    ];
    for (const [name, args] of lines) {
      const entry = findCommand(name)!;
      const quick = quickParse(args, entry);
      expect(quick, args.join(' ')).toBeDefined();
      expect(readLine(entry, quick!)).toEqual(await commanderReads(args, entry));
    }
    const upload = readLine(findCommand('upload')!, quickParse(['upload', 'clip.mp4', '--no-wait', '--quiet'], findCommand('upload')!)!);
    expect(upload.args).toEqual(['clip.mp4']);
    expect(upload.flags).toMatchObject({ wait: false, timeout: '30m' });
    expect(upload.globals).toMatchObject({ quiet: true, json: false, color: true, maxWait: '10m' });
    expect(upload.given).toEqual(['quiet']);
  });

  it('leaves help, --version and mistakes to commander', () => {
    const me = findCommand('me')!;
    const upload = findCommand('upload')!;
    for (const args of [['me', '--help'], ['me', '-h'], ['--version', 'me'], ['me', '--bogus'], ['me', 'extra'], ['me', '--timeout'], ['me', '--timeout', '-5'], ['me', '-qy'], ['me', '--', 'x'], ['--timeout', '5s', 'me']]) {
      expect(quickParse(args, me), args.join(' ')).toBeUndefined();
    }
    expect(quickParse(['upload'], upload)).toBeUndefined();
    expect(quickParse(['upload', 'a.mp4', 'b.mp4'], upload)).toBeUndefined();
    expect(quickParse(['upload', 'a.mp4', '--quiet=yes'], upload)).toBeUndefined();
  });

  it('gives commander\'s words and exit code for a line it leaves, from the built CLI', () => {
    const env = { ...process.env, VIDPUB_CONFIG_DIR: '/nonexistent-vidpub-test', NO_COLOR: '1' };
    const unknown = spawnSync(process.execPath, [BIN, 'me', '--bogus'], { env, encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    expect(unknown.stderr).toContain('Run "vidpub me --help" for usage.');
    const missing = spawnSync(process.execPath, [BIN, 'upload'], { env, encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'file'");
    const help = spawnSync(process.execPath, [BIN, 'upload', '--help'], { env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: vidpub upload [options] <file>');
  });
});

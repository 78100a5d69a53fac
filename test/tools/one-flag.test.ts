// A flag is declared once, in the command registry, and nothing else is edited: it is then
// parsed, completed by the three shells, documented (the reference page and the man page),
// shown in help, and written back in the lines vidpub suggests (a hint, a rerun line).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCommand } from '../../src/cli/commands/index.js';
import { completionScript } from '../../src/cli/completion/index.js';
import type { FlagSpec } from '../../src/cli/line/flags.js';
import { readFlags } from '../../src/cli/line/read.js';
import { renderLine } from '../../src/cli/line/render.js';
import { renderReference } from '../../src/cli/reference/index.js';
import { readLineOnly, runCli } from '../support/cli.js';

const NEW_FLAG: FlagSpec = { name: 'tag-line', value: 'words', description: 'a flag this test declares and nothing else knows' };
const SWITCH: FlagSpec = { name: 'no-echo', description: 'a switch this test declares' };

// The one edit: the registry's entry for post gains the two flags, for this file only (the files after it in
// this worker find the registry as it was; test/support/clean-process.ts checks).
const flags = findCommand('post')!.flags as FlagSpec[];
beforeAll(() => void flags.push(NEW_FLAG, SWITCH));
afterAll(() => void flags.splice(flags.indexOf(NEW_FLAG), 2));

describe('a flag declared once in the registry', () => {
  it('is parsed: its value read by its definition, a --no- switch as false', async () => {
    const { line, code } = await readLineOnly(['post', 'clip.mp4', '--tag-line', 'hello there', '--no-echo', '--to', 'youtube']);
    expect(code).toBe(0);
    expect(readFlags(flags, line!.opts)).toMatchObject({ tagLine: 'hello there', echo: false, to: ['youtube'] });
    const equals = await readLineOnly(['post', 'clip.mp4', '--tag-line=x']);
    expect(readFlags(flags, equals.line!.opts)).toMatchObject({ tagLine: 'x', echo: true });
  });

  it('refuses a missing value in the parser\'s words (exit 2)', async () => {
    const r = await readLineOnly(['post', 'clip.mp4', '--tag-line']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`Error: option '--tag-line <words>' argument missing\nRun "vidpub post --help" for usage.\n`);
  });

  it('is completed by bash, zsh and fish', () => {
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const script = completionScript(shell, '0.0.0');
      expect(script, shell).toContain('tag-line');
      expect(script, shell).toContain('no-echo');
    }
  });

  it('is in vidpub post --help', async () => {
    const r = await runCli(['post', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--tag-line <words>\s+a flag this test declares and nothing else knows/);
    expect(r.stdout).toMatch(/--no-echo\s+a switch this test declares/);
  });

  it('is on the reference page and in the man page', async () => {
    const files = await renderReference('0.0.0');
    expect(files.get('docs/commands/vidpub-post.md')).toContain('--tag-line <words>');
    expect(files.get('docs/commands/vidpub-post.md')).toContain('a flag this test declares and nothing else knows');
    expect(files.get('man/vidpub-post.1')).toContain('\\-\\-tag\\-line');
    expect(files.get('man/vidpub-post.1')).toContain('\\-\\-no\\-echo');
  });

  it('is written back in a rerun line, in the place typed, with the key last', async () => {
    const { line } = await readLineOnly(['post', 'my clip.mp4', '--tag-line', "it's", '--no-echo', '--caption', 'x', '--idempotency-key', 'old']);
    expect(renderLine(line!, { '--idempotency-key': 'vp-new' })).toBe("vidpub post 'my clip.mp4' --tag-line 'it'\\''s' --no-echo --caption x --idempotency-key vp-new");
  });

  it('is written back in the command a hint suggests (exit 2, --to missing)', async () => {
    const r = await runCli(['post', 'clip.mp4', '--tag-line', 'two words', '--caption', 'x', '--no-echo', '--no-input']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`then run: vidpub post clip.mp4 --tag-line 'two words' --caption x --no-echo --no-input --to DEST[,DEST...]`);
  });
});

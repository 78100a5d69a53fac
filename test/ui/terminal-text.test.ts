/**
 * The one sanitizer of foreign text (sanitize), the bidirectional controls at the terminal
 * boundary (neutraliseBidi, guardTerminal), and a shell word that holds controls (shellWord).
 */
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { neutraliseBidi, sanitize } from '../../src/errors.js';
import { guardTerminal } from '../../src/ui/terminal.js';
import { shellWord } from '../../src/util/shell.js';
import { runCli } from '../support/cli.js';

describe('sanitize', () => {
  it('shows each C0 and C1 control escaped, and reads line breaks and tabs as one space', () => {
    expect(sanitize('t\u001b]0;PWNED\u0007\u001b[2Jx.mp4')).toBe('t\\e]0;PWNED\\x07\\e[2Jx.mp4');
    expect(sanitize('a\u0000b\u007fc\u009bd\u0085e')).toBe('a\\x00b\\x7fc\\x9bd\\x85e');
    expect(sanitize(' one\r\n\ttwo ')).toBe('one two');
  });

  it('leaves ordinary text, accents and bidirectional controls as they are (the terminal boundary shows those)', () => {
    expect(sanitize('Café ☕ مرحبا \u202etxt')).toBe('Café ☕ مرحبا \u202etxt');
  });
});

describe('the terminal boundary', () => {
  it('shows every bidirectional control', () => {
    expect(neutraliseBidi('a\u202ab\u202ec\u2066d\u2069e\u200ef\u200fg')).toBe('a<U+202A>b<U+202E>c<U+2066>d<U+2069>e<U+200E>f<U+200F>g');
    expect(neutraliseBidi('مرحبا')).toBe('مرحبا');
  });

  it('guards a stream: strings and bytes alike, once, the rest untouched', () => {
    const stream = new PassThrough();
    let out = '';
    stream.on('data', (c: Buffer) => (out += c.toString('utf8')));
    expect(guardTerminal(guardTerminal(stream))).toBe(stream);
    stream.write('x\u202ey\n');
    stream.write(Buffer.from('bytes \u2067 and \u001b[1mbold\u001b[0m €\n', 'utf8'));
    stream.end('end\u200f');
    expect(out).toBe('x<U+202E>y\nbytes <U+2067> and \u001b[1mbold\u001b[0m €\nend<U+200F>');
  });
});

describe('shellWord', () => {
  it('quotes a word with controls in ANSI-C quotes that a shell reads back as the same bytes', () => {
    const word = "t\u001b]0;PWNED\u0007\u001b[2Jx 'q'\n\u0001a.mp4";
    const quoted = shellWord(word);
    expect(quoted).toBe("$'t\\e]0;PWNED\\a\\e[2Jx \\'q\\'\\n\\x01a.mp4'");
    const r = spawnSync('bash', ['-c', `printf '%s' ${quoted}`], { encoding: 'utf8' });
    expect(r.stdout).toBe(word);
  });

  it('keeps the plain forms for words without controls', () => {
    expect(shellWord('clip.mp4')).toBe('clip.mp4');
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });
});

describe('an error and its hint', () => {
  it('name a file with escape sequences escaped, and the command to run as $\'...\' (exit 2)', async () => {
    const name = 't\u001b]0;PWNED\u0007\u001b[2Jx.mp4';
    const r = await runCli(['post', name, '--caption', 'x', '--no-input'], { env: { VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', VIDPUB_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'Error: --to is required: where should it be posted?\n' +
        `List the destinations with "vidpub destinations", then run: vidpub post $'t\\e]0;PWNED\\a\\e[2Jx.mp4' --caption x --no-input --to DEST[,DEST...]\n`,
    );
  });
});

/**
 * Text vidpub did not write reaches a terminal shown, never acting: the real built binary in a
 * pseudo-terminal (tmux), every byte it writes recorded (pipe-pane). A video named
 * `t\e]0;PWNED\a\e[2Jx\u202e4pm.mp4` is uploaded and posted: no escape sequence of the name reaches the
 * terminal (the window title stays, the screen is not cleared, the bar and the lines show the
 * name escaped). A right-to-left override (U+202E) in a caption and in the name is shown
 * neutralised in `history` and `status` at the terminal, and exact in --json and a pipe.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { fasterClockEnv, noFaketime } from '../support/faketime.js';
import { waitFor } from '../support/poll.js';
import { noTmux, shellQuote as quote, useTmux } from '../support/tmux.js';
import { escapeRegExp } from '../support/regexp.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20, resetEachTest: false });
const dir = mkdtempSync(join(tmpdir(), 'vidpub-terminal-text-'));
const NAME = 't\u001b]0;PWNED\u0007\u001b[2Jx\u202e4pm.mp4';
const SHOWN = 't\\e]0;PWNED\\x07\\e[2Jx<U+202E>4pm.mp4';
const RLO = '\u202e';
const tmux = useTmux('terminal-text');
let sessions = 0;

function env(): Record<string, string> {
  return {
    ...emu.env(),
    PATH: process.env.PATH!,
    HOME: dir,
    TERM: 'xterm-256color',
    VIDPUB_CONFIG_DIR: join(dir, 'config'),
    VIDPUB_STATE_DIR: join(dir, 'state'),
    VIDPUB_CACHE_DIR: join(dir, 'cache'),
  };
}

/**
 * Runs the shell lines in a new tmux session, every byte the programs write recorded from the
 * first one on; resolves once they are done, with the screen, the raw bytes and the pane's title.
 */
async function inTerminal(lines: string[]): Promise<{ screen: string; styled: string; raw: string; title: string }> {
  const session = `s${++sessions}`;
  const raw = join(dir, `${session}.raw`);
  const go = `go-${session}`;
  const vars = Object.entries(env()).map(([k, v]) => `export ${k}=${quote(v)}`);
  const script = [...vars, `tmux -L ${tmux.socket} wait-for ${go}`, 'printf "\\033]0;BEFORE\\007"', 'echo BEFORE-MARK', ...lines, 'echo "EXIT:$?"; sleep 120'].join('\n');
  tmux.start(session, ['sh', '-c', script], { columns: 150, rows: 50 });
  tmux.run('pipe-pane', '-o', '-t', session, `cat >> ${quote(raw)}`);
  tmux.run('wait-for', '-S', go);
  const done = await tmux.waitForScreen(session, /EXIT:\d+/, 45_000);
  await waitFor(() => (existsSync(raw) ? readFileSync(raw, 'latin1') : ''), (r) => r.includes('EXIT:'), 15_000);
  // -e: with the escape sequences the terminal keeps for each cell (colours), none of the name's.
  const styled = tmux.screen(session, { flags: ['-e'] });
  return { screen: done, styled, raw: readFileSync(raw, 'utf8'), title: tmux.run('display', '-p', '-t', session, '#{pane_title}').trim() };
}

/** The shell line of the built bin with `args`; `faster`: its clock twice as fast (libfaketime), for a post's looks at its progress. */
const vidpub = (args: string, faster = false) =>
  `${faster ? `${Object.entries(fasterClockEnv()).map(([k, v]) => `${k}=${quote(v)} `).join('')}` : ''}${quote(process.execPath)} ${quote(BIN)} ${args}`;

function expectNameShownNotActing(t: { screen: string; styled: string; raw: string; title: string }): void {
  expect(t.title).toBe('BEFORE'); // the name's OSC 0 did not set the title
  expect(t.screen).toContain('BEFORE-MARK'); // nor did its ED clear the screen
  expect(t.raw).not.toContain('\u001b]0;PWNED');
  expect(t.raw).not.toContain('\u001b[2J');
  expect(t.raw).not.toContain('\u0007\u001b');
  expect(t.screen).toContain(SHOWN);
  // eslint-disable-next-line no-control-regex -- the escape sequences are what is looked for
  expect(t.styled.match(/\u001b[^[]|\u001b\[[0-9;]*[^0-9;m]/g) ?? []).toEqual([]); // colours only
}

describe.skipIf(noTmux || noFaketime)('text from elsewhere at a terminal (tmux)', () => {
  const file = join(dir, 'videos', NAME);
  beforeAll(() => {
    ensureBuilt();
    mkdirSync(join(dir, 'videos'));
    copyFileSync(join(ROOT, 'test', 'fixtures', 'clip.mp4'), file);
  }, 120_000);

  it('vidpub upload of a file named with escape sequences: the bar and the lines show them escaped', async () => {
    const t = await inTerminal([vidpub(`upload ${quote(file)}`)]);
    expect(t.screen).toContain('EXIT:0');
    expectNameShownNotActing(t);
    expect(t.raw).toContain(`Uploading ${SHOWN}`); // the bar's label
    expect(t.screen).toContain(`Uploaded ${SHOWN}: video med_`);
  }, 90_000);

  it('vidpub post of it: the same; then history and status show a right-to-left override neutralised', async () => {
    const t = await inTerminal([
      vidpub(`post ${quote(file)} --to youtube --caption ${quote(`Launch ${RLO}4pm.exe`)} --yes`, true),
      vidpub('history'),
      `${vidpub('status "$(' + vidpub('history --json media_id --jq ".[0].media_id"') + ')"')}`,
      vidpub('history --json caption'),
    ]);
    expect(t.screen).toContain('EXIT:0');
    expectNameShownNotActing(t);
    expect(t.raw).not.toContain(RLO);
    expect(t.screen).toMatch(/completed +@vidpubdemo \(youtube\) published +Launch <U\+202E>4pm\.exe/); // history
    expect(t.screen).toContain('"caption": "Launch \\u202e4pm.exe"'); // --json at the terminal: exact, and safe
    expect(t.screen).toContain(`File:`); // status of the video
    expect(t.screen).toMatch(new RegExp(`File: +${escapeRegExp(SHOWN)}`));

    // A pipe and --json keep the data exact (in JSON as the escape \u202e: the same string once parsed).
    const history = await runAsync(process.execPath, [BIN, 'history', '--json'], { env: env() });
    expect(history.status, history.stderr).toBe(0);
    expect(history.stdout).toContain('"caption": "Launch \\u202e4pm.exe"');
    const [post] = JSON.parse(history.stdout) as { post_id: string; media_id: string; caption: string }[];
    expect(post!.caption).toBe(`Launch ${RLO}4pm.exe`);
    const status = await runAsync(process.execPath, [BIN, 'status', post!.post_id, '--json'], { env: env() });
    expect((JSON.parse(status.stdout) as Post).caption).toBe(`Launch ${RLO}4pm.exe`);
    const video = await runAsync(process.execPath, [BIN, 'status', post!.media_id, '--json'], { env: env() });
    expect((JSON.parse(video.stdout) as { filename: string }).filename).toBe(NAME);
    const plain = await runAsync(process.execPath, [BIN, 'history'], { env: env() });
    expect(plain.stdout).toContain(`Launch ${RLO}4pm.exe`);
  }, 90_000);
});

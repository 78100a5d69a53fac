/**
 * Prompts in a real pseudo-terminal (tmux), through the built bin. TERM=dumb: a line is edited
 * with Backspace (DEL and Ctrl-H), Ctrl-W and Ctrl-U, a refused answer is asked again on a fresh
 * empty line, and the numbered menu of an option with no default has no "(choose one …)" entry
 * nor talk of arrow keys. Everywhere: the yes/no is one key, after $EDITOR wrote the caption too.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20, resetEachTest: false });
const tmux = useTmux('keys');

function start(session: string, args: string, extra: Record<string, string>): void {
  const env = { ...emu.env(), VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-keys-')), VIDPUB_NO_JOURNAL: '1', TZ: 'UTC', NO_COLOR: '1', ...extra };
  tmux.start(session, vidpubLine(args, env), { columns: 100, rows: 50 });
}

const postOf = async (text: string): Promise<Post> => {
  const id = /Post: +(post_\w+)/.exec(text)?.[1];
  expect(id, text).toBeDefined();
  return (await emu.api.call<Post>('GET', `/posts/${id}`)).body;
};

describe.skipIf(noTmux)('prompts at a terminal (tmux)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('TERM=dumb: Backspace, Ctrl-H, Ctrl-W and Ctrl-U edit; a refused entry starts afresh; no "no default" entry; y alone confirms', async () => {
    const s = 'dumb';
    start(s, 'post --media med_demo_sample --to @vidpub.demo --no-wait', { TERM: 'dumb', EDITOR: '', VISUAL: '' });
    const menu = await tmux.waitForScreen(s, /\? Choose \(1-4\)/);
    expect(menu).toMatch(/^ {2}1\) Everyone \(PUBLIC_TO_EVERYONE\)$/m);
    expect(menu).not.toMatch(/choose one|there is no default/);
    // Enter alone picks nothing: said, asked again
    tmux.keys(s, 'Enter');
    await tmux.waitForScreen(s, /> Type a number from 1 to 4\.\n\? Choose \(1-4\)/);
    // a refused entry: the next line starts empty
    tmux.typed(s, 'x9');
    tmux.keys(s, 'Enter');
    const again = await tmux.waitForScreen(s, /\? Choose \(1-4\) x9\n> Type a number from 1 to 4\.\n\? Choose \(1-4\) *$/m);
    expect(again).not.toMatch(/arrow keys/);
    // 43, Backspace (DEL), Ctrl-H, 4: the answer is 4
    tmux.typed(s, '43');
    tmux.keys(s, 'BSpace');
    tmux.keys(s, 'C-h');
    tmux.typed(s, '4');
    tmux.keys(s, 'Enter');
    await tmux.waitForScreen(s, /Next time, skip this question with: --option @vidpub\.demo:privacy=SELF_ONLY/);
    await tmux.waitForScreen(s, /\? Caption \(one line/);
    // the caption: words erased by Ctrl-W and Ctrl-U, "Helloo" and Backspace; an arrow key types nothing
    tmux.typed(s, 'junk words');
    tmux.keys(s, 'C-w');
    tmux.keys(s, 'C-u');
    tmux.typed(s, 'Helloo');
    tmux.keys(s, 'BSpace');
    tmux.keys(s, 'Left');
    tmux.keys(s, 'Enter');
    const summary = await tmux.waitForScreen(s, /\? Post it now\? \(Y\/n\)/);
    expect(summary).toMatch(/^Caption: Hello$/m);
    expect(summary).toMatch(/Next time, skip this question with: --caption Hello$/m);
    // one key, no Enter
    tmux.keys(s, 'y');
    const done = await tmux.waitForScreen(s, /EXIT:\d+/);
    expect(done).toMatch(/\? Post it now\? \(Y\/n\) Yes/);
    expect(done).toMatch(/EXIT:0/);
    const post = await postOf(done);
    expect(post.caption).toBe('Hello');
    expect(post.destinations[0]!.options).toMatchObject({ privacy: 'SELF_ONLY' });
  }, 90_000);

  it('after $EDITOR wrote the caption, y alone confirms (no Enter)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-editor-'));
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "from the editor\\n" > "$1"\n');
    chmodSync(editor, 0o755);
    const s = 'editor';
    start(s, 'post --media med_demo_sample --to linkedin --no-wait', { EDITOR: editor, VISUAL: '', TERM: 'xterm-256color' });
    await tmux.waitForScreen(s, /\? Post it now\? \(Y\/n\)/);
    tmux.keys(s, 'y');
    const done = await tmux.waitForScreen(s, /EXIT:\d+/);
    expect(done).toMatch(/EXIT:0/);
    expect((await postOf(done)).caption).toBe('from the editor');
  }, 90_000);

  it('n alone declines: nothing posted, exit 130', async () => {
    const s = 'decline';
    start(s, 'post --media med_demo_sample --to linkedin --caption hi --no-wait', { TERM: 'xterm-256color' });
    await tmux.waitForScreen(s, /\? Post it now\? \(Y\/n\)/);
    tmux.keys(s, 'n');
    const done = await tmux.waitForScreen(s, /EXIT:\d+/);
    expect(done).toMatch(/\? Post it now\? \(Y\/n\) No/);
    expect(done).toMatch(/EXIT:130/);
  }, 90_000);
});

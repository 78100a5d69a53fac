/**
 * The duplicate guard at a real terminal (tmux), through the built bin: a copy of a video posted
 * to the same destination says when, where and with which post id, and asks (default no). No
 * (Enter): exit 2, nothing uploaded or posted. Yes: posted.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20, resetEachTest: false });
const tmux = useTmux('duplicate');
let dir = '';
let env: Record<string, string> = {};
let firstPost = '';

const sent = async () => (await emu.requests()).filter((r) => r.method === 'POST' && (r.path === '/v1/posts' || r.path === '/v1/media/uploads')).length;

describe.skipIf(noTmux)('the duplicate guard at a terminal (tmux)', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'vidpub-dup-pty-'));
    copyFileSync('test/fixtures/clip.mp4', join(dir, 'a.mp4'));
    copyFileSync('test/fixtures/clip.mp4', join(dir, 'b.mp4'));
    env = { ...emu.env(), VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), TZ: 'UTC', NO_COLOR: '1', TERM: 'xterm-256color', EDITOR: '', VISUAL: '' };
    const first = await runCli(['post', join(dir, 'a.mp4'), '--to', 'youtube', '--caption', 'first', '--no-wait', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    firstPost = (JSON.parse(first.stdout) as { id: string }).id;
  }, 120_000);

  const asked = async (session: string): Promise<string> => {
    tmux.start(session, vidpubLine('post b.mp4 --to youtube --caption second --no-wait', env), { columns: 120, cwd: dir });
    const screen = await tmux.waitForScreen(session, /Post it again\? \(y\/N\)/, 30_000);
    expect(screen).toMatch(new RegExp(`This video was already posted to @vidpubdemo \\(youtube\\) \\S.* \\(post ${firstPost}\\)\\.`));
    return screen;
  };

  it('Enter takes the default, no: exit 2, nothing uploaded or posted', async () => {
    const before = await sent();
    await asked('no');
    tmux.keys('no', 'Enter');
    const done = await tmux.waitForScreen('no', /EXIT:\d+/, 30_000);
    expect(done).toMatch(/EXIT:2/);
    expect(done).toContain('Not posted: the same video was posted there already; nothing was uploaded or posted.');
    expect(done).toContain('--allow-duplicate');
    expect(await sent()).toBe(before);
  }, 60_000);

  it('yes: posted (the video already uploaded is used)', async () => {
    const before = await sent();
    await asked('yes');
    tmux.keys('yes', 'y');
    // Then the post's own confirmation, if it asks: Enter takes its default (yes).
    const next = await tmux.waitForScreen('yes', /EXIT:\d+|\(Y\/n\)\s*$/m, 30_000);
    if (!/EXIT:\d+/.test(next)) tmux.keys('yes', 'Enter');
    const done = await tmux.waitForScreen('yes', /EXIT:\d+/, 30_000);
    expect(done).toMatch(/EXIT:0/);
    expect(done).toMatch(/uses video med_\w+ uploaded \d{4}-\d\d-\d\d; nothing to upload/);
    expect(await sent()).toBe(before + 1);
  }, 60_000);
});

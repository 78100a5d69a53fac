/**
 * The programs vidpub starts get its environment without its secrets (src/util/child-env.ts):
 * the real built binary in a pseudo-terminal (tmux), the system's real opener (xdg-open, which
 * hands the URL to $BROWSER when no desktop file names a browser) and $EDITOR, each a stand-in
 * script that records the environment it was given. The key (VIDPUB_API_KEY, and a copy in a
 * variable of another name) and the proxies' passwords are not in it; the rest is.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { childEnv, withoutCredentials } from '../../src/util/child-env.js';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';
import { missing } from '../support/tools.js';

const noOpener = missing('xdg-open', null);
const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const dir = mkdtempSync(join(tmpdir(), 'vidpub-child-env-'));
const tmux = useTmux('child-env');

/** A stand-in that records its environment (env -0) and arguments, then runs `then` (sh). */
function recorder(name: string, then = ''): { path: string; env: () => Record<string, string>; args: () => string } {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\nenv -0 > '${path}.env'\nprintf '%s' "$*" > '${path}.args'\n${then}\n`);
  chmodSync(path, 0o755);
  return {
    path,
    env: () => Object.fromEntries(readFileSync(`${path}.env`, 'utf8').split('\0').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])),
    // '' until written: the stand-in writes its environment first, its arguments after it.
    args: () => (existsSync(`${path}.args`) ? readFileSync(`${path}.args`, 'utf8') : ''),
  };
}

/** vidpub's environment in these tests: the key twice, proxies with passwords, and what a browser or editor needs. */
function secretEnv(): Record<string, string> {
  const home = join(dir, `home-${Math.random().toString(36).slice(2)}`);
  mkdirSync(home);
  return {
    PATH: process.env.PATH!,
    HOME: home,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    DISPLAY: ':99',
    // No desktop file names a browser here: xdg-open hands the URL to $BROWSER.
    XDG_DATA_HOME: join(home, 'none'),
    XDG_DATA_DIRS: join(home, 'none'),
    XDG_CONFIG_HOME: join(home, 'none'),
    XDG_CONFIG_DIRS: join(home, 'none'),
    VIDPUB_API_KEY: emu.key(),
    VIDPUB_BASE_URL: emu.baseUrl,
    VIDPUB_NO_JOURNAL: '1',
    DEPLOY_TOKEN: emu.key(), // the key under another name (a CI secret exported twice)
    HTTP_PROXY: 'http://alice:proxy-pass-1@127.0.0.1:9',
    https_proxy: 'bob:proxy-pass-2@127.0.0.1:9', // no scheme, as curl allows
    ALL_PROXY: 'http://carol:proxy-pass-3@127.0.0.1:9/', // http: a socks5:// one is refused before anything starts (api/net/no-proxy.ts)
    NO_PROXY: '127.0.0.1,localhost',
  };
}

function expectNoSecrets(seen: Record<string, string>): void {
  const text = JSON.stringify(seen);
  expect(text).not.toContain(emu.key());
  expect(text).not.toMatch(/proxy-pass|alice|bob|carol/);
  expect(seen.VIDPUB_API_KEY).toBeUndefined();
  expect(seen.DEPLOY_TOKEN).toBeUndefined();
  // The rest is handed on: the display, the terminal, the proxies without their credentials.
  expect(seen).toMatchObject({ DISPLAY: ':99', TERM: 'xterm-256color', VIDPUB_BASE_URL: emu.baseUrl, NO_PROXY: '127.0.0.1,localhost' });
  expect(seen).toMatchObject({ HTTP_PROXY: 'http://127.0.0.1:9', https_proxy: '127.0.0.1:9', ALL_PROXY: 'http://127.0.0.1:9/' });
}

/** Runs `vidpub ARGS` in a fresh tmux session with exactly `env`; resolves to the screen once it exits. */
async function inTerminal(session: string, env: Record<string, string>, args: string): Promise<string> {
  tmux.start(session, vidpubLine(args, env, { clean: true }));
  return tmux.waitForScreen(session, /EXIT:\d+/, 30_000);
}

describe('childEnv', () => {
  it('leaves out the key, by name and by shape, and the proxies\' credentials; keeps the rest as written', () => {
    const env = { VIDPUB_API_KEY: 'anything', SOME: 'x vp_live_acme_rw_0123456789ab y', HOME: '/h', HTTPS_PROXY: 'https://u:p@proxy:3128', http_proxy: 'proxy:3128', OFF: undefined };
    expect(childEnv(env)).toEqual({ HOME: '/h', HTTPS_PROXY: 'https://proxy:3128', http_proxy: 'proxy:3128' });
  });

  it('strips a proxy URL of its user and password in every form, and drops one it cannot read', () => {
    expect(withoutCredentials('http://u:p@proxy:3128')).toBe('http://proxy:3128');
    expect(withoutCredentials('http://u:p@proxy:3128/')).toBe('http://proxy:3128/');
    expect(withoutCredentials('u:p@proxy')).toBe('proxy');
    expect(withoutCredentials('socks5h://only-user@[::1]:1080')).toBe('socks5h://[::1]:1080');
    expect(withoutCredentials('http://proxy:3128')).toBe('http://proxy:3128');
    expect(withoutCredentials('http://u:p@@bad host')).toBeUndefined();
  });
});

describe.skipIf(noTmux || noOpener)('the programs vidpub starts, in a pseudo-terminal', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('vidpub open: the browser (through xdg-open) gets no key and no proxy password', async () => {
    const made = await runAsync(process.execPath, [BIN, 'post', join(ROOT, 'test/fixtures/clip.mp4'), '--to', 'youtube', '--caption', 'x', '--draft', '--no-input', '--json'], {
      env: { ...process.env, ...emu.env(), VIDPUB_NO_JOURNAL: '1', HOME: dir },
    });
    expect(made.status, made.stderr).toBe(0);
    const post = JSON.parse(made.stdout) as Post;
    const browser = recorder('browser');
    const screen = await inTerminal('open', { ...secretEnv(), BROWSER: browser.path }, `open ${post.id}`);
    expect(screen).toContain('EXIT:0');
    expect(screen).toContain(`Opening ${post.review_url} in your browser.`);
    await waitFor(() => existsSync(`${browser.path}.env`), Boolean, 15_000);
    await waitFor(() => browser.args(), (a) => a !== '', 15_000);
    expect(browser.args()).toBe(post.review_url);
    expectNoSecrets(browser.env());
  }, 60_000);

  it('the caption in $EDITOR: the editor gets no key and no proxy password, and its text is posted', async () => {
    const editor = recorder('editor', `printf 'From the editor\\n' > "$1"`);
    const screen = await inTerminal('edit', { ...secretEnv(), EDITOR: editor.path }, `post test/fixtures/clip.mp4 --to youtube --yes`);
    expect(screen).toContain('EXIT:0');
    const id = /Post: +(post_\w+)/.exec(screen)?.[1];
    expect(id, screen).toBeDefined();
    expect((await emu.api.get<Post>(`/posts/${id}`)).body.caption).toBe('From the editor');
    expect(editor.args()).toMatch(/\/vidpub-edit-\w+\/CAPTION\.txt$/);
    expect(existsSync(editor.args())).toBe(false); // the temporary file is gone
    expectNoSecrets(editor.env());
  }, 60_000);

  it('an editor that exits with an error stops the command (exit 1), saying so, and nothing is posted', async () => {
    const editor = recorder('failing-editor', `printf 'Half written\\n' > "$1"; exit 3`);
    const screen = await inTerminal('edit-fails', { ...secretEnv(), EDITOR: editor.path }, `post test/fixtures/clip.mp4 --to youtube --yes`);
    expect(screen).toContain('EXIT:1');
    expect(screen).toContain(`Error: the editor "${editor.path}" ended with exit 3; nothing was taken from it`);
    expect(screen).toContain('Run the command again and save before leaving the editor, or give the text with a flag.');
    expect((await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts')).toEqual([]);
  }, 60_000);
});

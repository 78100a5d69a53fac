/**
 * Every path the user names (--api-key-file, config.json, the journal, a batch
 * manifest, a caption file) is read without blocking: a directory, a FIFO or a
 * device is refused naming what it is, and a pipe where one is allowed (a key
 * from `<(pass show vidpub)` or /dev/stdin) is read under --timeout and the
 * signals. The smaller answers of issue 25 too: an empty VIDPUB_BASE_URL, a
 * YAML alias bomb, a PUT that fails on every attempt, durations too long.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, promises as fsp, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const CLIP = join(__dirname, '../fixtures/clip.mp4');

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'vidpub-paths-'));
}

/** A FIFO nobody writes to (until the test does). */
function fifo(dir: string, name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('--api-key-file', () => {
  it('a directory: exit 2 naming it, nothing sent', async () => {
    const dir = scratch();
    const r = await runCli(['me', '--api-key-file', dir], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.stderr).toContain(`Error: the API key file ${dir} is a directory, not a regular file nor a pipe`);
    expect(r.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  });

  it('a FIFO that gets the key (as from <(pass show vidpub)): read as a pipe, the command works', async () => {
    const key = fifo(scratch(), 'key');
    const writing = fsp.writeFile(key, emu.key() + '\n');
    const r = await runCli(['me', '--json', '--api-key-file', key], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    await writing;
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ workspace: { name: 'Demo' } });
    expect(r.code).toBe(0);
  });

  it('me (its text, which names where the key came from) with a key from a FIFO: the FIFO is read once, exit 0', async () => {
    const key = fifo(scratch(), 'key');
    const writing = fsp.writeFile(key, emu.key() + '\n');
    const r = await runCli(['me', '--api-key-file', key], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    await writing;
    expect(r.stdout).toContain(`--api-key-file ${key}`);
    expect(r.code).toBe(0);
  });

  it('login with a key from a FIFO that gets it: stored, exit 0', async () => {
    const key = fifo(scratch(), 'key');
    const writing = fsp.writeFile(key, emu.key() + '\n');
    const r = await runCli(['login', '--api-key-file', key, '--no-input'], { env: { VIDPUB_BASE_URL: emu.baseUrl } });
    await writing;
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('Error');
  });

  it('a FIFO nobody writes to, then Ctrl-C: the wait ends (exit 130), nothing sent', async () => {
    const key = fifo(scratch(), 'key');
    const ctrlC = new AbortController();
    const running = runCli(['me', '--api-key-file', key], { env: { VIDPUB_BASE_URL: emu.baseUrl }, signal: ctrlC.signal });
    setTimeout(() => ctrlC.abort(Object.assign(new Error('received SIGINT'), { name: 'AbortError', signal: 'SIGINT' })), 50);
    const r = await running;
    expect(r.stderr).toContain(`Error: Interrupted while waiting for the API key from ${key}; nothing was sent.`);
    expect(r.code).toBe(130);
    expect(await emu.requests()).toEqual([]);
  });
});

describe('config.json and the journal: anything but a regular file is refused, at once', () => {
  for (const [what, make] of [
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p])],
    ['a directory', (p: string) => mkdirSync(p)],
  ] as const) {
    it(`config.json that is ${what}: exit 1 naming it`, async () => {
      const configDir = tempConfigDir();
      make(join(configDir, 'config.json'));
      const r = await runCli(['me'], { env: { VIDPUB_CONFIG_DIR: configDir, VIDPUB_BASE_URL: emu.baseUrl } });
      const kind = what === 'a FIFO' ? 'a pipe \\(FIFO\\)' : 'a directory';
      expect(r.stderr).toMatch(new RegExp(`Error: The config file \\S+config\\.json is ${kind}, not a regular file\\.`));
      expect(r.code).toBe(1);
    });

    it(`journal.jsonl that is ${what}: history is exit 1 saying so, not "No posts recorded yet"`, async () => {
      const state = scratch();
      make(join(state, 'journal.jsonl'));
      const r = await runCli(['history'], { env: { VIDPUB_STATE_DIR: state } });
      const kind = what === 'a FIFO' ? 'a pipe \\(FIFO\\)' : 'a directory';
      expect(r.stderr).toMatch(new RegExp(`Error: Could not read the journal in ${state}: \\S+journal\\.jsonl is ${kind}, not a regular file`));
      expect(r.stderr).not.toContain('No posts recorded yet');
      expect(r.code).toBe(1);
    });
  }

  it('journal.jsonl that is a FIFO: a post warns at once (ENXIO, no reader is waited for) and is made once (exit 0)', async () => {
    const state = scratch();
    execFileSync('mkfifo', [join(state, 'journal.jsonl')]);
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'fifo journal', '--no-wait'], { env: { ...emu.env(), VIDPUB_STATE_DIR: state } });
    expect(r.stderr).toContain(`! Could not write to the journal in ${state} (ENXIO): this run is not recorded there.`);
    expect(r.code).toBe(0);
    expect((await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts')).toHaveLength(1);
  });
});

describe('a manifest and a caption file: a FIFO or a directory is refused (exit 2)', () => {
  for (const what of ['a FIFO', 'a directory'] as const) {
    const make = (p: string) => (what === 'a FIFO' ? execFileSync('mkfifo', [p]) : mkdirSync(p));

    it(`a manifest that is ${what}`, async () => {
      const path = join(scratch(), 'posts.yaml');
      make(path);
      const r = await runCli(['batch', path], { env: emu.env() });
      expect(r.stderr).toContain(`Error: ${path} is ${what === 'a FIFO' ? 'a pipe (FIFO)' : 'a directory'}, not a regular file`);
      expect(r.code).toBe(2);
      expect(await emu.requests()).toEqual([]);
    });

    it(`--caption-file that is ${what}`, async () => {
      const path = join(scratch(), 'caption.txt');
      make(path);
      const r = await runCli(['post', CLIP, '--to', 'youtube', '--caption-file', path], { env: emu.env() });
      expect(r.stderr).toContain(`Error: --caption-file ${path} is ${what === 'a FIFO' ? 'a pipe (FIFO)' : 'a directory'}, not a regular file\nName a regular file, or - to read stdin.`);
      expect(r.code).toBe(2);
      expect(await emu.requests()).toEqual([]);
    });

    it(`a manifest's caption_file that is ${what}`, async () => {
      const dir = scratch();
      make(join(dir, 'caption.txt'));
      writeFileSync(join(dir, 'posts.yaml'), `items:\n  - media: med_demo_sample\n    to: youtube\n    caption_file: caption.txt\n`);
      const r = await runCli(['batch', join(dir, 'posts.yaml')], { env: emu.env() });
      expect(r.stderr).toContain(`caption_file caption.txt is ${what === 'a FIFO' ? 'a pipe (FIFO)' : 'a directory'}, not a regular file`);
      expect(r.code).toBe(2);
      expect((await emu.requests()).filter((q) => q.method === 'POST')).toEqual([]);
    });
  }
});

describe('the smaller answers', () => {
  it('VIDPUB_BASE_URL set but empty: exit 2 naming it, as an empty VIDPUB_API_KEY', async () => {
    const r = await runCli(['me'], { env: { VIDPUB_BASE_URL: '', VIDPUB_API_KEY: emu.key() } });
    expect(r.stderr).toContain('Error: VIDPUB_BASE_URL is set but empty, so there is no service to use (is a CI variable missing?)');
    expect(r.stderr).toContain('unset VIDPUB_BASE_URL');
    expect(r.code).toBe(2);
  });

  it('a YAML alias bomb in a manifest: exit 2 saying what was refused, nothing sent', async () => {
    const dir = scratch();
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [prev, name] of [['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'e'], ['e', 'f']]) levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    writeFileSync(join(dir, 'bomb.yaml'), [...levels, 'items: [*f]', ''].join('\n'));
    const r = await runCli(['batch', join(dir, 'bomb.yaml')], { env: emu.env() });
    expect(r.stderr).toContain('refused: its aliases (*name) expand into a document far too large');
    expect(r.stderr).not.toMatch(/unexpected|please report it/);
    expect(r.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  });

  it('a PUT that fails on every attempt: exit 1 naming the video, its record on stdout with --json', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'status', status: 500, times: 4 });
    const r = await runCli(['upload', CLIP, '--json'], { env: emu.env(), clock: scaledClock(1000) });
    const media = JSON.parse(r.stdout) as { id: string; status: string };
    expect(media).toMatchObject({ id: expect.stringMatching(/^med_/), status: 'uploading' });
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { message: string; hint: string; exit_code: number } };
    expect(error.message).toMatch(new RegExp(`^the upload of clip\\.mp4 \\(video ${media.id}\\) failed after 4 attempts: .*; the video stays "uploading"\\.$`));
    expect(error.hint).toContain(`vidpub status ${media.id}`);
    expect(error.exit_code).toBe(1);
    expect(r.code).toBe(1);
  });

  it('post: a PUT that fails on every attempt names the video in the message', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'status', status: 500, times: 4 });
    const r = await runCli(['post', CLIP, '--to', 'youtube', '--caption', 'put fails'], { env: emu.env(), clock: scaledClock(1000) });
    expect(r.stderr).toMatch(/Error: the upload of clip\.mp4 \(video med_\w+\) failed after 4 attempts/);
    expect(r.code).toBe(1);
    expect((await emu.requests()).filter((q) => q.path === '/v1/posts')).toEqual([]);
  });

  it('--timeout and VIDPUB_REQUEST_TIMEOUT beyond a year: exit 2 naming the maximum, nothing sent', async () => {
    const long = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--timeout', '400d'], { env: emu.env() });
    expect(long.stderr).toContain('Error: --timeout "400d" is too long: the maximum is 365d');
    expect(long.code).toBe(2);
    const request = await runCli(['me'], { env: { ...emu.env(), VIDPUB_REQUEST_TIMEOUT: '9000h' } });
    expect(request.stderr).toContain('Error: VIDPUB_REQUEST_TIMEOUT "9000h" is too long: the maximum is 365d');
    expect(request.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  });
});

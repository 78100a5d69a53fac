/**
 * The same video is the same file however it is named: a `post` cut off
 * after the service made its post (kill -9 while the answer trickles), then
 * run again by the built vidpub with the video named another way (a symbolic
 * link, a relative path from elsewhere, the same file through a bind mount),
 * continues the cut-off run under its key: one post. A note written by the
 * previous vidpub (named by the path as given) still guards a rerun.
 *
 * The first run is the built bin, killed by a real SIGKILL; the rerun runs
 * in-process (runCli, in the directory the case names), a process other than
 * the one that left the note, except through the bind mount, where the rerun
 * is the built bin in a mount namespace of its own.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

const posts = async (): Promise<number> => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
};
const postsSent = async (): Promise<number> => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts').length;

/** A config and state directory, and a directory holding a copy of the clip. */
function place(): { env: Record<string, string>; dir: string; clip: string } {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-samefile-'));
  const dir = join(base, 'videos');
  mkdirSync(dir);
  const clip = join(dir, 'clip.mp4');
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), clip);
  return { env: { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), TZ: 'UTC', NO_COLOR: '1' }, dir, clip };
}

const ARGS = ['--to', 'linkedin', '--caption', 'Same file', '--no-input'];

/** `post <video>` in the built vidpub, killed (-9) once the service has made the post, while vidpub still waits for its answer. */
async function killedAfterPost(video: string, env: Record<string, string>): Promise<void> {
  const before = await posts();
  await emu.fault({ method: 'POST', path: '/v1/posts', action: 'trickle', ms: 60_000, times: 1 });
  const child = spawn(process.execPath, [BIN, 'post', video, ...ARGS], { cwd: ROOT, env: { ...process.env, ...emu.env(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const deadline = Date.now() + 30_000;
  while ((await posts()) === before) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the first run never posted; it said: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  await ended;
}

const CONTINUED = /An earlier run of this command, started .*, was cut off: continuing it under its key (vp-[\w-]+), so what it did is reported, not done twice\./;

/** The rerun (in-process in `cwd`; the built vidpub after `command` when given), with a deadline for the whole of it. */
async function rerun(video: string, env: Record<string, string>, opts: { cwd?: string; command?: string[] } = {}) {
  const started = Date.now();
  const argv = ['post', video, ...ARGS, '--json'];
  if (!opts.command) {
    // On a clock 20 times the wall's: the post it reports (or makes) is followed to its end without a second of the
    // wall between two looks at it.
    const r = await runCli(argv, { cwd: opts.cwd ?? ROOT, clock: scaledClock(20), env: { ...emu.env(), ...env } });
    return { status: r.code, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
  }
  const [cmd, ...args] = [...opts.command, process.execPath, BIN, ...argv];
  const r = await runAsync(cmd!, args, { cwd: opts.cwd, env: { ...process.env, ...emu.env(), ...env }, timeoutMs: 60_000 });
  return { ...r, ms: Date.now() - started };
}

async function onePostAfter(video: string, first: { env: Record<string, string> }, opts: { cwd?: string; command?: string[] } = {}, firstVideo?: string) {
  const before = await posts();
  await killedAfterPost(firstVideo ?? join(ROOT, 'test/fixtures/clip.mp4'), first.env);
  expect(await posts()).toBe(before + 1);
  expect(await postsSent()).toBe(1);
  const r = await rerun(video, first.env, opts);
  expect(r.stderr).toMatch(CONTINUED);
  expect(r.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
  expect(r.status).toBe(0);
  expect((JSON.parse(r.stdout) as { status: string }).status).toBe('completed');
  // one post at the service; the rerun's POST /posts was a replay of the first
  expect(await posts()).toBe(before + 1);
  expect(r.ms).toBeLessThan(30_000);
  return r;
}

describe('the same video by another name: a rerun continues the cut-off run', () => {
  it('through a symbolic link of another name: one post, one upload (the rerun knows the video by its content)', async () => {
    const p = place();
    const link = join(p.dir, 'latest.mp4');
    symlinkSync(p.clip, link);
    const before = await posts();
    await killedAfterPost(p.clip, p.env);
    const r = await rerun(link, p.env);
    expect(r.stderr).toMatch(CONTINUED);
    expect(r.status).toBe(0);
    expect(await posts()).toBe(before + 1);
    // The rerun knows the video by its content (the journal's fingerprint of the same file, whatever its name):
    // it uploads nothing, so the one upload request is the first run's.
    const uploads = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads');
    expect(uploads.map((u) => [u.status < 300, u.replayed])).toEqual([[true, false]]);
  });

  it('through a relative path from another directory: one post', async () => {
    const p = place();
    await onePostAfter('videos/clip.mp4', p, { cwd: join(p.dir, '..') }, p.clip);
  });

  it('through a relative path with .. and a linked directory: one post', async () => {
    const p = place();
    const linkedDir = join(p.dir, '..', 'linked');
    symlinkSync(p.dir, linkedDir);
    await onePostAfter('../linked/clip.mp4', p, { cwd: p.dir }, p.clip);
  });

  it.skipIf(process.getuid?.() !== 0 || missing('unshare', ['--help']))('through a bind mount (mount --bind under unshare -m): one post', async () => {
    const p = place();
    const mountPoint = join(p.dir, '..', 'workspace');
    mkdirSync(mountPoint);
    // The rerun sees the videos directory at another path, in a mount namespace of its own.
    const command = ['unshare', '-m', 'sh', '-c', 'mount --bind "$1" "$2" && shift 2 && exec "$@"', 'sh', p.dir, mountPoint];
    await onePostAfter(join(mountPoint, 'clip.mp4'), p, { command }, p.clip);
  });

  it('another file of the same size at the same path is not the same video: the rerun posts it (two posts)', async () => {
    const p = place();
    const before = await posts();
    await killedAfterPost(p.clip, p.env);
    // Replaced: a copy written next to it and renamed over it (a new inode and modification time).
    const other = join(p.dir, 'other.mp4');
    writeFileSync(other, readFileSync(p.clip));
    renameSync(other, p.clip);
    const r = await rerun(p.clip, p.env);
    expect(r.stderr).not.toMatch(CONTINUED);
    expect(r.status).toBe(0);
    expect(await posts()).toBe(before + 2);
  });

  it('a note written by the previous vidpub (named by the path as given) still guards a plain rerun', async () => {
    const p = place();
    const before = await posts();
    await killedAfterPost(p.clip, p.env);
    // Rename the note as the previous version named it: by the path as given, its size and mtime, without the other names.
    const runs = join(p.env.VIDPUB_STATE_DIR!, 'runs');
    const [name] = readdirSync(runs).filter((n) => n.endsWith('.json'));
    const note = JSON.parse(readFileSync(join(runs, name!), 'utf8')) as { also?: string[] };
    expect(note.also?.length).toBeGreaterThanOrEqual(2);
    // The last of `also` is the name the previous version gave it (the path as given).
    const legacy = note.also!.at(-1)!;
    delete note.also;
    writeFileSync(join(runs, `${legacy}${name!.slice(name!.indexOf('.'))}`), JSON.stringify(note) + '\n', { mode: 0o600 });
    renameSync(join(runs, name!), join(runs, `.moved-${createHash('sha1').update(name!).digest('hex')}`));
    const r = await rerun(p.clip, p.env);
    expect(r.stderr).toMatch(CONTINUED);
    expect(r.status).toBe(0);
    expect(await posts()).toBe(before + 1);
  });
});

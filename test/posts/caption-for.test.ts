/**
 * `post --caption-for DEST=TEXT`: one upload, one post per distinct caption,
 * reported together; a rerun after a kill between two posts makes only the
 * missing one; bad input and a caption over the limit stop before any upload.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { MAX_CAPTION_CHARS } from '../../src/contract/service-rules.js';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

const totals = async (): Promise<{ posts: number; media: number }> => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number }; media: { total: number } }[] };
  const demo = state.workspaces.find((w) => w.name === 'Demo')!;
  return { posts: demo.posts.total, media: demo.media.total };
};

function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-captions-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state') };
}

/** In-process, on a clock 20 times faster than the wall (the waits for each post to publish). */
const run = (args: string[], env: Record<string, string> = dirs()) => runCli(args, { clock: scaledClock(20), env: { ...emu.env(), ...env, TZ: 'UTC' } });
const SCENARIO = ['post', 'test/fixtures/clip.mp4', '--to', 'youtube,linkedin,tiktok', '--caption', 'base', '--caption-for', 'youtube=long text', '--option', 'tiktok:privacy=SELF_ONLY', '--no-input'];
const uploads = async () => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads').length;

/** The built bin, run without blocking the emulator in this process. */
function bin(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...emu.env(), ...env, TZ: 'UTC', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

type SetDoc = { posts: (Post & { error?: unknown })[] };

describe('post --caption-for', () => {
  it('through the real bin: one upload, a post per caption, --json lists both (exit 0)', async () => {
    const before = await totals();
    const uploadsBefore = await uploads();
    const r = await bin([...SCENARIO, '--json'], dirs());
    expect(r.stderr).toContain('caption for ');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as SetDoc;
    expect(doc.posts.map((p) => [p.caption, p.destinations.length, p.status])).toEqual([
      ['long text', 1, 'completed'],
      ['base', 2, 'completed'],
    ]);
    expect(doc.posts[0]!.media_id).toBe(doc.posts[1]!.media_id);
    expect(await uploads()).toBe(uploadsBefore + 1);
    expect(await totals()).toEqual({ posts: before.posts + 2, media: before.media + 1 });
  });

  it('kill -9 after the first post is made, then the same command: that post reported, the second made, 2 posts in all', async () => {
    const env = dirs();
    const before = await totals();
    // Following the first post hangs: the run is killed there, before the second post can be sent.
    await emu.fault({ method: 'GET', path: '/v1/posts/*', action: 'hang', times: 1 });
    const child = spawn(process.execPath, [BIN, ...SCENARIO], { cwd: ROOT, env: { ...process.env, ...emu.env(), ...env, TZ: 'UTC', NO_COLOR: '1' }, stdio: 'ignore' });
    const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const hung = async () => (await emu.requests()).some((q) => q.method === 'GET' && q.path.startsWith('/v1/posts/') && q.fault !== undefined);
    const deadline = Date.now() + 20_000;
    while (!(await hung())) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('vidpub never followed its first post');
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    await ended;
    expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });

    const r = await run([...SCENARIO, '--json'], env);
    expect(r.stderr).toMatch(/was created by the earlier run this one continues; reporting it\./);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as SetDoc).posts.map((p) => p.caption)).toEqual(['long text', 'base']);
    expect(await totals()).toEqual({ posts: before.posts + 2, media: before.media + 1 });
  });

  it('a caption file for a destination; a terminal-less pipe gets a line per post', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-captions-file-'));
    writeFileSync(join(dir, 'yt.txt'), 'from a file\n');
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'youtube,linkedin', '--caption', 'base', '--caption-file-for', `youtube=${join(dir, 'yt.txt')}`, '--no-input']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^post_\w+\tcompleted\tdst_\w+\tfrom a file$/);
    expect(lines[1]).toMatch(/^post_\w+\tcompleted\tdst_\w+\tbase$/);
  });

  it('one caption over the limit for one destination: exit 2 naming it, before any upload', async () => {
    const uploadsBefore = await uploads();
    const r = await run([...SCENARIO, '--caption-for', `linkedin=${'x'.repeat(MAX_CAPTION_CHARS + 1)}`]);
    expect(r.stderr).toMatch(/caption .*, for @\S+ \(linkedin\)/);
    expect(r.code).toBe(2);
    expect(await uploads()).toBe(uploadsBefore);
  });

  it.each([
    [['--caption-for', 'instagram=hi'], /--caption-for instagram=hi: instagram is not one of the destinations of --to \(youtube,linkedin,tiktok\)/],
    [['--caption-for', '=hi'], /--caption-for "=hi": give DEST=TEXT, DEST as --to names it/],
    [['--caption-for', 'youtube=again'], /--caption-for youtube=again: youtube already has a caption \(--caption-for youtube=…\)/],
  ])('bad input %j: exit 2 with the flag and value', async (extra, message) => {
    const uploadsBefore = await uploads();
    const r = await run([...SCENARIO, ...extra]);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(await uploads()).toBe(uploadsBefore);
  });

  it('two names of one destination (platform and id): exit 2 naming both', async () => {
    const r = await run([...SCENARIO, '--caption-for', 'dst_demo_youtube=other']);
    expect(r.stderr).toMatch(/--caption-for dst_demo_youtube=other: @\S+ \(youtube\) already has a caption \(--caption-for youtube=long text\)/);
    expect(r.code).toBe(2);
  });
});

describe('a caption for one destination over what it takes', () => {
  it('--caption-for a destination that would cut it: exit 2 before any upload, naming that destination', async () => {
    const { runCli } = await import('../support/cli.js');
    const { startTestEmulator } = await import('../support/emulator.js');
    const emu = await startTestEmulator({ processingMs: 20, publishMs: 20 });
    try {
      const r = await runCli(['post', 'test/fixtures/clip.mp4', '--to', 'youtube,@vidpub.demo', '--caption', 'base', '--caption-for', `@vidpub.demo=${'y'.repeat(2300)}`, '--option', '@vidpub.demo:privacy=SELF_ONLY', '--no-input'], { env: emu.env() });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('Error: the caption given for @vidpub.demo (tiktok) (--caption-for) has 2,300 characters and would be cut: @vidpub.demo (tiktok) takes 2,200; nothing was sent');
      expect((await emu.requests()).filter((q) => q.method === 'POST')).toEqual([]);
    } finally {
      await emu.close();
    }
  });
});

/**
 * A batch item whose video file changed since the run that posted it (today.mp4
 * replaced by another video of the same size): the rerun of the same manifest
 * stops with exit 2 naming the item before anything is
 * uploaded, never reporting the old post as this item's ("replayed"). With
 * --force-new (or force_new: true on the item) it is posted, once: a rerun
 * reports that post, touched or not (its key comes from the file's content). An unchanged item, and a post the journal recorded
 * without its file (an earlier vidpub), are replayed as before.
 * The runs are in-process (main(argv, ctx) with the same env), but the first
 * one, the built vidpub, and the rerun in a mount namespace of its own.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { batchLines } from '../support/batch.js';
import { missing } from '../support/tools.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

const CLIP = readFileSync(join(ROOT, 'test/fixtures/clip.mp4'));
/** The mdat box of the clip: its payload starts at byte 48 (after ftyp, free and the box header). */
const MDAT_PAYLOAD = 48;

/** A directory with today.mp4 and a manifest naming it; config and state of its own. */
function place(item: Record<string, unknown> = {}): { dir: string; manifest: string; video: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-changed-'));
  const video = join(dir, 'today.mp4');
  writeFileSync(video, CLIP);
  const manifest = join(dir, 'daily.jsonl');
  writeFileSync(manifest, JSON.stringify({ file: 'today.mp4', to: 'linkedin', caption: 'Today', ...item }) + '\n');
  return { dir, manifest, video, env: { VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), TZ: 'UTC', NO_COLOR: '1' } };
}

/** today.mp4 replaced by another video of the same size: written beside it and renamed over it, an hour later. */
function replace(video: string): void {
  const other = Buffer.from(CLIP);
  for (let i = MDAT_PAYLOAD; i < MDAT_PAYLOAD + 64; i++) other[i] = other[i]! ^ 0xff;
  const tmp = `${video}.new`;
  writeFileSync(tmp, other);
  const t = statSync(video).mtimeMs / 1000 + 3600;
  utimesSync(tmp, t, t);
  renameSync(tmp, video);
  expect(statSync(video).size).toBe(CLIP.length);
}

/**
 * `vidpub batch <manifest> --yes` in-process, on a clock 20 times faster than real time: its looks at
 * the video processing and the post publishing (a second apart) come 50 ms apart (the emulator takes
 * 20 ms for each), its deadlines (half an hour) stay far off.
 */
const batch = async (p: { manifest: string; env: Record<string, string> }, ...extra: string[]) => {
  const started = Date.now();
  const r = await runCli(['batch', p.manifest, '--yes', ...extra], { env: { ...process.env, ...emu.env(), ...p.env }, clock: scaledClock(20) });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
};

/** The same with the built vidpub. */
const batchBin = async (p: { manifest: string; env: Record<string, string> }) => {
  const started = Date.now();
  const r = await runAsync(process.execPath, [BIN, 'batch', p.manifest, '--yes'], { env: { ...process.env, ...emu.env(), ...p.env }, timeoutMs: 60_000 });
  return { ...r, ms: Date.now() - started };
};

const requests = async () => {
  const all = await emu.requests();
  return {
    uploads: all.filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads').length,
    puts: all.filter((q) => q.method === 'PUT').length,
    posts: all.filter((q) => q.method === 'POST' && q.path === '/v1/posts').length,
  };
};
const postsMade = async (): Promise<number> => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
};

const CHANGED = /item 1 \(line 1\): today\.mp4 changed since the run that posted it as post (post_\w+) \([^)]+\): it is another file now, or was modified\. Nothing of it was sent; to post the file as it is now, add "force_new: true" to the item \(or run the batch with --force-new\)/;

describe('a batch item whose file changed since the run that posted it', () => {
  it('is refused before anything is sent (exit 2, naming it), never replayed; --force-new posts it once, and reruns report that post', async () => {
    const p = place();
    const before = await postsMade();
    const first = await batchBin(p);
    expect(first.status).toBe(0);
    const [posted] = batchLines(first.stdout);
    expect(posted!.status).toBe('published');
    expect(await postsMade()).toBe(before + 1);

    replace(p.video);
    const sent = await requests();
    const again = await batch(p);
    expect(again.stderr).toMatch(/Error: 1 problem in .*daily\.jsonl; nothing was sent/);
    expect(again.stderr).toMatch(CHANGED);
    expect(CHANGED.exec(again.stderr)![1]).toBe(posted!.post_id);
    expect(again.status).toBe(2);
    expect(again.stdout).not.toMatch(/"replayed":\s*true/);
    expect(again.stdout.trim()).toBe('');
    expect(await requests()).toEqual(sent);
    expect(await postsMade()).toBe(before + 1);
    expect(again.ms).toBeLessThan(30_000);

    // --force-new: the new video is uploaded and posted, once.
    const forced = await batch(p, '--force-new');
    expect(forced.status).toBe(0);
    const [line] = batchLines(forced.stdout);
    expect(line!.status).toBe('published');
    expect(line!.replayed).toBeUndefined();
    expect(line!.post_id).not.toBe(posted!.post_id);
    expect(await postsMade()).toBe(before + 2);
    expect((await requests()).uploads).toBe(sent.uploads + 1);

    // The same manifest again, with or without --force-new: that post, reported, not a third.
    for (const extra of [['--force-new'], []]) {
      const rerun = await batch(p, ...extra);
      expect(rerun.status).toBe(0);
      const [l] = batchLines(rerun.stdout);
      expect(l!.post_id).toBe(line!.post_id);
      expect(l!.replayed).toBe(true);
      expect(await postsMade()).toBe(before + 2);
    }
  });

  it('force_new: true on the item posts it (per item)', async () => {
    const p = place();
    const before = await postsMade();
    expect((await batch(p)).status).toBe(0);
    replace(p.video);
    writeFileSync(p.manifest, JSON.stringify({ file: 'today.mp4', to: 'linkedin', caption: 'Today', force_new: true }) + '\n');
    const r = await batch(p);
    expect(r.stderr).not.toMatch(/changed since/);
    expect(r.status).toBe(0);
    const [l] = batchLines(r.stdout);
    expect(l!.status).toBe('published');
    expect(l!.replayed).toBeUndefined();
    expect(await postsMade()).toBe(before + 2);

    // Its key comes from the file's content, not its time (another machine's checkout, a touch):
    // touched, force_new still on, the rerun reports that post and posts nothing.
    const t = statSync(p.video).mtimeMs / 1000 + 60;
    utimesSync(p.video, t, t);
    const touched = await batch(p);
    expect(touched.status, touched.stderr).toBe(0);
    const [again] = batchLines(touched.stdout);
    expect([again!.post_id, again!.replayed]).toEqual([l!.post_id, true]);
    expect(await postsMade()).toBe(before + 2);
  });

  it('force_new that is not true or false is a problem of the item', async () => {
    const p = place({ force_new: 'maybe' });
    const r = await batch(p, '--dry-run');
    expect(r.stderr).toMatch(/item 1 \(line 1\): force_new must be true or false, not "maybe"/);
    expect(r.status).toBe(2);
  });

  it('the same file, unchanged, by another path (a linked directory): replayed, one post', async () => {
    const p = place();
    const before = await postsMade();
    expect((await batch(p)).status).toBe(0);
    // The manifest is read from a linked directory: the same relative path, the same file.
    const linked = `${p.dir}-linked`;
    symlinkSync(p.dir, linked);
    const r = await batch({ manifest: join(linked, 'daily.jsonl'), env: p.env });
    expect(r.status).toBe(0);
    expect(batchLines(r.stdout)[0]!.replayed).toBe(true);
    expect(await postsMade()).toBe(before + 1);
  });

  it.skipIf(process.getuid?.() !== 0 || missing('unshare', ['--help']))('the same file through a bind mount (mount --bind under unshare -m): not changed, replayed, one post', async () => {
    const p = place();
    const before = await postsMade();
    expect((await batch(p)).status).toBe(0);
    // The rerun sees the directory at another path (its real path another), in a mount namespace of its own.
    const mountPoint = `${p.dir}-mounted`;
    mkdirSync(mountPoint);
    const started = Date.now();
    const r = await runAsync(
      'unshare',
      ['-m', 'sh', '-c', 'mount --bind "$1" "$2" && shift 2 && exec "$@"', 'sh', p.dir, mountPoint, process.execPath, BIN, 'batch', join(mountPoint, 'daily.jsonl'), '--yes'],
      { env: { ...process.env, ...emu.env(), ...p.env }, timeoutMs: 60_000 },
    );
    expect(r.stderr).not.toMatch(/changed since/);
    expect(r.status).toBe(0);
    expect(batchLines(r.stdout)[0]!.replayed).toBe(true);
    expect(await postsMade()).toBe(before + 1);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a post the journal recorded without its file (an earlier vidpub) still guards the rerun: replayed, one post', async () => {
    const p = place();
    const before = await postsMade();
    expect((await batch(p)).status).toBe(0);
    // The journal as the previous version wrote it: no file_id on the post record.
    const files = readdirSync(p.env.VIDPUB_STATE_DIR!, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl'));
    let stripped = 0;
    for (const f of files) {
      const path = join(p.env.VIDPUB_STATE_DIR!, f);
      const text = readFileSync(path, 'utf8');
      const out = text.replace(/,"file_id":\{[^}]*\}/g, () => {
        stripped++;
        return '';
      });
      writeFileSync(path, out);
    }
    expect(stripped).toBeGreaterThan(0);
    const r = await batch(p);
    expect(r.status).toBe(0);
    expect(batchLines(r.stdout)[0]!.replayed).toBe(true);
    expect(await postsMade()).toBe(before + 1);
  });
});

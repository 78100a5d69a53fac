/**
 * A batch manifest with a caption per destination (`captions` in YAML/JSON, `caption:DEST` columns in
 * CSV): one upload per item, a post per distinct caption; --dry-run shows each destination's caption;
 * bad input refused with the item's line and exit 2, before anything is sent.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
let dir: string;

const env = () => ({ ...emu.env(), NO_COLOR: '1', TZ: 'UTC', VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state') });
const inProcess = (args: string[]) => runCli(args, { clock: scaledClock(20), cwd: dir, env: env() });
const writes = async (path: string) => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === path);

const YAML = `items:
  - file: clip.mp4
    to: [youtube, linkedin, tiktok]
    caption: base
    captions: {youtube: "long text"}
    options: {tiktok: {privacy: SELF_ONLY}, youtube: {visibility: unlisted}}
  - file: clip2.mp4
    to: [youtube, linkedin]
    captions: {youtube: "for youtube", linkedin: "for linkedin"}
    options: {youtube: {visibility: unlisted}}
`;

beforeAll(() => ensureBuilt(), 120_000);
beforeEach(async () => {
  await emu.reset();
  dir = mkdtempSync(join(tmpdir(), 'vidpub-captions-batch-'));
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), join(dir, 'clip.mp4'));
  // Another video (other bytes): an upload of its own.
  writeFileSync(join(dir, 'clip2.mp4'), Buffer.concat([readFileSync(join(ROOT, 'test/fixtures/clip.mp4')), Buffer.from('x')]));
});

describe('batch with captions per item', { timeout: 120_000 }, () => {
  it('through the real bin: one upload per item, a post per distinct caption', async () => {
    writeFileSync(join(dir, 'posts.yaml'), YAML);
    const r = await runAsync(process.execPath, [BIN, 'batch', 'posts.yaml', '--yes', '--json'], { env: { ...process.env, ...env() }, cwd: dir, timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.status).toBe(0);
    expect(await writes('/v1/media/uploads')).toHaveLength(2);
    expect(await writes('/v1/posts')).toHaveLength(4);
    const doc = JSON.parse(r.stdout) as { items: { item: number; status: string; posts: string[] }[] };
    expect(doc.items.map((i) => [i.item, i.status, i.posts.length])).toEqual([
      [1, 'published', 2],
      [2, 'published', 2],
    ]);
    // Each post as the service has it: its caption and destinations.
    const made = await Promise.all(doc.items.flatMap((i) => i.posts).map(async (id) => JSON.parse((await inProcess(['status', id, '--json'])).stdout) as { caption: string; media_id: string; destinations: { destination_id: string }[] }));
    expect(made.map((p) => [p.caption, p.destinations.map((d) => d.destination_id)])).toEqual([
      ['long text', ['dst_demo_youtube']],
      ['base', ['dst_demo_linkedin', 'dst_demo_tiktok']],
      ['for youtube', ['dst_demo_youtube']],
      ['for linkedin', ['dst_demo_linkedin']],
    ]);
    expect(made[0]!.media_id).toBe(made[1]!.media_id);
    expect(made[2]!.media_id).toBe(made[3]!.media_id);
  });

  it('a rerun past the service\'s 24 hours of keys: each caption\'s post read from the journal, nothing uploaded or posted again', async () => {
    writeFileSync(join(dir, 'posts.yaml'), YAML);
    const first = await inProcess(['batch', 'posts.yaml', '--yes', '--json']);
    expect(first.code, first.stderr).toBe(0);
    // 25 hours on at the service: it no longer knows the Idempotency-Keys; the journal is what remembers.
    await emu.advance(25 * 3600);
    const again = await inProcess(['batch', 'posts.yaml', '--yes', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(await writes('/v1/media/uploads')).toHaveLength(2);
    expect(await writes('/v1/posts')).toHaveLength(4);
    const items = (doc: string) => (JSON.parse(doc) as { items: { posts: string[]; replayed?: boolean }[] }).items;
    expect(items(again.stdout).map((i) => i.posts)).toEqual(items(first.stdout).map((i) => i.posts));
    expect(items(again.stdout).every((i) => i.replayed === true)).toBe(true);
  });

  it('--dry-run shows each destination\'s caption; a CSV caption:DEST column reads the same', async () => {
    writeFileSync(join(dir, 'posts.csv'), 'file,to,caption,caption:youtube,option:youtube:visibility\nclip.mp4,youtube;linkedin,base,long text,unlisted\n');
    const r = await inProcess(['batch', 'posts.csv', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/caption for @\S+ \(youtube\): long text/);
    expect(r.stdout).toMatch(/caption for @\S+ \(linkedin\): base/);
    const json = await inProcess(['batch', 'posts.csv', '--dry-run', '--json']);
    expect((JSON.parse(json.stdout) as { posts_needed: number; items: { captions: unknown }[] }).items[0]!.captions).toEqual([
      { caption: 'long text', destinations: ['dst_demo_youtube'] },
      { caption: 'base', destinations: ['dst_demo_linkedin'] },
    ]);
    expect(JSON.parse(json.stdout).posts_needed).toBe(2);
  });

  it.each([
    ['captions: {instagram: "hi"}', /item 1 \(line 2\): captions: "instagram" is not one of the item's destinations \(to: youtube, linkedin\)/],
    ['captions: {youtube: ""}', /item 1 \(line 2\): captions: the caption for "youtube" is empty/],
    ['captions: [hi]', /item 1 \(line 2\): captions must be a map of DEST: CAPTION/],
    [`captions: {youtube: "${'y'.repeat(5001)}"}`, /item 1 \(line 2\): the caption for @\S+ \(youtube\) has 5,001 characters: @\S+ \(youtube\) takes 5,000/],
  ])('bad input (%#): exit 2 with the item\'s line, nothing sent', async (captions, message) => {
    writeFileSync(join(dir, 'bad.yaml'), `items:\n  - file: clip.mp4\n    to: [youtube, linkedin]\n    caption: base\n    ${captions}\n    options: {youtube: {visibility: unlisted}}\n`);
    const r = await inProcess(['batch', 'bad.yaml', '--yes']);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(await writes('/v1/media/uploads')).toHaveLength(0);
  });

  it('no caption for a destination without its own: exit 2 naming it', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'items:\n  - file: clip.mp4\n    to: [youtube, linkedin]\n    captions: {youtube: "yt"}\n    options: {youtube: {visibility: unlisted}}\n');
    const r = await inProcess(['batch', 'bad.yaml', '--yes']);
    expect(r.stderr).toMatch(/item 1 \(line 2\): no caption for @\S+ \(linkedin\): give caption, or captions with "linkedin"/);
    expect(r.code).toBe(2);
  });
});

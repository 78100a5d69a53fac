import { readFileSync } from 'node:fs';
import { copyVideo } from '../support/video-copy.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { batchManifest } from '../support/batch.js';
import { checkVideoFile } from '../../src/media/check.js';
import { fileFingerprint, hashWholeFile, sampleKey } from '../../src/media/fingerprint.js';
import { createHash } from 'node:crypto';

const emu = useEmulator({ processingMs: 30 });
const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');

/** One machine: one config and journal dir for every run of a test. */
function machine() {
  const dir = tempConfigDir();
  const run = cliRunner(() => ({ env: { ...emu.env(), VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') }, clock: scaledClock(10) }));
  const copy = (name: string, change?: boolean) => copyVideo(CLIP, join(dir, name), change);
  const mediaRecords = () =>
    readFileSync(join(dir, 'state', 'journal.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"kind":"media"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { dir, run, copy, mediaRecords };
}

const puts = async () => (await emu.requests()).filter((r) => r.method === 'PUT').length;

describe('the content fingerprint', () => {
  it('is SHA-256 of the bytes, taken by the PUT and kept in the journal with the media id, size and ready time', async () => {
    const m = machine();
    const r = await m.run(['upload', m.copy('a.mp4'), '--json']);
    expect(r.code).toBe(0);
    const id = (JSON.parse(r.stdout) as { id: string }).id;
    const sha = createHash('sha256').update(readFileSync(CLIP)).digest('hex');
    const last = m.mediaRecords().at(-1)!;
    expect(last).toMatchObject({ media_id: id, sha256: sha, size: readFileSync(CLIP).length, status: 'ready' });
    expect(typeof last.ready_at).toBe('string');
    expect(await hashWholeFile(CLIP)).toBe(sha);
    // Known from the journal for the same file unchanged (no whole read needed), or hashed when not.
    const file = await checkVideoFile(join(m.dir, 'a.mp4'));
    expect(await fileFingerprint(undefined, file)).toBe(sha);
  });

  it('the cheap key differs for one byte changed in a sampled block, and is the same for a copy', async () => {
    const m = machine();
    const size = readFileSync(CLIP).length;
    expect(await sampleKey(m.copy('x.mp4'), size)).toBe(await sampleKey(CLIP, size));
    expect(await sampleKey(m.copy('y.mp4', true), size)).not.toBe(await sampleKey(CLIP, size));
  });
});

describe('uploads by content', () => {
  it('a copy under another name is not sent again: same media id, reused: true, said on stderr; --reupload sends it', async () => {
    const m = machine();
    const first = await m.run(['upload', m.copy('a.mp4'), '--json']);
    const id = (JSON.parse(first.stdout) as { id: string }).id;
    expect(await puts()).toBe(1);
    const again = await m.run(['upload', m.copy('b.mp4'), '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id, reused: true, status: 'ready' });
    expect(again.stderr).toMatch(new RegExp(`uses video ${id} uploaded \\d{4}-\\d\\d-\\d\\d; nothing to upload`));
    expect(await puts()).toBe(1);
    const forced = await m.run(['upload', m.copy('c.mp4'), '--json', '--reupload']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout).id).not.toBe(id);
    expect(await puts()).toBe(2);
  });

  it('one byte changed: uploaded', async () => {
    const m = machine();
    await m.run(['upload', m.copy('a.mp4')]);
    const r = await m.run(['upload', m.copy('b.mp4', true), '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).reused).toBeUndefined();
    expect(await puts()).toBe(2);
  });

  it('a video the service forgot (404) is forgotten and the file uploaded, said once', async () => {
    const m = machine();
    await m.run(['upload', m.copy('a.mp4')]);
    const gone = m.mediaRecords().at(-1)!.media_id as string;
    await emu.reset();
    const r = await m.run(['upload', m.copy('b.mp4'), '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr.split(`Video ${gone}`).length - 1).toBe(1);
    expect(r.stderr).toContain(`Video ${gone} (uploaded `);
    expect(r.stderr).toContain('is no longer known to the service; uploading the file again.');
    expect(await puts()).toBe(1);
    // Forgotten: the next copy reuses the new upload without asking about the old one.
    const next = await m.run(['upload', m.copy('c.mp4'), '--json']);
    expect(JSON.parse(next.stdout)).toMatchObject({ id: JSON.parse(r.stdout).id, reused: true });
    expect(next.stderr).not.toContain(gone);
  });

  it('a video that failed at the service is forgotten and the file uploaded', async () => {
    const m = machine();
    await emu.fault({ media_fail: 'broken' });
    const bad = await m.run(['upload', m.copy('broken.mp4')]);
    expect(bad.code).toBe(6);
    const failed = m.mediaRecords().at(-1)!.media_id as string;
    const r = await m.run(['upload', m.copy('good.mp4'), '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Video ${failed} (uploaded `);
    expect(r.stderr).toContain('failed at the service; uploading the file again.');
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ready' });
    expect(await puts()).toBe(2);
  });
});

describe('a rerun whose items share one file', () => {
  it('each item takes the video its own key uploaded, not another item\'s of the same content: its post is replayed, not refused', async () => {
    const { run } = machine();
    const manifest = batchManifest([1, 2].map((n) => ({ file: 'a.mp4', to: 'linkedin', caption: `shared file ${n}`, allow_duplicate: true })));
    // Both posts made at the service, their answers lost on the way (more often than the client retries): outcome unknown.
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 1000 });
    const first = await run(['batch', manifest, '--yes', '--no-wait']);
    expect(first.code, first.stderr).toBe(9);
    await emu.admin('DELETE', '/faults');
    const again = await run(['batch', manifest, '--yes', '--no-wait', '--json']);
    expect(again.stderr).not.toMatch(/another request under the same keys/);
    expect(again.code, again.stderr).toBe(0);
    const items = (JSON.parse(again.stdout) as { items: { media_id: string; post_id: string }[] }).items;
    // Two videos (one per item's key), each item's post made with its own, and no third post.
    expect(new Set(items.map((i) => i.media_id)).size).toBe(2);
    const posts = (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts' && r.status === 201 && !r.replayed);
    expect(posts).toHaveLength(2);
  });
});

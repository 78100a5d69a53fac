/**
 * The same video posted again by another command (issue "the same video"),
 * through the built bin against the emulator: a copy to the same destination
 * a day later (on the emulator's clock) is refused before any upload (exit 2,
 * naming the earlier post); --allow-duplicate posts it, without sending the
 * bytes again; another destination posts without asking and without a second
 * PUT; a file changed by one byte is uploaded and posted.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { copyVideo } from '../support/video-copy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');

beforeAll(() => ensureBuilt());

describe('the same video, through the bin', () => {
  it('a copy to the same destination a day later: exit 2 before any upload; --allow-duplicate; another destination; one byte changed', async () => {
    const base = mkdtempSync(join(tmpdir(), 'vidpub-same-'));
    const env = { ...process.env, ...emu.env(), VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), TZ: 'UTC', NO_COLOR: '1' };
    const vidpub = (...args: string[]) => runAsync(process.execPath, [BIN, ...args, '--no-input', '--no-wait'], { env });
    const file = (name: string, change = false) => copyVideo(CLIP, join(base, name), change);
    const count = async (what: (r: { method: string; path: string }) => boolean) => (await emu.requests()).filter(what).length;
    const puts = () => count((r) => r.method === 'PUT');
    const uploads = () => count((r) => r.method === 'POST' && r.path === '/v1/media/uploads');

    const first = await vidpub('post', file('a.mp4'), '--to', 'youtube', '--caption', 'first', '--json');
    expect(first.status, first.stderr).toBe(0);
    const firstPost = (JSON.parse(first.stdout) as { id: string }).id;
    expect(await puts()).toBe(1);

    await emu.advance(24 * 3600);
    const copy = file('b.mp4');
    const refused = await vidpub('post', copy, '--to', 'youtube', '--caption', 'second');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('b.mp4 was already posted to');
    expect(refused.stderr).toContain(`(post ${firstPost}); nothing was uploaded or posted`);
    expect(refused.stderr).toContain('--allow-duplicate');
    expect(await uploads()).toBe(1);

    const allowed = await vidpub('post', copy, '--to', 'youtube', '--caption', 'second', '--allow-duplicate', '--json');
    expect(allowed.status, allowed.stderr).toBe(0);
    const second = JSON.parse(allowed.stdout) as { id: string };
    expect(second.id).not.toBe(firstPost);
    expect(allowed.stderr).toMatch(/uses video med_\w+ uploaded \d{4}-\d\d-\d\d; nothing to upload/);
    const journal = readFileSync(join(base, 'state', 'journal.jsonl'), 'utf8');
    expect(journal).toContain(`"post_id":"${second.id}"`);
    expect(await puts()).toBe(1);

    const elsewhere = await vidpub('post', copy, '--to', 'linkedin', '--caption', 'third');
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    expect(await puts()).toBe(1);
    expect(await uploads()).toBe(1);

    const changed = await vidpub('post', file('c.mp4', true), '--to', 'youtube', '--caption', 'fourth');
    expect(changed.status, changed.stderr).toBe(0);
    expect(await puts()).toBe(2);
  });
});

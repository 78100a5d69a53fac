/**
 * A reader that stops early: `vidpub post FILE --events | head -3` through the real bin and a real pipe.
 * head leaves after the upload's first events; the post goes on (its events written into the closed pipe
 * are dropped: EPIPE is no failure), ends as it would have, and vidpub exits with the post's own code (0
 * here), with no stack trace.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents } from '../support/events.js';

// Processing and publishing take a while after the upload: most events are written once head has gone.
const emu = useEmulator({ processingMs: 150, publishMs: 300 });

describe('--events | head -3 (real bin, real pipe)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('the post is made and followed to its end; exit 0; no stack trace', async () => {
    const home = mkdtempSync(join(tmpdir(), 'vidpub-events-pipe-'));
    const env = { ...process.env, ...emu.env(), VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_STATE_DIR: join(home, 'state'), VIDPUB_NO_CACHE: '1', NO_COLOR: '1' };
    const clip = join(ROOT, 'test', 'fixtures', 'clip.mp4');
    const script = `{ "$0" "${BIN}" post "${clip}" --to linkedin --caption pipe --yes --events; echo "vidpub exit $?" >&2; } | { head -3; echo "head gone" >&2; }`;
    const r = await runAsync('bash', ['-c', script, process.execPath], { env });
    expect(r.status).toBe(0);
    const events = expectEvents(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['media.uploading', 'media.uploading', 'media.processing']);
    // head left before vidpub ended, and vidpub ended with the post's code.
    expect(r.stderr.indexOf('head gone')).toBeGreaterThanOrEqual(0);
    expect(r.stderr.indexOf('head gone')).toBeLessThan(r.stderr.indexOf('vidpub exit 0'));
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at |Error:/);
    // What the post became: published at the service, and the journal (read as it is on disk) knows it.
    const journal = readFileSync(join(home, 'state', 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; post_id?: string; outcome?: string });
    const id = journal.find((r) => r.kind === 'post')!.post_id!;
    expect(journal.filter((r) => r.post_id === id).at(-1)).toMatchObject({ kind: 'status', outcome: 'published' });
    const at = await emu.api.as(emu.key()).get(`/posts/${id}`);
    expect(at.body).toMatchObject({ status: 'completed', destinations: [{ status: 'published' }] });
  }, 30_000);
});

/**
 * A reader that stops early: `vidpub post FILE --events | head -3` through the real bin and a real pipe.
 * head leaves after the upload's first events; the post goes on (its events written into the closed pipe
 * are dropped: EPIPE is no failure), ends as it would have, and vidpub exits with the post's own code (0
 * here), with no stack trace.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
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
    // What the post became: published, and the journal knows it.
    const last = await runCli(['history', '--json'], { env: { ...emu.env(), VIDPUB_CONFIG_DIR: env.VIDPUB_CONFIG_DIR, VIDPUB_STATE_DIR: env.VIDPUB_STATE_DIR } });
    const [post] = JSON.parse(last.stdout) as { id: string; state?: string; status?: string }[];
    const at = await runCli(['status', post!.id, '--json'], { env: emu.env() });
    expect(JSON.parse(at.stdout)).toMatchObject({ status: 'completed', destinations: [{ status: 'published' }] });
    expect(JSON.stringify(post)).toMatch(/published/);
  }, 30_000);
});

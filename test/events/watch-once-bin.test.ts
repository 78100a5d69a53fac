/**
 * `vidpub watch --once --json` through the real bin against the emulator, on its clock and its
 * destination_fail fault (issue #45's first "Done when"): a post scheduled for +1 h to two
 * destinations, one made to fail; the emulator's clock moved past it; watch prints the published
 * and the failed events (each valid against the schema) and exits 6 naming the retry; a second run
 * prints nothing and exits 0; two runs started together report each event of a later post once
 * between them. The posts are made in-process (the same journal), the watches are the built bin.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents, publishedAtService } from '../support/events.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

describe('vidpub watch --once (real bin, emulator clock)', () => {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-watch-'));
  const env = () => ({ ...emu.env(), VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_STATE_DIR: join(home, 'state'), VIDPUB_NO_CACHE: '1', NO_COLOR: '1' });
  const watch = (...extra: string[]) => runAsync(process.execPath, [BIN, 'watch', '--once', ...extra], { env: { ...process.env, ...env() } });

  /** A post in an hour (by the emulator's clock) to LinkedIn and YouTube, made through the in-process CLI (it journals it). */
  async function scheduled(inSec: number): Promise<string> {
    const at = new Date((await emu.api.clockNow()) + inSec * 1000).toISOString();
    const r = await runCli(
      ['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--caption', 'launch', '--option', 'youtube:visibility=unlisted', '--at', at, '--yes', '--json', 'id,status'],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'scheduled' });
    return (JSON.parse(r.stdout) as { id: string }).id;
  }

  beforeAll(() => ensureBuilt(), 120_000);

  it('reports the published and the failed destination once, exits 6, then nothing and 0; two runs together share the events', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const first = await scheduled(3600);
    const second = await scheduled(7200);

    // Nothing due yet: nothing read, nothing printed.
    const early = await watch('--json');
    expect([early.status, early.stdout]).toEqual([0, '']);
    expect(early.stderr).toMatch(/Watch: 0 posts read, 0 new events, 2 not due yet/);

    await emu.advance(3660);
    await publishedAtService(emu.api.as(emu.key()), [first]);
    const r1 = await watch('--json');
    const events = expectEvents(r1.stdout);
    expect(events.map((e) => [e.type, e.post_id, e.destination_id])).toEqual([
      ['post.destination.published', first, 'dst_demo_linkedin'],
      ['post.destination.failed', first, 'dst_demo_youtube'],
      ['post.failed', first, undefined],
    ]);
    expect(events[0]!.url).toContain(`/published/${first}/dst_demo_linkedin`);
    expect(r1.stderr).toMatch(/A destination newly failed: @vidpubdemo \(youtube\) of post_\w+ failed/);
    expect(r1.stderr).toContain(`vidpub retry ${first}`);
    expect(r1.status).toBe(6);

    const r2 = await watch('--json');
    expect([r2.status, r2.stdout]).toEqual([0, '']);

    await emu.advance(3660);
    await publishedAtService(emu.api.as(emu.key()), [second]);
    const [a, b] = await Promise.all([watch('--json'), watch('--json')]);
    const together = [...expectEvents(a.stdout), ...expectEvents(b.stdout)];
    expect(together.map((e) => `${e.type} ${e.destination_id ?? ''}`).sort()).toEqual(['post.destination.failed dst_demo_youtube', 'post.destination.published dst_demo_linkedin', 'post.failed '].sort());
    expect(together.every((e) => e.post_id === second)).toBe(true);
    expect(new Set(together.map((e) => e.id)).size).toBe(3);
    // The one that reported the failure exits 6; the other 0 (or 6 too, if each saw a part with the failure: never both reporting it).
    expect([a.status, b.status].filter((s) => s === 6)).toHaveLength(1);
  }, 60_000);
});

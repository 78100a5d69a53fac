/**
 * Identical runs settle together (issue 52): when the run they wait for ends with its post made,
 * every waiter reads that post from the journal (the run's note names it) and reports it, without
 * replaying the first run's writes; only a run whose journal has no outcome replays through the
 * service. The scale case (50 runs) is bench/shared-key.bench.mjs's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { dirs, post, postId, postsMadeOn, vidpubOn } from './live-run-helpers.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

describe('identical runs settle together', () => {
  it('8 identical runs started together: 1 post, all exit 0 reporting it, at most 1 write replayed', async () => {
    const env = dirs();
    const args = post('Eight together', '--no-wait');
    const runs = await Promise.all(Array.from({ length: 8 }, () => vidpubOn(emu, args, env).ended));
    const all = runs.map((r) => r.stderr).join('\n');
    expect(runs.map((r) => r.code), all).toEqual(Array(8).fill(0));
    const ids = new Set(runs.map((r) => postId(r.stdout)));
    expect(ids.size, all).toBe(1);
    expect([...ids][0]).toMatch(/^post_/);
    expect(await postsMadeOn(emu)).toBe(1);
    const log = await emu.requests();
    const replayedWrites = log.filter((q) => q.method === 'POST' && q.replayed).length;
    expect(replayedWrites, all).toBeLessThanOrEqual(1);
    // One upload session, not one per run.
    expect(log.filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads' && !q.replayed).length).toBe(1);
    // The waiters said where the post came from.
    expect(all).toMatch(/made post post_\w+ \(key [\w-]+\): reporting it as it is now; nothing was uploaded or posted again/);
  }, 60_000);
});

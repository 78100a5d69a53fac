/**
 * A cut-off `post` is continued by the same command in the same workspace,
 * whichever of its keys runs it: the service replays an Idempotency-Key per
 * workspace, so a key rotated between the runs (or another profile's key of
 * that workspace) must not make the rerun a second post.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultFixture } from '../../src/emulator/index.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const ROTATED = 'vp_live_demo_rotated_Q1w2E3r4T5y6';
const fixture = defaultFixture();
fixture.workspaces.find((w) => w.name === 'Demo')!.keys.push({ key: ROTATED, name: 'Demo read/write (new)', access: 'read_write', revoked: false, created_at: '2025-06-01T09:00:00.000Z' });
const emu = useEmulator({ processingMs: 20, publishMs: 20, fixture });

function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-cutoff-ws-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_CACHE_DIR: join(base, 'cache'), TZ: 'UTC' };
}
const run = (args: string[], env: Record<string, string>) => runCli(args, { clock: scaledClock(20), env: { VIDPUB_BASE_URL: emu.baseUrl, ...env } });

const postsTotal = async () => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
};

const ARGS = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'Rotated', '--no-input', '--no-wait', '--timeout', '60s'];

/** ARGS with `key`, its POST /posts made but its answer lost on every attempt: exit 9. */
async function cutOff(env: Record<string, string>, key: string): Promise<void> {
  await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
  const first = await run(ARGS, { ...env, VIDPUB_API_KEY: key });
  expect(first.stderr).toMatch(/The outcome is unknown: the post may have been created/);
  expect(first.code).toBe(9);
  await emu.admin('DELETE', '/faults');
}

describe('a cut-off post continued with another key of the same workspace', () => {
  it('the key rotated between the runs: the rerun as typed continues the run and reports its post (one post)', async () => {
    const env = dirs();
    const before = await postsTotal();
    await cutOff(env, emu.key());

    const r = await run([...ARGS, '--json'], { ...env, VIDPUB_API_KEY: ROTATED });
    expect(r.stderr).toMatch(/An earlier run of this command, started .* \(\S+Z\), ended without knowing whether it posted: continuing it under its key vp-[\w-]+/);
    expect(r.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
    expect(r.code).toBe(0);
    expect(await postsTotal()).toBe(before + 1);
    expect(readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).filter((n) => !n.endsWith('.done'))).toEqual([]);
  });

  it('a run whose workspace could not be read (GET /me failing) is found by its key: the same key continues it', async () => {
    const env = dirs();
    const before = await postsTotal();
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'status', status: 500, times: 20, retry_after: null });
    await cutOff(env, emu.key());
    await emu.admin('DELETE', '/faults');

    const r = await run([...ARGS, '--json'], { ...env, VIDPUB_API_KEY: emu.key() });
    expect(r.stderr).toMatch(/ended without knowing whether it posted: continuing it under its key vp-[\w-]+/);
    expect(r.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
    expect(r.code).toBe(0);
    expect(await postsTotal()).toBe(before + 1);
    expect(readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).filter((n) => !n.endsWith('.done'))).toEqual([]);
  });
});

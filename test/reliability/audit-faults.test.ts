/**
 * Faults found by an audit of the unattended commands, each over real HTTP
 * against the emulator: what the command says, its exit code, and (from
 * /_emulator/state) that nothing was created twice.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 30 });

const postsTotal = async (): Promise<number> => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
};

describe('a write whose first attempt got no answer', () => {
  it('a 429 on the retry beyond --max-wait is an unknown outcome (exit 9 with the rerun), not "rate limited"', async () => {
    const before = await postsTotal();
    // The first attempt creates the post but its answer is lost; the retry is refused for the minute's allowance.
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 1 });
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 429, retry_after: 30, times: 1 });
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input', '--max-wait', '5s'];
    const r = await runCli(args, { env: emu.env() });
    expect(r.stderr).toMatch(/The outcome is unknown: the post may have been created \(video med_demo_sample\)/);
    expect(r.stderr).not.toMatch(/Try again in 30s/);
    const rerun = /Rerun to settle it \(nothing is done twice\): vidpub (.*) --idempotency-key (vp-\S+)/.exec(r.stderr);
    expect(rerun).not.toBeNull();
    expect(r.stdout).toBe('med_demo_sample\n');
    expect(r.code).toBe(9);
    expect(await postsTotal()).toBe(before + 1);

    // The printed rerun reports the post the first attempt made: still one post.
    const again = await runCli([...args, '--idempotency-key', rerun![2]!], { env: emu.env() });
    expect(again.stderr).toMatch(/Post post_\w+ was already created by an earlier run with this --idempotency-key; reporting it\./);
    expect(again.code).toBe(0);
    expect(await postsTotal()).toBe(before + 1);
  });
});

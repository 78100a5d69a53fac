/**
 * The line exit 9 prints ("Rerun to settle it ...") reruns exactly the
 * command that was typed, whatever its values look like: a caption that is
 * literally "--at" or "--idempotency-key" is a value, not a flag. Each test
 * runs the printed line as a shell reads it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

const env = () => {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-rerun-line-'));
  return { ...emu.env(), VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), TZ: 'UTC' };
};
const run = (args: string[], e: Record<string, string>) => runCli(args, { clock: scaledClock(20), env: e });

/** The words a POSIX shell makes of `line`. */
const words = (line: string): string[] => execFileSync('sh', ['-c', 'eval "set -- $1"; printf "%s\\0" "$@"', 'sh', line], { encoding: 'utf8' }).split('\0').slice(0, -1);

const postsTotal = async () => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
};

/** Runs `args`, whose POST /posts takes effect but whose answer is lost on every attempt (exit 9); returns the printed rerun's words. */
async function cutOff(args: string[], e: Record<string, string>): Promise<{ rerun: string[]; stderr: string }> {
  await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
  const first = await run(args, e);
  expect(first.stderr).toMatch(/The outcome is unknown: the post may have been created/);
  expect(first.code).toBe(9);
  await emu.admin('DELETE', '/faults');
  // With --json the line is the document's "rerun" (stdout); else it follows the error (stderr).
  const line = args.includes('--json') ? (JSON.parse(first.stdout) as { rerun?: string }).rerun : /^Rerun to settle it \(nothing is done twice\): (vidpub .*)$/m.exec(first.stderr)?.[1];
  expect(line).toBeDefined();
  const rerun = words(line!);
  expect(rerun[0]).toBe('vidpub');
  return { rerun: rerun.slice(1), stderr: first.stderr };
}

describe('the rerun line of exit 9', () => {
  it('a caption that is literally "--at", with a relative --at: the line keeps the caption and carries the time sent', async () => {
    const e = env();
    const before = await postsTotal();
    const args = ['post', '--media', 'med_demo_sample', '--caption', '--at', '--at', 'in 2h', '--to', 'linkedin', '--no-input', '--timeout', '60s'];
    const { rerun, stderr } = await cutOff(args, e);
    const sentAt = /^Posting .*\((\S+Z)\)$/m.exec(stderr)?.[1];
    expect(rerun.slice(0, 5)).toEqual(['post', '--media', 'med_demo_sample', '--caption', '--at']);

    // On another machine (no note of this run): the line alone settles it.
    const again = await run([...rerun, '--json'], env());
    expect(again.stderr).toMatch(/Post post_\w+ was already created by an earlier run with this --idempotency-key; reporting it\./);
    expect(again.code).toBe(0);
    const post = JSON.parse(again.stdout) as Post;
    expect(post.caption).toBe('--at');
    expect(Date.parse(post.publish_at!)).toBe(Date.parse(sentAt!));
    expect(await postsTotal()).toBe(before + 1);
  });

  it('a caption that is literally "--idempotency-key" stays; only the flag of that name is replaced; --json FIELDS stays', async () => {
    const e = env();
    const before = await postsTotal();
    const args = ['post', '--media', 'med_demo_sample', '--caption', '--idempotency-key', '--to', 'linkedin', '--json', 'id,caption', '--no-input', '--no-wait', '--timeout', '60s'];
    const { rerun } = await cutOff(args, e);
    expect(rerun).toContain('id,caption');

    const again = await run(rerun, env());
    expect(again.stderr).toMatch(/Post post_\w+ was already created by an earlier run with this --idempotency-key; reporting it\./);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ id: expect.stringMatching(/^post_\w+$/), caption: '--idempotency-key' });
    expect(await postsTotal()).toBe(before + 1);
  });
});

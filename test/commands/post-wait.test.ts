/**
 * Waiting for a post that takes its time (each destination takes 30 s to
 * publish here): Ctrl-C and --timeout stop the waiting, not the post.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/api/types.js';
import { runCli, scaledClock } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 30_000 });

beforeEach(async () => {
  await emu.reset();
});

describe('vidpub post while waiting', () => {
  it('Ctrl-C: exit 130, the post id printed with how to look again; the post goes on', async () => {
    const controller = new AbortController();
    const r = await runCli(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x'], {
      env: { ...emu.env(), TZ: 'UTC' },
      clock: scaledClock(20),
      signal: controller.signal,
      onStderr: (s) => {
        if (/\(linkedin\): publishing/.test(s)) controller.abort(Object.assign(new Error('received SIGINT'), { name: 'AbortError' }));
      },
    });
    expect(r.code).toBe(130);
    const id = /^id\t(post_\w+)$/m.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    expect(r.stdout).toMatch(/^status\tpublishing$/m);
    expect(r.stderr).toMatch(new RegExp(`Error: Interrupted: stopped waiting for post ${id}; it goes on at the service\\.\\nCheck on it later with: vidpub status ${id} --wait`));
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { publishing: number } }[] };
    expect(state.workspaces.find((w) => w.name === 'Demo')!.posts.publishing).toBe(1);
  });

  it('--timeout: exit 7 naming the post and "vidpub status <id> --wait"; --json still gives the record', async () => {
    // --timeout is the budget of the whole command (upload included): 20 s at 10x is 2 s of real time.
    const r = await runCli(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--timeout', '20s', '--json'], {
      env: { ...emu.env(), TZ: 'UTC' },
      clock: scaledClock(10),
    });
    expect(r.code).toBe(7);
    const post = JSON.parse(r.stdout) as Post;
    expect(post.status).toBe('publishing');
    expect(r.stderr).toMatch(new RegExp(`Error: Stopped waiting for post ${post.id} after 20s \\(--timeout\\); it goes on at the service\\.\\nCheck on it later with: vidpub status ${post.id} --wait`));
  });
});

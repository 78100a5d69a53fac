/**
 * Waiting for a post that takes its time (each destination takes 30 s to
 * publish here): Ctrl-C and --timeout stop the waiting, not the post.
 */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { runCli } from '../support/cli.js';
import { manualClock, scaledClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 30_000 });


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
    // the line that continues the run comes before the hint: the plain command continues it too, here
    expect(r.stderr).toMatch(
      new RegExp(
        `Error: Interrupted: stopped waiting for post ${id}; it goes on at the service\\.\\n` +
          'Rerun to continue it \\(nothing is done twice\\): vidpub post test/fixtures/clip\\.mp4 --to linkedin --caption x --idempotency-key vp-[\\w-]+\\n' +
          `Check on it later with: vidpub status ${id} --wait`,
      ),
    );
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { publishing: number } }[] };
    expect(state.workspaces.find((w) => w.name === 'Demo')!.posts.publishing).toBe(1);
  });

  it('--timeout: exit 7 naming the post and "vidpub status <id> --wait"; --json still gives the record', async () => {
    // --timeout is the budget of the whole command (upload included). It runs out on a clock moved by the test, once
    // the post is made and being watched (the looks at the video processing before it ended as they begin): in the
    // wait for the post, however slow the machine, and far short of its 30 s publish.
    const clock = manualClock(Date.now());
    const running = runCli(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--timeout', '20s', '--json'], {
      env: { ...emu.env(), TZ: 'UTC' },
      clock,
    });
    const watched = async () => (await emu.requests()).some((q) => q.method === 'GET' && /^\/v1\/posts\/post_/.test(q.path));
    await timeUpWhen(clock, 20_000, watched, { meanwhile: true });
    const r = await running;
    expect(r.code).toBe(7);
    const post = JSON.parse(r.stdout) as Post;
    expect(post.status).toBe('publishing');
    // with --json the error is one JSON object on stderr
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { message: string; hint: string; exit_code: number } };
    expect(error).toMatchObject({
      message: `Stopped waiting for post ${post.id} after 20s (--timeout); it goes on at the service.`,
      hint: `Check on it later with: vidpub status ${post.id} --wait`,
      exit_code: 7,
    });
  });
});

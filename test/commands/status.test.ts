import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { cliRunner } from '../support/cli.js';
import { manualClock, scaledClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator({ processingMs: 20, publishMs: 300 });

const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'UTC' } }));

async function publishNow(destinations: string[]): Promise<Post> {
  const r = await emu.api.post<Post>('/posts', {
    media_id: 'med_demo_sample',
    caption: 'status',
    destinations: destinations.map((destination_id) => ({ destination_id })),
    publish_at: 'now',
  });
  expect(r.status).toBe(201);
  return r.body;
}


describe('vidpub status', () => {
  it('shows the post and each destination once, without waiting (exit 0)', async () => {
    const p = await publishNow(['dst_demo_linkedin']);
    const r = await run(['status', p.id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^id\\t${p.id}$`, 'm'));
    expect(r.stdout).toMatch(/^@vidpub-demo \(linkedin\)\t(publishing|published)\t/m);
    expect(r.stdout).toMatch(/^review_url\thttp/m);
  });

  it('--wait follows it to the end: urls and warnings shown (exit 0)', async () => {
    const long = 'x'.repeat(3100); // longer than the LinkedIn caption limit: a warning when published
    const created = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: long, destinations: [{ destination_id: 'dst_demo_linkedin' }], publish_at: 'now' });
    const r = await run(['status', created.body.id, '--wait']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status\tcompleted$/m);
    expect(r.stdout).toMatch(/^@vidpub-demo \(linkedin\)\tpublished\thttp\S+\tThe caption was cut to 3000 characters\. \(caption_truncated\)\t$/m);
  });

  it('--wait on a post with a failed destination: exit 6 with the failure', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const p = await publishNow(['dst_demo_linkedin', 'dst_demo_youtube']);
    const r = await run(['status', p.id, '--wait', '--json']);
    expect(r.code).toBe(6);
    const post = JSON.parse(r.stdout) as Post;
    expect(post.destinations.find((d) => d.destination_id === 'dst_demo_linkedin')).toMatchObject({ status: 'failed', failure: { code: 'platform_rejected' } });
    // with --json the error is one JSON object on stderr
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { type: string; message: string; exit_code: number } };
    expect(error).toMatchObject({ type: 'failed', exit_code: 6 });
    expect(error.message).toMatch(/^Post post_\w+: 1 of 2 destinations did not publish: @vidpub-demo \(linkedin\) failed \(linkedin refused the video/);
  });

  it('--wait on a cancelled destination: exit 6', async () => {
    const p = await publishNow(['dst_demo_linkedin']);
    await emu.admin('POST', `/posts/${p.id}/cancel`);
    const r = await run(['status', p.id, '--wait']);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/did not publish: @vidpub-demo \(linkedin\) cancelled/);
  });

  it('--wait with --timeout: exit 7 naming the post', async () => {
    await emu.admin('POST', '/settings', { publish_ms: 60_000 });
    try {
      const slow = await publishNow(['dst_demo_youtube']);
      // The 3 s run out on a clock that moves only when told, once vidpub has read the post and waits to look
      // again (the emulator's log shows the read; a sleep other than the deadline's has begun): the time up
      // falls in the wait however slow the machine, as it would on a quiet one.
      const clock = manualClock();
      const running = run(['status', slow.id, '--wait', '--timeout', '3s'], { clock });
      await timeUpWhen(clock, 3000, async () => (await emu.requests()).some((q) => q.method === 'GET' && q.path === `/v1/posts/${slow.id}`));
      const r = await running;
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(new RegExp(`Error: Stopped waiting for post ${slow.id} after 3s \\(--timeout\\); it goes on at the service\\.\\nCheck on it later with: vidpub status ${slow.id} --wait`));
    } finally {
      await emu.admin('POST', '/settings', { publish_ms: 300 });
    }
  });

  it('--wait on a post with nothing to say when it ends: looks at 1 s, then 0.5 s growing 1.25x (0.63 s, 0.78 s…)', async () => {
    await emu.admin('POST', '/settings', { publish_ms: 60_000 });
    try {
      const slow = await publishNow(['dst_demo_youtube']);
      // On a clock that moves only when told: each pause between two looks is read as vidpub asks for it, then let run.
      const clock = manualClock();
      const running = run(['status', slow.id, '--wait', '--timeout', '10m'], { clock });
      const reads = async () => (await emu.requests()).filter((q) => q.method === 'GET' && q.path === `/v1/posts/${slow.id}`).length;
      const pauses: number[] = [];
      for (let i = 1; i <= 5; i++) {
        await waitFor(async () => (await reads()) === i && clock.pending().some((ms) => ms !== 600_000), (waiting) => waiting, 60_000);
        const pause = clock.pending().find((ms) => ms !== 600_000)!;
        pauses.push(pause);
        clock.tick(pause);
      }
      expect(pauses).toEqual([1000, 500, 625, 781, 976]);
      clock.tick(600_000);
      expect((await running).code).toBe(7);
    } finally {
      await emu.admin('POST', '/settings', { publish_ms: 300 });
    }
  });

  it('a draft with --wait: nothing to wait for', async () => {
    const d = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'd', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
    const r = await run(['status', d.body.id, '--wait']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/is a draft: nothing to wait for\. Publish it with: vidpub publish/);
  });

  it('an unknown post: exit 5', async () => {
    const r = await run(['status', 'post_nope']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/Error: Not found: No post with id "post_nope"/);
  });
});

describe('status of a video', () => {
  it('at a terminal: size and duration with their units; in a pipe: the record\'s numbers', async () => {
    const tty = await run(['status', 'med_demo_sample'], { tty: { stdout: true, stderr: true, stdin: false }, env: { NO_COLOR: '1' } });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/Size:\s+4\.2 MB\n/);
    expect(tty.stdout).toMatch(/Duration:\s+15 s\n/);
    const pipe = await run(['status', 'med_demo_sample']);
    expect(pipe.code).toBe(0);
    expect(pipe.stdout).toContain('size_bytes\t4200000\n');
    expect(pipe.stdout).toContain('duration_sec\t15\n');
  });
});

/**
 * SIGINT, SIGTERM and SIGHUP, sent to the real binary as cron, CI and a closed
 * terminal send them: the same clean stop (a message naming the ids and the
 * next command), and an exit code per signal: 130, 143, 129.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPLETE_GRACE_MS } from '../../src/media/upload-flow.js';
import { ensureBuilt } from '../support/build.js';
import { tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { signalWhen, spawnWatched, type Ended } from '../support/spawned.js';

const emu = useEmulator({ processingMs: 20, publishMs: 30_000 });

beforeAll(() => ensureBuilt());

/** Runs vidpub and sends `signal` once stderr matches `when`, or once `when()` holds; resolves with how it ended. */
const runUntil = (args: string[], when: RegExp | (() => Promise<boolean>), signal: NodeJS.Signals): Promise<Ended> =>
  signalWhen(spawnWatched(args, { ...emu.env(), VIDPUB_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' }), when, signal);

/** The emulator holds a POST to `path` (a delay fault), as its request log shows. */
const held = (path: string) => () => emu.took('delay', 'POST', path);

describe('signals', () => {
  const cases: [NodeJS.Signals, number][] = [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ];
  for (const [signal, code] of cases) {
    it(`${signal} while a post is watched: exit ${code}, the record on stdout, the next command on stderr`, async () => {
      const r = await runUntil(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--json', '--no-input'], /youtube\): publishing/, signal);
      expect(r.code).toBe(code);
      const post = JSON.parse(r.stdout) as { id: string; status: string };
      expect(post).toMatchObject({ id: expect.stringMatching(/^post_/), status: 'publishing' });
      // With --json the error is one JSON object on stderr: the message, the next command, the exit code.
      const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: Record<string, unknown> };
      expect(error).toMatchObject({
        type: 'interrupted',
        message: `Interrupted: stopped waiting for post ${post.id}; it goes on at the service.`,
        hint: `Check on it later with: vidpub status ${post.id} --wait`,
        exit_code: code,
      });
    });
  }

  it('SIGTERM once every byte has arrived: the complete still goes through, then exit 143 naming the video', async () => {
    // Sent once the emulator holds the complete (its log; after the "100%" line the run may not have sent it
    // yet). The answer comes at most 650 ms after the signal, within the COMPLETE_GRACE_MS the run gives it.
    expect(COMPLETE_GRACE_MS).toBeGreaterThan(650);
    await emu.fault({ method: 'POST', path: '/v1/media/med_*', action: 'delay', ms: 650 });
    const r = await runUntil(['upload', 'test/fixtures/clip.mp4'], held('/v1/media/med_*'), 'SIGTERM');
    expect(r.stderr).toMatch(/Interrupted: stopped waiting for video (med_\w+)/);
    expect(r.code).toBe(143);
    const id = /video (med_\w+)/.exec(r.stderr)![1]!;
    const completes = (await emu.requests()).filter((q) => q.path === `/v1/media/${id}/complete`);
    expect(completes.map((c) => c.status)).toEqual([200]);
  });

  it('SIGTERM while POST /posts is in flight: exit 9, the outcome unknown, the rerun with the key vidpub made', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 3000 });
    const r = await runUntil(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--no-input', '--no-wait'], held('/v1/posts'), 'SIGTERM');
    expect(r.stderr).toMatch(/The outcome is unknown: the post may have been created \(video med_demo_sample\); it was interrupted before the service answered\./);
    expect(r.stderr).toMatch(/Rerun to settle it \(nothing is done twice\): vidpub post --media med_demo_sample --to youtube --caption x --no-input --no-wait --idempotency-key vp-[\w-]+/);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe('med_demo_sample\n');
  });
});

/**
 * SIGTERM, SIGINT and SIGHUP keep the note of a `post` run exactly as SIGKILL
 * does: stopped once a write went out (during the upload, with POST /posts in
 * flight, or while the post is watched after it was made), the plain rerun
 * continues the run and reports its post. One post, whatever the signal.
 * The stopped run ends 143, 130 or 129 (9 when the post's answer had not
 * come: its outcome is unknown) and prints the line that continues it.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMPLETE_GRACE_MS } from '../../src/media/upload-flow.js';
import { ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { signalWhen, spawnWatched, type Ended } from '../support/spawned.js';

const emu = useEmulator({ processingMs: 20, publishMs: 1500 });

beforeAll(() => ensureBuilt());

const totals = async () => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number }; media: { total: number } }[] };
  const demo = state.workspaces.find((w) => w.name === 'Demo')!;
  return { posts: demo.posts.total, media: demo.media.total };
};

function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-signote-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), TZ: 'UTC', NO_COLOR: '1' };
}

/** Runs the built vidpub and sends `signal` once stderr matches `when`, or once `when()` holds. */
const stopWhen = (args: string[], env: Record<string, string>, when: RegExp | (() => Promise<boolean>), signal: NodeJS.Signals): Promise<Ended> =>
  signalWhen(spawnWatched(args, { ...emu.env(), ...env }), when, signal);

const notes = (env: Record<string, string>) => readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).filter((n) => n.endsWith('.json'));
const CONTINUED = /An earlier run of this command, started .*, (was cut off|ended without knowing whether it posted): continuing it under its key (vp-[\w-]+)/;
const CONTINUE_LINE = (caption: string, more = '', video = 'test/fixtures/clip\\.mp4') =>
  new RegExp(`^Rerun to continue it \\(nothing is done twice\\): vidpub post ${video} --to linkedin --caption ${caption} --no-input${more} --idempotency-key (vp-[\\w-]+)$`, 'm');

describe('a signal keeps the note of the run, as SIGKILL does', () => {
  const signals: [NodeJS.Signals, number][] = [
    ['SIGTERM', 143],
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ];
  for (const [signal, code] of signals) {
    it(`${signal} while the post it made is watched: exit ${code} and the line that continues it; the plain rerun reports that post, one post`, async () => {
      const env = dirs();
      const caption = `watched-${signal}`;
      // A video the service already holds: the run is soon watching its post, without a second of the wall at its first
      // look at an upload's processing (the signal during an upload is the last case's).
      const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', caption, '--no-input'];
      const before = await totals();
      const first = await stopWhen(args, env, /linkedin\): publishing/, signal);
      expect(first.stderr).toMatch(/Interrupted: stopped waiting for post post_\w+; it goes on at the service\./);
      const printed = CONTINUE_LINE(caption, '', '--media med_demo_sample').exec(first.stderr);
      expect(printed, first.stderr).not.toBeNull();
      expect(first.code).toBe(code);
      expect(first.stdout).toMatch(/^id\tpost_\w+$/m);
      expect(notes(env)).toHaveLength(1);

      // The post's publishing (1.5 s, long enough for the signal to find it watched) is over by the emulator's clock: the
      // rerun finds it done rather than following it for the rest of the 1.5 s of the wall.
      await emu.advance(2);
      const rerun = await runCli(args, { clock: scaledClock(20), env: { ...emu.env(), ...env } });
      expect(rerun.stderr).toMatch(CONTINUED);
      expect(CONTINUED.exec(rerun.stderr)?.[2]).toBe(printed![1]);
      expect(rerun.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
      expect(rerun.code).toBe(0);
      expect(rerun.stdout).toMatch(/^status\tcompleted$/m);
      expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media });
      expect(notes(env)).toEqual([]);
    });

    it(`${signal} while POST /posts is in flight: exit 9 (the outcome unknown) with its rerun; the plain rerun settles it, one post`, async () => {
      const env = dirs();
      const args = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', `inflight-${signal}`, '--no-input', '--no-wait'];
      const before = await totals();
      // The service makes the post at once and its answer comes a byte a minute: the signal, sent once the post exists,
      // finds the run still waiting for that answer however loaded the machine is (no real-time hold to outlast).
      await emu.fault({ method: 'POST', path: '/v1/posts', action: 'trickle', ms: 60_000, times: 1 });
      const made = async () => (await totals()).posts === before.posts + 1;
      const first = await stopWhen(args, env, made, signal);
      expect(first.stderr).toMatch(/The outcome is unknown: the post may have been created \(video med_\w+\); it was interrupted before the service answered\./);
      expect(first.stderr).toMatch(/^Rerun to settle it \(nothing is done twice\): vidpub post .* --idempotency-key vp-[\w-]+$/m);
      expect(first.code).toBe(9);
      expect(notes(env)).toHaveLength(1);

      const rerun = await runCli(args, { clock: scaledClock(20), env: { ...emu.env(), ...env } });
      expect(rerun.stderr).toMatch(CONTINUED);
      expect(rerun.code).toBe(0);
      expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });
    });
  }

  it('SIGTERM once the bytes of the upload are sent: exit 143 and the line that continues it; the plain rerun posts once, the video uploaded once', async () => {
    const env = dirs();
    const args = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'uploading', '--no-input', '--no-wait'];
    const before = await totals();
    // The upload's complete is held back, and the signal sent once the emulator holds it (its log, not the "100%"
    // line, after which the run may still be between the PUT's answer and the complete): the bytes are sent and
    // the video not yet complete. Its complete still goes through (an upload is not left half-done): the answer
    // comes at most 650 ms after the signal, within the COMPLETE_GRACE_MS the run gives it, however late
    // the signal comes while the request is held.
    expect(COMPLETE_GRACE_MS).toBeGreaterThan(650);
    await emu.fault({ method: 'POST', path: '/v1/media/med_*', action: 'delay', ms: 650, times: 1 });
    const first = await stopWhen(args, env, () => emu.took('delay', 'POST', '/v1/media/med_*'), 'SIGTERM');
    expect(first.stderr).toMatch(/Interrupted: stopped waiting for video med_\w+/);
    expect(first.stderr).toMatch(CONTINUE_LINE('uploading', ' --no-wait'));
    expect(first.code).toBe(143);
    expect(notes(env)).toHaveLength(1);

    const rerun = await runCli(args, { clock: scaledClock(20), env: { ...emu.env(), ...env } });
    expect(rerun.stderr).toMatch(CONTINUED);
    expect(rerun.code).toBe(0);
    expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });
    expect((await emu.requests()).filter((q) => q.method === 'PUT')).toHaveLength(1);
  });
});

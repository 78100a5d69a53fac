/**
 * For one command, at most one post (see live-run.test.ts): two identical commands started
 * together, without a key, three times (issue 35's same-instant trials, ten when the atomic claim
 * was new, then five). Each trial draws the same race again (two OS processes, each binding its
 * socket and then looking for the other; which wins is the machine's, not the trial's); three keep
 * it drawn in every run of the suite, and both ways over a few runs, at 0.6 the CPU of five, two
 * starts of the built bin a trial. A file of its own so that it runs beside the other live-run cases.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { dirs, postId, postsMadeOn, vidpubOn } from './live-run-helpers.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

describe('an identical run still running is never duplicated', () => {
  it('two identical commands started together, without a key, three times: one post each time, both report it', async () => {
    for (let trial = 1; trial <= 3; trial++) {
      // Each trial afresh: the key's reads per minute are the trial's own.
      await emu.reset();
      const env = dirs();
      // A video the service already holds: the race is in claiming the command, before anything is sent, and each
      // run ends once its post is made or reported, not a second of the wall later at its first look at an upload's
      // processing.
      const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', `Together ${trial}`, '--no-input', '--no-wait'];
      const [a, b] = await Promise.all([vidpubOn(emu, args, env).ended, vidpubOn(emu, args, env).ended]);
      expect([trial, a.code, b.code], a.stderr + b.stderr).toEqual([trial, 0, 0]);
      expect(postId(a.stdout)).toBeDefined();
      expect(postId(b.stdout)).toBe(postId(a.stdout));
      expect([trial, await postsMadeOn(emu)]).toEqual([trial, 1]);
    }
  }, 120_000);
});

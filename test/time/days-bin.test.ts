/**
 * The day a confirmation names, and what a day means across a clock change, on a clock set to a
 * given instant: `retry --at "mon 9:00"` on a Friday says Mon, not today; `--at +90m` at 22:46
 * says tomorrow; `+1d`, `in 1 day` and `+1w` from Saturday 09:00 in Paris before the clocks go
 * forward keep 09:00 and say so, while `+24h` is exactly 24 hours. The first runs the built bin
 * under faketime (the whole process's clock, TZ from its environment); the others run the same
 * main(argv, ctx) in-process (runCli) with TZ in its env and its clock set there, which is what
 * the bin gives it: a start of the bin costs 0.2 s of CPU.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { realClock } from '../../src/cli/run/context.js';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { aheadBy } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';

const noFaketime = missing('faketime', null);
const emu = useEmulator({ processingMs: 20, publishMs: 20 });

/** The built bin at `at` (faketime: the clock starts there, a time in UTC, and runs), in `tz`. */
const vidpubBin = (at: string, tz: string, args: string[]) =>
  runAsync('faketime', [at, process.execPath, BIN, ...args], {
    env: { ...process.env, ...emu.env(), TZ: tz, NO_COLOR: '1', VIDPUB_NO_JOURNAL: '1', VIDPUB_CONFIG_DIR: '/nonexistent-vidpub-config' },
    timeoutMs: 60_000,
  });

/** main in-process, its clock starting at `at` (a time in UTC, as faketime reads it) and running, in `tz`. */
async function vidpub(at: string, tz: string, args: string[]) {
  const clock = aheadBy(realClock, Date.parse(at.replace(' ', 'T')) - Date.now());
  const r = await runCli(args, { clock, env: { ...emu.env(), TZ: tz, NO_COLOR: '1', VIDPUB_NO_JOURNAL: '1', VIDPUB_CONFIG_DIR: '/nonexistent-vidpub-config' } });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** A post to YouTube that failed there (for retry). */
async function failedPost(): Promise<string> {
  await emu.fault({ destination_fail: 'dst_demo_youtube' });
  const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'launch', '--option', 'youtube:visibility=unlisted', '--json', 'id'], {
    env: { ...emu.env(), VIDPUB_NO_JOURNAL: '1', VIDPUB_CONFIG_DIR: '/nonexistent-vidpub-config' },
  });
  expect(r.code).toBe(6);
  await emu.admin('DELETE', '/faults');
  return /post_[0-9a-f]+/.exec(r.stdout)![0];
}

describe('the day a confirmation names', () => {
  beforeAll(() => ensureBuilt(), 120_000);
  beforeEach(() => emu.reset());

  it.skipIf(noFaketime)('retry --at "mon 9:00" on a Friday says Mon, with the date of that Monday (built bin, faketime)', async () => {
    const id = await failedPost();
    // Friday 2027-01-08 10:00 UTC
    const r = await vidpubBin('2027-01-08 10:00:00Z', 'UTC', ['retry', id, '--at', 'mon 9:00', '--yes', '--json', 'id,status']);
    expect(r.stderr).toMatch(/^When: Mon 09:00 UTC, in 2 d 23 h \(2027-01-11T09:00:00Z\)$/m);
    expect(r.stderr).not.toMatch(/When: today/);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'scheduled' });
  }, 90_000);

  it('retry --at +90m at 22:46 says tomorrow 00:16', async () => {
    const id = await failedPost();
    const r = await vidpub('2027-01-08 22:46:00Z', 'UTC', ['retry', id, '--at', '+90m', '--yes', '--json', 'id']);
    expect(r.stderr).toMatch(/^When: tomorrow 00:16(:\d\d)? UTC, in 1 h 30 m \(2027-01-09T00:16:\d\dZ\)$/m);
    expect(r.status).toBe(0);
  });

  it('post --at +90m at 22:46 says tomorrow too', async () => {
    const r = await vidpub('2027-01-08 22:46:00Z', 'UTC', ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'hi', '--at', '+90m', '--no-wait', '--json', 'id']);
    expect(r.stderr).toMatch(/: tomorrow 00:16(:\d\d)? UTC, in 1 h 30 m \(2027-01-09T00:16:\d\dZ\)$/m);
    expect(r.status).toBe(0);
  });
});

describe('a day across a clock change (Europe/Paris)', () => {
  beforeEach(() => emu.reset());
  // Saturday 2027-03-27 09:00 CET; the clocks go forward in the night to Sunday.
  const SAT = '2027-03-27 08:00:00Z';
  const post = (at: string) => vidpub(SAT, 'Europe/Paris', ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'hi', '--at', at, '--no-wait', '--json', 'id']);

  it('+1d and "in 1 day" are the next calendar day at the same time, 23 hours later, and say so', async () => {
    for (const at of ['+1d', 'in 1 day']) {
      const r = await post(at);
      expect(r.stderr).toMatch(/: tomorrow 09:00(:\d\d)? CEST, in 23 h \(2027-03-28T07:00:\d\dZ\)$/m);
      expect(r.stderr).toMatch(/the clocks change in Europe\/Paris before then: 1 calendar day keeps the time of day, 09:00 \(23 hours from now\); for exactly 24 hours write \+24h/);
      expect(r.status).toBe(0);
    }
  });

  it('+1w is the same weekday a week on at 09:00', async () => {
    const r = await post('+1w');
    expect(r.stderr).toMatch(/: 2027-04-03 09:00(:\d\d)? CEST, in 6 d 23 h \(2027-04-03T07:00:\d\dZ\)$/m);
    expect(r.stderr).toMatch(/7 calendar days keep the time of day, 09:00 \(167 hours from now\); for exactly 168 hours write \+168h/);
    expect(r.status).toBe(0);
  });

  it('+24h is exactly 24 hours: 10:00 after the change, with no note', async () => {
    const r = await post('+24h');
    expect(r.stderr).toMatch(/: tomorrow 10:00(:\d\d)? CEST, in 1 d \(2027-03-28T08:00:\d\dZ\)$/m);
    expect(r.stderr).not.toMatch(/clocks change/);
    expect(r.status).toBe(0);
  });
});

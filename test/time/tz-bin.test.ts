/**
 * TZ end to end: vidpub with its clock set to the day before Europe's spring
 * change schedules `post --at "tomorrow 9:00"` at the instant glibc's date(1)
 * (under faketime) names for "tomorrow 09:00" under the same TZ and clock, for
 * IANA and POSIX forms; a TZ that cannot be read is exit 2 naming it, before
 * anything is sent. The built bin runs under faketime once, TZ in its
 * environment; each form is main(argv, ctx) in-process (runCli) with TZ in its
 * env and its clock set to the same instant, which is what the bin gives it
 * (vidpub reads the zone from TZ itself, src/time/zones.ts): a start of the bin
 * costs 0.2 s of CPU. Under CI a missing faketime fails the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { aheadBy, scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';

/** 2027-03-27T12:00:00Z: tomorrow, Europe moves to summer time (at 01:00 UTC). */
const NOW = 1806148800;

describe.skipIf(missing('faketime', ['--version']))('TZ through the bin: post --at "tomorrow 9:00"', () => {
  let emu: TestEmulator;
  let dir: string;
  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'vidpub-tz-'));
    emu = await startTestEmulator({ processingMs: 20, publishMs: 20 });
  }, 60_000);
  // A fresh emulator state each time: no per-minute allowance carried from one post to the next.
  beforeEach(() => emu.reset());
  afterAll(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** vidpub's environment: TZ, and nothing else from outside. */
  const vidpubEnv = (tz: string) => ({ TZ: tz, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), NO_COLOR: '1', VIDPUB_DUPLICATE_WINDOW: '0', ...emu.env() });
  /** `argv` under faketime at NOW, with only TZ (and PATH) from outside. */
  const atNow = (argv: string[], tz: string) => runAsync('faketime', [`@${NOW}`, ...argv], { env: { PATH: process.env.PATH ?? '', ...vidpubEnv(tz) }, timeoutMs: 60_000 });
  const POST = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', 'tomorrow 9:00'];
  /**
   * main in-process with TZ and its clock at NOW (running from there, as faketime's, ten times as fast: the wait for
   * the uploaded clip's processing, whose first look is a second after it starts, takes a tenth of that; the
   * emulator's processing takes 20 ms of the wall, so it is over by then all the same).
   */
  const inProcess = async (argv: string[], tz: string) => {
    const r = await runCli(argv, { env: vidpubEnv(tz), clock: aheadBy(scaledClock(10), NOW * 1000 - Date.now()) });
    return { status: r.code, stdout: r.stdout, stderr: r.stderr };
  };
  const post = (tz: string) => inProcess([...POST, '--no-wait', '--json'], tz);
  const glibcTomorrow9 = async (tz: string) => Number((await atNow(['date', '-d', 'tomorrow 09:00', '+%s'], tz)).stdout.trim()) * 1000;

  it.each([
    ['JST-9', 'JST', '2027-03-28T00:00:00.000Z'],
    ['CET-1CEST,M3.5.0,M10.5.0/3', 'CEST', '2027-03-28T07:00:00.000Z'],
    ['<+0530>-5:30', '+0530', '2027-03-28T03:30:00.000Z'],
    ['EST5EDT,M3.2.0,M11.1.0', 'EDT', '2027-03-28T13:00:00.000Z'],
    ['NZST-12NZDT,M9.5.0,M4.1.0/3', 'NZDT', '2027-03-28T20:00:00.000Z'],
    [':Europe/Paris', 'CEST', '2027-03-28T07:00:00.000Z'],
  ])('TZ=%s: scheduled where glibc puts tomorrow 09:00 (%s)', async (tz, abbreviation, utc) => {
    const glibc = await glibcTomorrow9(tz);
    expect(new Date(glibc).toISOString()).toBe(utc);
    const r = await post(tz);
    expect(r.stderr).toContain(`: tomorrow 09:00 ${abbreviation}, in `);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'scheduled', publish_at: utc });
  });

  it('the built bin under faketime, TZ=:Europe/Paris in its environment: scheduled where glibc puts tomorrow 09:00 (CEST)', async () => {
    const utc = '2027-03-28T07:00:00.000Z';
    expect(new Date(await glibcTomorrow9(':Europe/Paris')).toISOString()).toBe(utc);
    // A journal of its own: the in-process runs' posts, on a clock that also started at NOW, would be
    // identical posts that finished after this process started (as if run beside it).
    const r = await runAsync('faketime', [`@${NOW}`, process.execPath, BIN, ...POST, '--no-wait', '--json'], {
      env: { PATH: process.env.PATH ?? '', ...vidpubEnv(':Europe/Paris'), VIDPUB_STATE_DIR: join(dir, 'state-bin') },
      timeoutMs: 60_000,
    });
    expect(r.stderr).toContain(': tomorrow 09:00 CEST, in ');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'scheduled', publish_at: utc });
  });

  it.each([['Nope'], ['CET-1CEST,M3.5.0'], ['JST-25']])('TZ=%s: exit 2 naming it, nothing sent', async (tz) => {
    const before = (await emu.requests()).length;
    const r = await post(tz);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { type: 'usage', exit_code: 2, message: `TZ is "${tz}", which is not a time zone vidpub can read` } });
    expect((await emu.requests()).length).toBe(before);
  });

  it('the same without --json: the message and the hint on stderr', async () => {
    const r = await inProcess(POST, 'JST-9JDT,J0');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Error: TZ is "JST-9JDT,J0", which is not a time zone vidpub can read\nSet TZ to an IANA name \(Europe\/Paris, :Asia\/Tokyo\) or a POSIX TZ string/);
  });
});

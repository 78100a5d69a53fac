/**
 * post --media: the hints of a failure speak of the video given, not of a
 * file that was never there ("with --media ID instead of the file").
 */
import { describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { exhaustDailyAllowance, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'UTC' } }));

describe('post --media when the daily allowance is used up', () => {
  it('exit 4; the error says no post was created and the hint is to run the same command again, not to swap a file for --media', async () => {
    await exhaustDailyAllowance(emu);
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Error: The daily post allowance is used up; no post was created\. It resets at /);
    expect(r.stderr).toMatch(/\nRun the same command again after the reset, add --wait-for-quota to wait for it, or save it with --draft\.\n$/);
    expect(r.stderr).not.toMatch(/instead of the file|the video is uploaded/);
  });
});

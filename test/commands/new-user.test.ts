/**
 * What a new user met (a fresh HOME, the README top to bottom), each through the CLI against the
 * emulator: a file name after --json is the file, not a field list.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { ROOT } from '../support/build.js';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'UTC' } }));
const FIXTURES = join(ROOT, 'test/fixtures');

describe('--json and the word after it', () => {
  it('a file name after --json is the file: post --json clip.webm posts it and prints the whole record', async () => {
    const r = await run(['post', '--json', 'clip.webm', '--to', 'youtube', '--caption', 'after --json', '--no-input'], { cwd: FIXTURES });
    expect(r.stderr).not.toMatch(/unknown JSON field/);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    expect(post).toMatchObject({ caption: 'after --json', status: 'completed' });
    expect(Object.keys(post)).toEqual(expect.arrayContaining(['id', 'media_id', 'destinations', 'review_url']));
  });

  it('a list of the command\'s fields after --json is still the field list', async () => {
    const r = await run(['status', 'med_demo_sample', '--json', 'id,status']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'med_demo_sample', status: 'ready' });
  });
});

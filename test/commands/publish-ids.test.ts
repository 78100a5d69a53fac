/**
 * publish takes a post id: a video id (med_…, as upload prints) is a usage
 * error before any request, saying how to post that video.
 */
import { describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
const run = cliRunner(() => ({ env: emu.env() }));

describe('vidpub publish with a video id', () => {
  it('exit 2 before any request, with the post command for that video', async () => {
    const r = await run(['publish', 'med_demo_sample']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'Error: med_demo_sample is a video id; publish takes the id of a post (a draft or a scheduled post)\n' +
        'Post the video with: vidpub post --media med_demo_sample --to DEST --caption TEXT\n',
    );
    expect(await emu.requests()).toEqual([]);
  });

  it('with --json: one usage error object', async () => {
    const r = await run(['publish', 'med_demo_sample', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error).toMatchObject({ type: 'usage', exit_code: 2 });
    expect(await emu.requests()).toEqual([]);
  });
});

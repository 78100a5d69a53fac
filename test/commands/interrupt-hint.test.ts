/**
 * Ctrl-C (a real SIGINT to the real bin) while `post` waits for its video to
 * be processed: one way on, the same command under the run's key (it
 * continues the run, nothing done twice), shell-quoted; not also a second
 * command that posts the video. `upload`, which knows neither destinations
 * nor caption, names the post to make with placeholders.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { spawnWatched } from '../support/spawned.js';

// Processing takes 10 minutes: the run is always still waiting when it is interrupted.
const emu = useEmulator({ processingMs: 600_000, publishMs: 20 });

beforeAll(() => ensureBuilt());

function interruptedAt(args: string[], when: RegExp) {
  // A config, state and cache directory of its own: the user's journal (an earlier run that posted the clip) would
  // make the post a duplicate, refused before it waits for anything.
  const dir = tempConfigDir();
  const env = { ...emu.env(), VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_CACHE_DIR: join(dir, 'cache'), NO_COLOR: '1' };
  const run = spawnWatched(args, env, { guardMs: 60_000 });
  let sent = false;
  run.onStderr((all) => {
    if (!sent && when.test(all)) {
      sent = true;
      run.kill('SIGINT');
    }
  });
  return run.ended;
}

describe('the next step after Ctrl-C while the video is processing', () => {
  it('post: exit 130, one way on: the same command under its key, which continues the run (no second line that posts the video)', async () => {
    const r = await interruptedAt(
      ['post', 'test/fixtures/clip.mp4', '--to', 'youtube,tiktok', '--option', 'tiktok:privacy=SELF_ONLY', '--caption', "It's done", '--no-input'],
      /Processing/,
    );
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/stopped waiting for video med_\w+/);
    expect(r.stderr).toMatch(
      /\nRerun to continue it \(nothing is done twice\): vidpub post test\/fixtures\/clip\.mp4 --to youtube,tiktok --option tiktok:privacy=SELF_ONLY --caption 'It'\\''s done' --no-input --idempotency-key vp-[\w-]+\nIt goes on at the service\.\n$/,
    );
    expect(r.stderr.match(/vidpub post /g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/post it with/i);
  });

  it('upload: exit 130, the destinations and caption are not known: placeholders', async () => {
    const r = await interruptedAt(['upload', 'test/fixtures/clip.mp4'], /Processing/);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/Once it is ready, post it with: vidpub post --media med_\w+ --to <destination> --caption "\.\.\."\n/);
  });
});

/**
 * The real built binary in a real pseudo-terminal (tmux): `vidpub post` to a
 * creator-disclosure destination shows the creator, asks the privacy (a
 * select, answered with the arrow keys), shows the summary and asks for a
 * confirmation, then posts with the privacy chosen.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { fasterClockEnv, noFaketime } from '../support/faketime.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';

const SESSION = 'post';
const emu = useEmulator({ processingMs: 20, publishMs: 20, resetEachTest: false });
const tmux = useTmux('post');

describe.skipIf(noTmux || noFaketime)('vidpub post in a pseudo-terminal (tmux)', () => {
  beforeAll(() => {
    ensureBuilt();
  }, 120_000);

  it('shows the creator, asks the privacy, confirms, and posts with the privacy chosen', async () => {
    const env = {
      ...emu.env(),
      // its clock twice as fast (libfaketime): its looks at the post, a second apart, half of that
      ...fasterClockEnv(),
      VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-pty-')),
      VIDPUB_NO_JOURNAL: '1',
      TZ: 'Europe/Paris',
      NO_COLOR: '1',
    };
    tmux.start(SESSION, vidpubLine('post test/fixtures/clip.mp4 --to @vidpub.demo --caption hi', env), { columns: 120, rows: 40 });

    const asked = await tmux.waitForScreen(SESSION, /privacy for @vidpub\.demo \(tiktok\): Who can view this video/);
    // the creator details come before the question
    expect(asked).toMatch(/Posting to tiktok as vidpub Demo \(@vidpub\.demo\)[\s\S]*Who can view this video/);
    // readable labels beside the values
    expect(asked).toMatch(/Everyone \(PUBLIC_TO_EVERYONE\)[\s\S]*Only me \(SELF_ONLY\)/);

    // the cursor starts on no value: Enter there posts nothing publicly, it asks again
    expect(asked).toMatch(/[❯>] \(choose one: there is no default\)/);
    tmux.keys(SESSION, 'Enter');
    const again = await tmux.waitForScreen(SESSION, /Nothing chosen: move to a value with the arrow keys, then press Enter\.[\s\S]*[❯>] \(choose one/);
    expect(again).not.toMatch(/Post it now\?/);
    // the entry that is no answer is not shown ticked as if it were one: the question's line is taken off
    expect(again).not.toMatch(/✔[^\n]*\(choose one/);
    // (no choice), PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY: four down is SELF_ONLY
    tmux.keys(SESSION, 'Down', 'Down', 'Down', 'Down');
    await tmux.waitForScreen(SESSION, /[❯>] Only me \(SELF_ONLY\)/);
    tmux.keys(SESSION, 'Enter');

    const summary = await tmux.waitForScreen(SESSION, /Post it now\?/);
    expect(summary).toMatch(/✔ privacy for @vidpub\.demo \(tiktok\): Who can view this video Only me \(SELF_ONLY\)/);
    expect(summary).not.toMatch(/✔[^\n]*\(choose one/);
    // after the answer, the flag that skips the question next time
    expect(summary).toContain('Next time, skip this question with: --option @vidpub.demo:privacy=SELF_ONLY');
    expect(summary).toMatch(/About to post[\s\S]*privacy: SELF_ONLY[\s\S]*Post it now\?/);
    expect(summary).toMatch(/When: +now, today [\d:]+ CES?T \(\S+Z\)/);
    tmux.keys(SESSION, 'y', 'Enter');

    const done = await tmux.waitForScreen(SESSION, /EXIT:\d+/, 30_000);
    expect(done).toMatch(/EXIT:0/);
    const id = /Post: +(post_\w+)/.exec(done)?.[1];
    expect(id, done).toBeDefined();
    // A row with the emulator's long link fits a wide terminal; a narrower one stacks the destination (a link is never cut).
    expect(done).toMatch(/@vidpub\.demo \(tiktok\) +published +http|Destination: +@vidpub\.demo \(tiktok\)\s+Status: +published\s+Details: +http/);

    const post = (await emu.api.get<Post>(`/posts/${id}`)).body;
    expect(post.destinations[0]).toMatchObject({ destination_id: 'dst_demo_tiktok', status: 'published', options: { privacy: 'SELF_ONLY' } });
  }, 60_000);
});

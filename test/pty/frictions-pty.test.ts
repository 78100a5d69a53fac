/**
 * The built binary in a real pseudo-terminal (tmux), for what only a terminal
 * shows: the destination picker when --to is missing, and the live view of
 * `post` in a 60-column terminal (each line cut to the width, never wrapped,
 * so repainting leaves no copies behind).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { fasterClockEnv, noFaketime, steppedClock } from '../support/faketime.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';

// Publishing takes long enough for the live view to repaint many times (every 100 ms of the bin's clock).
const emu = useEmulator({ processingMs: 20, publishMs: 1000 });
const tmux = useTmux('frictions');

function start(session: string, columns: number, args: string, extra: Record<string, string> = {}): void {
  // Its own config and journal: a run on a clock put ahead leaves no record a later run would take for one beside it.
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-pty-'));
  const env = { ...emu.env(), VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state'), TZ: 'Europe/Berlin', NO_COLOR: '1', VIDPUB_DUPLICATE_WINDOW: '0', ...extra };
  tmux.start(session, vidpubLine(args, env), { columns, rows: 30 });
}

describe.skipIf(noTmux)('at a terminal (tmux)', () => {
  beforeAll(() => {
    ensureBuilt();
  }, 120_000);

  it('without --to, a picker of the active destinations; the flag for next time follows', async () => {
    start('picker', 120, 'post test/fixtures/clip.mp4 --caption hi --yes --no-wait');
    const shown = await tmux.waitForScreen('picker', /Post to \(space selects, enter accepts\)/);
    // active destinations only: the disconnected Instagram account is not offered
    expect(shown).toMatch(/@vidpub\.demo \(tiktok\)[\s\S]*@vidpubdemo \(youtube\)[\s\S]*@vidpub-demo \(linkedin\)/);
    expect(shown).not.toMatch(/instagram/);
    // the third one: LinkedIn
    tmux.keys('picker', 'Down', 'Down', 'Space', 'Enter');
    const done = await tmux.waitForScreen('picker', /EXIT:\d+/, 30_000);
    expect(done).toContain('Next time, skip this question with: --to @vidpub-demo');
    expect(done).toMatch(/EXIT:0/);
    const id = /Post: +(post_\w+)/.exec(done)?.[1];
    const post = (await emu.api.call<Post>('GET', `/posts/${id}`)).body;
    expect(post.destinations.map((d) => d.destination_id)).toEqual(['dst_demo_linkedin']);
  }, 60_000);

  it.skipIf(noFaketime)('at 60 columns, the live view of post fits the width and leaves no copies in the scrollback', async () => {
    // The bin's clock twice as fast (libfaketime): it looks at the post sooner and repaints every 50 ms.
    start('narrow', 60, 'post test/fixtures/clip.mp4 --to linkedin,youtube --caption hi --yes', fasterClockEnv());
    // the live view is up (and will repaint for a while)
    const live = await tmux.waitForScreen('narrow', /Waiting for post/, 30_000);
    for (const l of live.split('\n').filter((x) => /Waiting for post/.test(x))) expect(l.trimEnd().length, l).toBeLessThanOrEqual(60);
    const done = await tmux.waitForScreen('narrow', /EXIT:\d+/, 40_000);
    expect(done).toMatch(/EXIT:0/);
    const lines = done.split('\n');
    // the header was repainted in place many times: at most once in the whole scrollback, and
    // cut to the width (-J joins wrapped lines, so a wrapped header would show longer than 60)
    const headers = lines.filter((l) => /Waiting for post/.test(l));
    expect(headers.length).toBeLessThanOrEqual(1);
    for (const h of headers) expect(h.trimEnd().length, h).toBeLessThanOrEqual(60);
    // At 60 columns the destinations' table cannot fit whole: each destination stacked, its link whole.
    expect(done).toMatch(/Destination: +@vidpub-demo \(linkedin\)\nStatus: +published\nDetails: +http\S+\/dst_demo_linkedin\n/);
  }, 60_000);

  for (const columns of [100, 60]) {
    it.skipIf(noFaketime)(`at ${columns} columns, the --wait-for-quota countdown is one line rewritten in place: no wrapped copies`, async () => {
      // The bin's clock is moved on by the test (libfaketime), so the countdown is not sat out in
      // real seconds; the reset is far enough ahead that a slow start still finds it counting.
      const clock = steppedClock();
      const resetAt = new Date(Date.now() + 50_000).toISOString();
      const body = { error: { type: 'rate_limited', code: 'daily_post_limit', message: 'The daily post allowance is used up.', reset_at: resetAt } };
      await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 429, times: 1, content_type: 'application/json', body: JSON.stringify(body) });
      const session = `quota${columns}`;
      start(session, columns, 'post --media med_demo_sample --to linkedin --caption hi --yes --no-wait --wait-for-quota', clock.env);
      const first = await tmux.waitForScreen(session, /Allowance used up, waiting for the reset: (\d+)s left/);
      const left = /reset: (\d+)s left/.exec(first)![1];
      // a later tick has rewritten the line
      clock.advance(5);
      const later = await tmux.waitForScreen(session, new RegExp(`Allowance used up, waiting for the reset: (?!${left}s)\\d+s left`));
      const lines = later.split('\n').filter((l) => /Allowance used up|wait-for-quota/.test(l));
      expect(lines, later).toHaveLength(1);
      expect(lines[0]!.trimEnd().length).toBeLessThanOrEqual(columns - 1);
      // past the reset: the line is cleared and the post made
      clock.advance(60);
      const done = await tmux.waitForScreen(session, /EXIT:\d+/, 30_000);
      expect(done).toMatch(/EXIT:0/);
      expect(done).not.toMatch(/Allowance used up/);
    }, 60_000);
  }

  it('TERM=dumb: the destination picker is a numbered list answered with numbers, no arrow keys', async () => {
    start('dumb', 100, 'post test/fixtures/clip.mp4 --caption hi --yes --no-wait', { TERM: 'dumb' });
    const shown = await tmux.waitForScreen('dumb', /Choose \(numbers from 1 to 3, separated by commas\)/);
    expect(shown).toMatch(/ {2}1\) @vidpub\.demo \(tiktok\)[\s\S]* {2}2\) @vidpubdemo \(youtube\)[\s\S]* {2}3\) @vidpub-demo \(linkedin\)/);
    expect(shown).not.toMatch(/space selects/);
    tmux.keys('dumb', '3', 'Enter');
    const done = await tmux.waitForScreen('dumb', /EXIT:\d+/, 30_000);
    expect(done).toMatch(/EXIT:0/);
    const id = /Post: +(post_\w+)/.exec(done)?.[1];
    const post = (await emu.api.call<Post>('GET', `/posts/${id}`)).body;
    expect(post.destinations.map((d) => d.destination_id)).toEqual(['dst_demo_linkedin']);
  }, 60_000);
});

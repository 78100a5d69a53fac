/**
 * A set of posts (one `post` with --caption-for, a post per caption) seen as a
 * set: the journal joins them by one set id; history groups them at a
 * terminal and gives each with its set in --json; status of one names the
 * others; retry of the set's id retries what failed in each.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, type RunOptions } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
let stateDir: string;

const run = (args: string[], opts: RunOptions = {}) =>
  runCli(args, { clock: scaledClock(20), ...opts, env: { ...emu.env(), TZ: 'UTC', VIDPUB_STATE_DIR: stateDir, ...opts.env } });

const SET = ['post', '--media', 'med_demo_sample', '--to', 'youtube,linkedin', '--caption', 'base', '--caption-for', 'youtube=long text', '--option', 'youtube:visibility=unlisted', '--no-input', '--json'];

type SetDoc = { set: string; posts: { id: string; caption: string }[] };

beforeEach(() => {
  stateDir = join(mkdtempSync(join(tmpdir(), 'vidpub-set-')), 'vidpub');
});

describe('a set of posts in the journal', () => {
  it('one set id for the command; history, status and retry show the set and each post', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const made = await run(SET);
    expect(made.code).toBe(6);
    await emu.admin('DELETE', '/faults');
    const doc = JSON.parse(made.stdout) as SetDoc;
    expect(doc.set).toMatch(/^set_[0-9a-f]{16}$/);
    const [yt, li] = doc.posts.map((p) => p.id) as [string, string];

    const json = await run(['history', '--json']);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { id: string; set?: string }[];
    expect(listed.map((p) => [p.id, p.set])).toEqual([
      [li, doc.set],
      [yt, doc.set],
    ]);

    const tty = await run(['history'], { tty: true, columns: 120, env: { NO_COLOR: '1' } });
    const lines = tty.stdout.split('\n');
    const head = lines.findIndex((l) => l.startsWith(doc.set));
    expect(lines[head]).toMatch(/failed\s+2 posts, a caption each/);
    expect(lines[head + 1]).toMatch(new RegExp(`^  ├ ${yt}\\s.*failed.*long text`));
    expect(lines[head + 2]).toMatch(new RegExp(`^  └ ${li}\\s.*completed.*base`));

    const status = await run(['status', li]);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(`Post ${li} is one of set ${doc.set} (one command, a caption each); the others: ${yt} (@vidpubdemo (youtube)).`);
    expect(status.stderr).toContain(`retry the set: vidpub retry ${doc.set}`);

    // The set by its id: each post read now, together; the failed one makes it exit 6.
    const whole = await run(['status', doc.set, '--json']);
    expect(whole.code).toBe(6);
    expect((JSON.parse(whole.stdout) as SetDoc).posts.map((p) => [p.id, p.caption])).toEqual([
      [yt, 'long text'],
      [li, 'base'],
    ]);

    const retried = await run(['retry', doc.set, '--json']);
    expect(retried.stderr).toContain(`Set ${doc.set}: 2 posts (${yt}, ${li}); retrying what failed in each.`);
    expect(retried.code).toBe(0);
    const r = JSON.parse(retried.stdout) as { set: string; retries: { retry_of: string; result: { retried?: false; id?: string; destinations?: { destination_id: string }[] } }[] };
    expect(r.set).toBe(doc.set);
    expect(r.retries.map((x) => x.retry_of)).toEqual([yt, li]);
    expect(r.retries[0]!.result.destinations!.map((d) => d.destination_id)).toEqual(['dst_demo_youtube']);
    expect(r.retries[1]!.result.retried).toBe(false);
  });

  it('retry of a set this machine never made: exit 5; with --to: exit 2 naming the flag', async () => {
    const none = await run(['retry', 'set_0123456789abcdef']);
    expect(none.stderr).toContain('no post of set set_0123456789abcdef is in this machine\'s journal');
    expect(none.code).toBe(5);
    const to = await run(['retry', 'set_0123456789abcdef', '--to', 'youtube']);
    expect(to.stderr).toContain('retry set_0123456789abcdef --to: --to picks destinations of one post');
    expect(to.code).toBe(2);
  });
});

/**
 * vidpub history (alias posts) over what post recorded, and the forms of
 * vidpub status: no id (the last post made here), a video id, a draft.
 */
import { mkdtempSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { runCli, type RunOptions } from '../support/cli.js';
import { realClock, type Clock } from '../../src/cli/run/context.js';
import { parseSince } from '../../src/cli/commands/history.js';
import { manualClock, scaledClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator({ processingMs: 20, publishMs: 100 });
let stateDir: string;

/**
 * One clock for every run of the file, as one machine has: a run that finished is over when the next
 * one starts (a clock made anew per run, 20 times as fast, would put the next start before it).
 */
const clock = scaledClock(20);

function run(args: string[], opts: RunOptions = {}) {
  return runCli(args, { clock, ...opts, env: { ...emu.env(), TZ: 'UTC', VIDPUB_STATE_DIR: stateDir, ...opts.env } });
}

async function post(args: string[], opts: RunOptions = {}): Promise<Post> {
  const r = await run(['post', '--media', 'med_demo_sample', '--caption', 'hello', ...args, '--json'], opts);
  expect([0, 6]).toContain(r.code);
  return JSON.parse(r.stdout) as Post;
}

/** Waits (reading the service directly, not through vidpub) until the post has finished publishing. */
async function settled(id: string): Promise<void> {
  // Polled until it is (the emulator publishes on real timers: a loaded machine takes longer); the wait is only a watchdog.
  await waitFor(async () => (await emu.api.call<Post>('GET', `/posts/${id}`)).body.status, (status) => status === 'completed', 30_000);
}

/** The real clock moved to start at `start` (the time the journal records). */
function shiftedClock(start: number): Clock {
  const off = start - Date.now();
  return { now: () => Date.now() + off, sleep: realClock.sleep };
}

beforeEach(async () => {
  await emu.reset();
  stateDir = join(mkdtempSync(join(tmpdir(), 'vidpub-state-')), 'vidpub');
});

describe('vidpub history', () => {
  it('at a 60-column terminal, where the table cannot fit, each post is stacked: every field whole, the caption kept; a scheduled post shows when it goes out', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const a = await post(['--to', 'linkedin,youtube', '--option', 'youtube:visibility=public', '--caption', 'a caption of several words']);
    const later = await post(['--to', 'linkedin', '--at', 'in 3d']);
    const tty = await run(['history'], { tty: true, columns: 60, env: { NO_COLOR: '1' } });
    expect(tty.code).toBe(0);
    const lines = tty.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60);
    const text = tty.stdout;
    expect(text).toContain(`Id:           ${later.id}\nMade or due:  due `);
    expect(text).toMatch(/^Made or due: +due (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d:\d\d(:\d\d)? UTC$/m);
    expect(text).toContain(`Id:           ${a.id}\n`);
    // Never DEST… or @vidpu…: handles whole, a value broken only at a space, under itself.
    expect(text).not.toContain('…');
    expect(text).toMatch(/^Destinations: @vidpub-demo \(linkedin\) published, @vidpubdemo\n {14}\(youtube\) failed$/m);
    expect(text).toMatch(/^Caption: +a caption of several words$/m);
  });

  it('newest first: tab-separated lines in a pipe, a table at a terminal, an array with --json', async () => {
    const a = await post(['--to', 'linkedin', '--caption', 'first one']);
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const b = await post(['--to', 'linkedin,youtube', '--caption', 'second\nline two']);

    const pipe = await run(['history']);
    expect(pipe.code).toBe(0);
    const lines = pipe.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${b.id}\\t\\d{4}-\\d\\d-\\d\\dT\\S+Z\\tfailed\\tdst_demo_linkedin:published,dst_demo_youtube:failed\\tsecond line two$`)); // the whole caption, on its line
    expect(lines[1]).toMatch(new RegExp(`^${a.id}\\t\\S+\\tcompleted\\tdst_demo_linkedin:published\\tfirst one$`));

    const tty = await run(['posts'], { tty: true, columns: 140, env: { NO_COLOR: '1' } });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/^ID +MADE OR DUE +STATUS +DESTINATIONS +CAPTION$/m);
    expect(tty.stdout).toMatch(new RegExp(`^${b.id} +today \\d\\d:\\d\\d UTC +failed +@vidpub-demo \\(linkedin\\) published, @vidpubdemo \\(youtube\\) failed +second$`, 'm'));

    const json = JSON.parse((await run(['history', '--json'])).stdout);
    expect(json.map((p: { post_id: string }) => p.post_id)).toEqual([b.id, a.id]);
    expect(json[0]).toMatchObject({ state: 'failed', outcome: 'failed', caption: 'second\nline two', workspace: 'Demo' });
  });

  it('filters: --status, --destination, --limit, --since, --workspace, and the profile', async () => {
    const a = await post(['--to', 'linkedin']);
    const b = await post(['--to', 'youtube', '--option', 'visibility=public']);
    const c = await post(['--to', 'linkedin'], { env: { VIDPUB_PROFILE: 'other' } });
    const ids = async (args: string[]) => (JSON.parse((await run(['history', '--json', ...args])).stdout) as { post_id: string }[]).map((p) => p.post_id);
    expect(await ids([])).toEqual([b.id, a.id]);
    expect(await ids(['--all-profiles'])).toEqual([c.id, b.id, a.id]);
    expect(await ids(['--destination', 'youtube'])).toEqual([b.id]);
    expect(await ids(['--destination', '@vidpub-demo'])).toEqual([a.id]);
    expect(await ids(['--limit', '1'])).toEqual([b.id]);
    expect(await ids(['--status', 'failed'])).toEqual([]);
    expect(await ids(['--since', '1h'])).toEqual([b.id, a.id]);
    expect(await ids(['--since', '2999-01-01'])).toEqual([]);
    expect(await ids(['--workspace', 'Demo'])).toEqual([b.id, a.id]);
    expect(await ids(['--workspace', 'Studio'])).toEqual([]);
  });

  it('--since a date or a time without an offset is read in the time zone the table shows (TZ), both alike', async () => {
    // Made at 03:00 UTC on 1 January 2030: 22:00 on 31 December 2029 in New York.
    const made = await run(['post', '--media', 'med_demo_sample', '--caption', 'hello', '--to', 'linkedin', '--no-wait', '--json'], {
      clock: shiftedClock(Date.parse('2030-01-01T03:00:00Z')),
    });
    expect(made.code).toBe(0);
    const id = (JSON.parse(made.stdout) as Post).id;
    const ny = { TZ: 'America/New_York', NO_COLOR: '1' };
    const table = await run(['history'], { tty: true, env: ny });
    expect(table.stdout).toMatch(new RegExp(`^${id} +2029-12-31 22:00 EST `, 'm'));
    const ids = async (since: string) => {
      const r = await run(['history', '--json', '--since', since], { env: ny });
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { post_id: string }[]).map((p) => p.post_id);
    };
    expect(await ids('2029-12-31')).toEqual([id]);
    expect(await ids('2029-12-31T21:59')).toEqual([id]);
    expect(await ids('2030-01-01')).toEqual([]);
    expect(await ids('2030-01-01T00:00')).toEqual([]);
    expect(await ids('2029-12-31 22:01')).toEqual([]);
    expect(await ids('2030-01-01T02:59:00Z')).toEqual([id]);
  });

  it('--since a local time the clocks skipped is the time just after the gap, east of UTC as west; one they repeat is the earlier', () => {
    const now = Date.UTC(2027, 0, 1);
    const iso = (text: string, zone: string) => new Date(parseSince(text, now, zone)).toISOString();
    // 02:30 in Paris on 29 March 2026 does not exist: 03:30 CEST, not 01:30 CET before the gap.
    expect(iso('2026-03-29 02:30', 'Europe/Paris')).toBe('2026-03-29T01:30:00.000Z');
    expect(iso('2026-03-08T02:30', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
    expect(iso('2026-10-25 02:30', 'Europe/Paris')).toBe('2026-10-25T00:30:00.000Z');
    expect(iso('2026-03-29 01:59', 'Europe/Paris')).toBe('2026-03-29T00:59:00.000Z');
  });

  it('bad flags: exit 2 with the message', async () => {
    const cases: [string[], RegExp][] = [
      [['--status', 'done'], /Error: invalid --status "done": use one of draft, scheduled, publishing, completed, failed/],
      [['--limit', '0'], /Error: invalid --limit "0": give a whole number from 1 to 100,000/],
      [['--since', 'yesterday'], /Error: invalid --since "yesterday": give a duration back from now/],
      [['--since', '2026-02-30'], /Error: invalid --since "2026-02-30": give a duration back from now/],
      [['--destination', ''], /Error: invalid --destination "": give a destination id, @handle or platform/],
      [['--since', '2026-11-23T24:00'], /Error: invalid --since "2026-11-23T24:00": give a duration back from now/],
    ];
    for (const [args, message] of cases) {
      const r = await run(['history', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('an empty VIDPUB_WORKSPACE filters nothing, as it checks nothing on a write; --workspace "" is a usage error, as for every command', async () => {
    const a = await post(['--to', 'linkedin']);
    const r = await run(['history'], { env: { VIDPUB_WORKSPACE: '' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${a.id}\t`));
    expect(r.stderr).not.toMatch(/No posts recorded yet/);
    const flag = await run(['history', '--workspace', '']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--workspace is empty: give the name of the workspace writes must go to, or leave the flag out');
    expect(flag.stdout).toBe('');
  });

  it('an empty journal: nothing on stdout, a sentence on stderr (exit 0)', async () => {
    const r = await run(['history']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No posts recorded yet in the journal \(.*\) for profile "default"\./);
  });

  it('--refresh reads the posts still in progress again and records what it saw', async () => {
    const p = await post(['--to', 'linkedin', '--no-wait']);
    const before = JSON.parse((await run(['history', '--json'])).stdout);
    expect(before[0]).toMatchObject({ post_id: p.id, state: 'publishing' });
    await settled(p.id);
    const r = await run(['history', '--refresh', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ post_id: p.id, state: 'completed' });
    // recorded: a plain read now shows it without asking the service
    const gets = (await emu.requests()).filter((q) => q.method === 'GET' && q.path === `/v1/posts/${p.id}`).length;
    expect(JSON.parse((await run(['history', '--json'])).stdout)[0].state).toBe('completed');
    expect((await emu.requests()).filter((q) => q.method === 'GET' && q.path === `/v1/posts/${p.id}`).length).toBe(gets);
  });

  it('--refresh tells what is now known: a post whose command timed out (exit 7) and has since published says published; the timeout stays in its outcomes', async () => {
    // The post is made, then every look of its wait hangs until --timeout.
    await emu.fault({ method: 'GET', path: '/v1/posts/*', action: 'hang', times: 50 });
    // The 2 s run out on a clock that moves only when told, once the post is made (never before it, however slow
    // the machine).
    const clock = manualClock();
    const making = run(['post', '--media', 'med_demo_sample', '--caption', 'hello', '--to', 'linkedin', '--timeout', '2s'], { clock });
    await timeUpWhen(clock, 2000, async () => (await emu.requests()).some((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201));
    const made = await making;
    expect(made.code).toBe(7);
    expect(made.stderr).toMatch(/Stopped waiting for post (post_\w+) after 2s \(--timeout\); it goes on at the service\./);
    const id = /Stopped waiting for post (post_\w+)/.exec(made.stderr)![1]!;
    await emu.admin('DELETE', '/faults');
    expect(JSON.parse((await run(['history', '--json'])).stdout)[0]).toMatchObject({ post_id: id, state: 'publishing', outcome: 'timeout' });
    await settled(id);

    const r = await run(['history', '--refresh', '--json']);
    expect(r.code).toBe(0);
    const p = JSON.parse(r.stdout)[0];
    expect(p).toMatchObject({ post_id: id, state: 'completed', outcome: 'published' });
    expect(p.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['created', 'timeout']);
    // A plain read of the journal afterwards tells the same.
    expect(JSON.parse((await run(['history', '--json'])).stdout)[0]).toMatchObject({ state: 'completed', outcome: 'published' });
  });

  it('--refresh reads drafts too: a draft whose publish got no answer (exit 9) and was published shows what it is now', async () => {
    const d = await post(['--to', 'linkedin', '--draft']);
    await emu.fault({ method: 'POST', path: `/v1/posts/${d.id}/publish`, action: 'reset_after_handling', times: 10 });
    const pub = await run(['publish', d.id, '--yes']);
    expect(pub.code).toBe(9);
    expect(pub.stderr).toMatch(new RegExp(`The outcome is unknown: post ${d.id} may have been sent to publish`));
    await emu.admin('DELETE', '/faults');
    await settled(d.id);
    expect(JSON.parse((await run(['history', '--json'])).stdout)[0]).toMatchObject({ post_id: d.id, state: 'draft' });

    const r = await run(['history', '--refresh', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ post_id: d.id, state: 'completed', outcome: 'published' });
  });

  it('--refresh against a service that never answers ends at --timeout: exit 7, the journal untouched', async () => {
    const p = await post(['--to', 'linkedin', '--no-wait']);
    await emu.fault({ method: 'GET', path: '/v1/posts/*', action: 'hang', times: 5 });
    const r = await run(['history', '--refresh', '--timeout', '1s'], { clock: undefined });
    expect(r.stderr).toMatch(new RegExp(`Stopped \\(--timeout reached\\) while reading post ${p.id} from the service; nothing more was refreshed\\.`));
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(JSON.parse((await run(['history', '--json'])).stdout)[0]).toMatchObject({ post_id: p.id, state: 'publishing' });
  });

  it('--refresh stops short of the minute\'s read allowance and says how many it left', async () => {
    // A second past a whole minute of the emulator's clock: the reads counted below all fall in that one minute
    // (61 s on from any point left as little as a second of it: on a loaded machine the minute turned under the
    // test and the refresh found its allowance whole again).
    await emu.api.freshMinute();
    const a = await post(['--to', 'linkedin', '--at', '+2h']);
    const b = await post(['--to', 'linkedin', '--at', '+3h']);
    // Spend reads until 6 are left: the first refresh leaves 5, the reserve.
    for (;;) {
      const res = await fetch(emu.baseUrl + '/me', { headers: { authorization: `Bearer ${emu.key()}` } });
      await res.text();
      if (Number(res.headers.get('x-ratelimit-remaining')) <= 6) break;
    }
    const before = (await emu.requests()).filter((q) => q.method === 'GET' && q.path.startsWith('/v1/posts/')).length;
    const r = await run(['history', '--refresh', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/1 post was not refreshed \(another profile's service or key, or to leave 5 reads of this minute's allowance\); run again to refresh it\./);
    expect((await emu.requests()).filter((q) => q.method === 'GET' && q.path.startsWith('/v1/posts/')).length).toBe(before + 1);
    expect((JSON.parse(r.stdout) as { post_id: string; state: string }[]).map((p) => [p.post_id, p.state])).toEqual([
      [b.id, 'scheduled'],
      [a.id, 'scheduled'],
    ]);
  });

  it('a damaged line: one warning naming the file and line, the rest listed', async () => {
    const a = await post(['--to', 'linkedin']);
    appendFileSync(join(stateDir, 'journal.jsonl'), '{"v":1,"kind":"po\n');
    const b = await post(['--to', 'linkedin']);
    const r = await run(['history']);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n').map((l) => l.split('\t')[0])).toEqual([b.id, a.id]);
    expect(r.stderr.match(/Skipped a damaged line/g)).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`! Skipped a damaged line in the journal: ${join(stateDir, 'journal.jsonl')} line \\d+ \\(the file is left as it is\\)\\.`));
  });
});

describe('vidpub status: no id, a video id, a draft', () => {
  it('no id: the last post made here with this profile', async () => {
    await post(['--to', 'linkedin']);
    const last = await post(['--to', 'youtube', '--option', 'visibility=public']);
    await post(['--to', 'linkedin'], { env: { VIDPUB_PROFILE: 'other' } });
    const r = await run(['status', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(last.id);
    expect(r.stderr).toMatch(new RegExp(`The last post made here: ${last.id}`));
  });

  it('no id and nothing made with this profile: exit 5', async () => {
    await post(['--to', 'linkedin'], { env: { VIDPUB_PROFILE: 'other' } });
    const r = await run(['status']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/Error: no post made from this machine is in the journal \(.*\) for this profile/);
    expect(r.stderr).toMatch(/vidpub history --all-profiles/);
  });

  it('a video id: its state and progress; --wait waits until it is ready (exit 0)', async () => {
    const up = await run(['upload', 'test/fixtures/clip.mp4', '--no-wait', '--json']);
    const id = JSON.parse(up.stdout).id as string;
    const now = await run(['status', id]);
    expect(now.code).toBe(0);
    expect(now.stdout).toMatch(new RegExp(`^id\\t${id}$`, 'm'));
    expect(now.stdout).toMatch(/^status\t(processing|ready)$/m);
    expect(now.stdout).toMatch(/^filename\tclip\.mp4$/m);
    const waited = await run(['status', id, '--wait', '--json']);
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ id, status: 'ready' });
  });

  it('a video that failed: its error; with --wait exit 6', async () => {
    await emu.fault({ media_fail: 'clip.mp4' });
    const up = await run(['upload', 'test/fixtures/clip.mp4', '--no-wait', '--json']);
    const id = JSON.parse(up.stdout).id as string;
    const waited = await run(['status', id, '--wait']);
    expect(waited.code).toBe(6);
    expect(waited.stderr).toMatch(new RegExp(`Error: Video ${id} \\(clip\\.mp4\\) failed: `));
    const look = await run(['status', id]);
    expect(look.code).toBe(0);
    expect(look.stdout).toMatch(/^status\tfailed$/m);
    expect(look.stdout).toMatch(/^error\t.+/m);
  });

  it('a post the service no longer knows: exit 5, and the journal says when it was made and how it was last seen', async () => {
    const p = await post(['--to', 'linkedin']);
    await emu.reset(); // the service forgets it (as a post deleted in the web app)
    for (const args of [['status', p.id], ['status']]) {
      const r = await run(args);
      expect(r.code).toBe(5);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`Error: Not found: No post with id "${p.id}" in this workspace\\. \\(HTTP 404 not_found\\)`));
      expect(r.stderr).toMatch(
        new RegExp(`This machine's journal has it: made on \\S+Z with profile "default" in workspace Demo, last seen completed on \\S+Z \\(vidpub history --json for all it recorded\\)\\.`),
      );
    }
  });

  it('a post made with another profile: exit 5, and the journal names that profile', async () => {
    const made = await run(['post', '--media', 'med_studio_sample', '--to', 'dst_studio_youtube', '--caption', 'hello', '--json'], { env: { ...emu.env('Studio'), VIDPUB_PROFILE: 'studio' } });
    expect(made.code).toBe(0);
    const p = JSON.parse(made.stdout) as Post;
    const r = await run(['status', p.id]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`This machine's journal has it: made on \\S+Z with profile "studio" in workspace Studio, last seen \\w+ on \\S+Z`));
    expect(r.stderr).toMatch(new RegExp(`vidpub --profile studio status ${p.id}`));
  });

  it('an unknown video: exit 5', async () => {
    const r = await run(['status', 'med_nope']);
    expect(r.code).toBe(5);
  });

  it('a draft: its caption and each destination\'s options', async () => {
    const d = await post(['--to', 'youtube', '--option', 'visibility=unlisted', '--draft', '--caption', 'draft words']);
    const r = await run(['status', d.id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^caption\tdraft words$/m);
    expect(r.stdout).toMatch(/^@vidpubdemo \(youtube\)\t\w+\t[^\t]*\t.*visibility=unlisted/m);
  });
});

import { describe, expect, it } from 'vitest';
import type { Post, RecordedRequest } from '../../src/contract/wire-types.js';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { CE_MIDNIGHT_UTC, IN_TIME, dayAhead, springForwardAhead } from '../support/dates.js';
import { exhaustDailyAllowance, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const TZ = 'Europe/Paris';

const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ } }));

const apiRequests = async (): Promise<RecordedRequest[]> => (await emu.requests()).filter((r) => r.path.startsWith('/v1/'));
const writes = async () => (await apiRequests()).filter((r) => r.method !== 'GET');
const count = (reqs: RecordedRequest[], method: string, path: string | RegExp) =>
  reqs.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path))).length;

const PRIVACY = ['--option', '@vidpub.demo:privacy=SELF_ONLY'];


describe('vidpub post: success', () => {
  it('uploads, posts now to two destinations, waits until each is published and prints each url (exit 0)', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo,youtube', '--caption', 'Hello', ...PRIVACY]);
    expect(r.stderr).toMatch(/Posting test\/fixtures\/clip.mp4 to @vidpub.demo \(tiktok\), @vidpubdemo \(youtube\): now, today [\d:]+ CES?T \(\S+Z\)/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^id\tpost_\w+$/m);
    expect(r.stdout).toMatch(/^status\tcompleted$/m);
    expect(r.stdout).toMatch(/^review_url\thttp:\/\/\S+\/_emulator\/review\/post_\w+$/m);
    expect(r.stdout).toMatch(/^@vidpub.demo \(tiktok\)\tpublished\thttp:\/\/\S+\/dst_demo_tiktok\t\t$/m);
    expect(r.stdout).toMatch(/^@vidpubdemo \(youtube\)\tpublished\thttp:\/\/\S+\/dst_demo_youtube\t\t$/m);
    // on a pipe, a plain line per change of state
    expect(r.stderr).toMatch(/^@vidpub.demo \(tiktok\): published/m);

    const id = /^id\t(\S+)$/m.exec(r.stdout)![1]!;
    const post = (await emu.api.get<Post>(`/posts/${id}`)).body;
    expect(post.caption).toBe('Hello');
    const tiktok = post.destinations.find((d) => d.destination_id === 'dst_demo_tiktok')!;
    const youtube = post.destinations.find((d) => d.destination_id === 'dst_demo_youtube')!;
    expect(tiktok.options.privacy).toBe('SELF_ONLY');
    // a required option with a default is satisfied by it
    expect(youtube.options.visibility).toBe('private');
  });

  it('--json prints the final post record', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'J', '--json']);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    expect(post.status).toBe('completed');
    expect(post.destinations[0]).toMatchObject({ destination_id: 'dst_demo_linkedin', status: 'published' });
    expect(post.review_url).toMatch(/^http/);
  });

  it('--at schedules the post, showing the time with its offset and in UTC before anything is sent', async () => {
    // a winter day, so Paris is on CET (UTC+1)
    const day = dayAhead([12, 1, 2]);
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'Later', '--at', `${day} 09:30`, '--option', 'allow_comments=no']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`Posting .*: ${day} 09:30 CET, in \\d+ d(?: \\d+ h)? \\(${day}T08:30:00Z\\)`));
    expect(r.stdout).toMatch(/^status\tscheduled$/m);
    // one value per field on a pipe: the record's publish_at
    const at = /^publish_at\t(\S+)$/m.exec(r.stdout)?.[1];
    expect(Date.parse(at!)).toBe(Date.parse(`${day}T08:30:00Z`));
    const body = (await emu.requests()).find((q) => q.method === 'POST' && q.path === '/v1/posts');
    expect(body?.status).toBe(201);
    const id = /^id\t(\S+)$/m.exec(r.stdout)![1]!;
    const post = (await emu.api.get<Post>(`/posts/${id}`)).body;
    expect(Date.parse(post.publish_at!)).toBe(Date.parse(`${day}T08:30:00Z`));
    expect(post.destinations[0]!.options.allow_comments).toBe(false);
  });

  it('--draft saves a draft and prints its id, review_url and issues', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', '', '--draft']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status\tdraft$/m);
    expect(r.stdout).toMatch(/^review_url\thttp\S+$/m);
    expect(r.stdout).toMatch(/^issue\twarning\tcaption_empty\t\tThe caption is empty\.$/m);
    expect(count(await writes(), 'POST', '/v1/posts')).toBe(1);
  });

  it('--no-wait returns once the post is created', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--no-wait']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Follow it with: vidpub status post_\w+ --wait/);
    expect(r.stdout).toMatch(/^status\t(publishing|completed)$/m);
  });

  it('--media posts a video already at the service, and --caption-file - reads stdin', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption-file', '-', '--json'], { stdin: 'From stdin\n' });
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    expect(post.media_id).toBe('med_demo_sample');
    expect(post.caption).toBe('From stdin');
    expect(count(await writes(), 'POST', '/v1/media/uploads')).toBe(0);
  });
});

describe('vidpub post: bad input (exit 2, nothing uploaded)', () => {
  const noUpload = async () => {
    const reqs = await apiRequests();
    expect(count(reqs, 'POST', '/v1/media/uploads')).toBe(0);
    expect(count(reqs, 'POST', '/v1/posts')).toBe(0);
  };

  it('an unknown destination', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', '@nobody', '--caption', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: unknown destination "@nobody"/);
    await noUpload();
  });

  it('an inactive destination', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'dst_demo_instagram', '--caption', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: cannot post to an inactive destination: @vidpub.demo \(instagram\) is disconnected/);
    await noUpload();
  });

  it('a missing required option without a terminal lists the exact flag with the allowed values', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo', '--caption', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: 1 required option is missing, and there is no terminal to ask on/);
    expect(r.stderr).toMatch(/--option @vidpub.demo:privacy=VALUE .*VALUE one of: PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY/);
    await noUpload();
  });

  it('--no-input refuses to ask even on a terminal', async () => {
    const r = await run(['--no-input', 'post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo', '--caption', 'x'], { tty: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--option @vidpub.demo:privacy=VALUE/);
    await noUpload();
  });

  it('a disallowed value lists the allowed ones', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo', '--caption', 'x', '--option', 'privacy=FRIENDS']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: "FRIENDS" is not an allowed value of privacy for @vidpub.demo\nAllowed values: PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY\./);
    await noUpload();
  });

  it('an unknown option key', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--option', 'colour=red']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: no chosen destination has an option "colour"/);
    await noUpload();
  });

  it('a past time, with no request at all', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', '2020-01-01T09:00:00Z']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: the time 2020-01-01T09:00:00\+00:00 \(2020-01-01T09:00:00Z\) for --at is in the past/);
    expect(await apiRequests()).toHaveLength(0);
  });

  it('a malformed time, with no request at all', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', 'tomorrow at 9am']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: invalid time "tomorrow at 9am" for --at\nFor example: now, "in 2h", \+30m, 9:00, "tomorrow 9:00"/);
    expect(await apiRequests()).toHaveLength(0);
  });

  it('a local time that does not exist in --tz (DST gap)', async () => {
    const day = springForwardAhead();
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', `${day} 02:30`, '--tz', 'Europe/Paris']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Error: the time "${day} 02:30" does not exist in Europe/Paris (clocks move forward that day)`);
    expect(await apiRequests()).toHaveLength(0);
  });

  it('a video longer than a destination takes (MP4 duration read locally)', async () => {
    const r = await run(['post', 'test/fixtures/long.mp4', '--to', '@vidpub.demo', '--caption', 'x', ...PRIVACY]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: test\/fixtures\/long.mp4 is 11m 40s long, too long to post: @vidpub.demo \(tiktok\) takes at most 10m/);
    await noUpload();
  });

  it('no caption and no terminal to ask for one', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: 1 required input is missing, and there is no terminal to ask on\nPass:\n {2}--caption TEXT +the caption \(or --caption-file PATH/);
  });

  it('in a script every missing input is named in one error (exit 2), nothing written: the privacy and the caption', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'tiktok']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: 2 required inputs are missing, and there is no terminal to ask on\nPass:\n {2}--caption TEXT .*\n {2}--option tiktok:privacy=VALUE /);
    expect((await emu.requests()).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('in a script without --to nor a caption: both named in one error (exit 2), nothing sent', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: 2 required inputs are missing, and there is no terminal to ask on\nPass:\n {2}--to DEST\[,DEST\.\.\.\] +where to post it .*\n {2}--caption TEXT /);
    expect(await emu.requests()).toEqual([]);
  });

  it('no --to', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--caption', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: --to is required/);
  });

  it('--draft with --at', async () => {
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--draft', '--at', '+1h']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: --draft saves a draft without a time/);
  });
});

describe('vidpub post: outcomes and faults', () => {
  it('a destination that fails: exit 6, its failure shown, the record still printed', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'youtube,linkedin', '--caption', 'x']);
    expect(r.code).toBe(6);
    expect(r.stdout).toMatch(/^@vidpubdemo \(youtube\)\tfailed\t\t\tyoutube refused the video .*\(platform_rejected\)$/m);
    expect(r.stdout).toMatch(/^@vidpub-demo \(linkedin\)\tpublished\t/m);
    expect(r.stderr).toMatch(/Error: Post post_\w+: 1 of 2 destinations did not publish: @vidpubdemo \(youtube\) failed/);
  });

  it('a link whose video turns out too long: exit 8 listing the issue, and no post is left', async () => {
    const r = await run(['post', 'https://cdn.example.com/talk.mp4?duration_sec=700', '--to', '@vidpub.demo', '--caption', 'x', ...PRIVACY]);
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/Error: Not posted: 1 issue of severity error blocks it; no post was created/);
    expect(r.stderr).toMatch(/error +@vidpub.demo \(tiktok\) takes videos up to 600 s; this one is 700 s\. \(video_too_long\)/);
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
    expect(state.workspaces.find((w) => w.name === 'Demo')!.posts.total).toBe(0);
  });

  it('the connection dropped after POST /posts took effect: the retry replays, exactly one post exists', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 1 });
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--json']);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    const posts = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.idempotency_key).toBeTruthy();
    expect(posts[1]!.idempotency_key).toBe(posts[0]!.idempotency_key);
    expect(posts[1]!.replayed).toBe(true);
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; post_ids: string[] }[] };
    expect(state.workspaces.find((w) => w.name === 'Demo')!.post_ids).toEqual([post.id]);
  });

  it('a rerun with the same --idempotency-key creates no second video and no second post', async () => {
    const args = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'nightly', '--idempotency-key', 'nightly-2026-11-21', '--json'];
    const first = await run(args);
    expect(first.code).toBe(0);
    const second = await run(args);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/was already created by an earlier run with this --idempotency-key; reporting it/);
    const a = JSON.parse(first.stdout) as Post;
    const b = JSON.parse(second.stdout) as Post;
    expect(b.id).toBe(a.id);
    expect(b.status).toBe('completed');
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; post_ids: string[]; media_ids: string[] }[] };
    const demo = state.workspaces.find((w) => w.name === 'Demo')!;
    expect(demo.post_ids).toEqual([a.id]);
    expect(demo.media_ids.filter((m) => m === a.media_id || !m.startsWith('med_demo_'))).toEqual([a.media_id]);
    // the rerun sent no bytes again
    const puts = (await emu.requests()).filter((q) => q.method === 'PUT');
    expect(puts).toHaveLength(1);
  });

  it('the same --idempotency-key for a different post: exit 2, and no second post', async () => {
    const base = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--idempotency-key', 'weekly-1'];
    expect((await run([...base, '--caption', 'first'])).code).toBe(0);
    const r = await run([...base, '--caption', 'second']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: --idempotency-key weekly-1 was used for a different post/);
    expect(r.stderr).toMatch(/Use a new key for a new post/);
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; post_ids: string[] }[] };
    expect(state.workspaces.find((w) => w.name === 'Demo')!.post_ids).toHaveLength(1);
  });

  it('a --at time that passes while the video uploads: exit 2 before POST /posts, naming the uploaded video', async () => {
    // The first look at the clock (parsing --at) is now; every later one is ten minutes on.
    let first = true;
    const clock = {
      now: () => (first ? ((first = false), Date.now()) : Date.now() + 600_000),
      sleep: (ms: number, signal?: AbortSignal) => scaledClock(50).sleep(ms, signal),
    };
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', '+5m'], { clock });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: the time \S+ \(\S+Z\) for --at passed while the video was being uploaded; nothing was posted\nThe video is uploaded: post it with --media med_\w+/);
    expect(count(await writes(), 'POST', '/v1/posts')).toBe(0);
  });

  it('the daily allowance used up: exit 4 with the reset time in local time and UTC, and no post left behind', async () => {
    await exhaustDailyAllowance(emu);
    // (under a key: the service decides, after the upload, as the post may be a replay)
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--idempotency-key', 'once']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(String.raw`Error: The daily post allowance is used up; no post was created \(the video is uploaded: med_\w+\)\. It resets at \S+ ${CE_MIDNIGHT_UTC}, ${IN_TIME} \(\d{4}-\d\d-\d\dT00:00:00Z\)\.`),
    );
    expect(r.stderr).toMatch(/Run again after the reset with --media med_\w+ .*--wait-for-quota/);
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
    // the 20 filler posts only
    expect(state.workspaces.find((w) => w.name === 'Demo')!.posts.total).toBe(20);
  });
});

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

describe('one vocabulary', () => {
  it('status --json of a post with a failed destination says so at the top level (state: failed), beside the service\'s status', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const made = await emu.api.post<Post>('/posts', {
      media_id: 'med_demo_sample',
      caption: 'one fails',
      destinations: [{ destination_id: 'dst_demo_linkedin' }, { destination_id: 'dst_demo_youtube' }],
      publish_at: 'now',
    });
    const r = await run(['status', made.body.id, '--wait', '--json']);
    expect(r.code).toBe(6);
    const doc = JSON.parse(r.stdout) as { id: string; status: string; state: string };
    expect(doc).toMatchObject({ id: made.body.id, status: 'completed', state: 'failed' });
    expect(Object.keys(doc).slice(0, 3)).toEqual(['id', 'status', 'state']);
    const only = await run(['status', made.body.id, '--json', 'id,state']);
    expect(JSON.parse(only.stdout)).toEqual({ id: made.body.id, state: 'failed' });
  });

  it('history --json names a post `id` as every command does (post_id kept), so history --json id,status works', async () => {
    const dir = (await import('../support/cli.js')).tempConfigDir();
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') };
    const posted = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'named', '--no-input', '--json', 'id,state'], { env });
    expect(posted.code).toBe(0);
    const { id, state } = JSON.parse(posted.stdout) as { id: string; state: string };
    expect(state).toBe('completed');
    const all = await run(['history', '--json'], { env });
    expect(JSON.parse(all.stdout)).toEqual([expect.objectContaining({ id, post_id: id, state: 'completed' })]);
    const r = await run(['history', '--json', 'id,status'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ id, status: 'completed' }]);
  });
});

describe('publish --option: a blocked draft fixed from the command line', () => {
  async function blockedDraft(): Promise<Post> {
    // TikTok's privacy is required and has no default: a draft without it is blocked.
    const r = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'blocked draft', destinations: [{ destination_id: 'dst_demo_tiktok' }] });
    expect(r.status).toBe(201);
    expect(r.body.issues.some((i) => i.severity === 'error')).toBe(true);
    return r.body;
  }

  it('posts the draft with the option given as a new post (exit 0); the draft stays a draft; the same command again makes nothing new', async () => {
    const draft = await blockedDraft();
    const dir = (await import('../support/cli.js')).tempConfigDir();
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') };
    const blocked = await run(['publish', draft.id, '--no-input'], { env });
    expect(blocked.code).toBe(8);

    const argv = ['publish', draft.id, '--option', '@vidpub.demo:privacy=SELF_ONLY', '--no-input', '--json'];
    const r = await run(argv, { env });
    expect(r.stderr).toContain(`is draft ${draft.id} with these options; the draft stays a draft (the service has no way to change a post).`);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post & { state: string };
    expect(post.id).not.toBe(draft.id);
    expect(post).toMatchObject({ media_id: 'med_demo_sample', caption: 'blocked draft', state: 'completed' });
    expect(post.destinations).toEqual([expect.objectContaining({ destination_id: 'dst_demo_tiktok', status: 'published', options: expect.objectContaining({ privacy: 'SELF_ONLY' }) })]);
    expect((await emu.api.get<Post>(`/posts/${draft.id}`)).body.status).toBe('draft');

    const again = await run(argv, { env });
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as Post).id).toBe(post.id);
    expect(again.stderr).toMatch(new RegExp(`Draft ${draft.id} was already posted with these options as post ${post.id}`));
  });

  it('refuses --option on a post that is not a draft, and an option no destination of the draft has (exit 2, nothing sent)', async () => {
    const draft = await blockedDraft();
    const unknown = await run(['publish', draft.id, '--option', 'colour=red', '--no-input']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no chosen destination has an option "colour"/);
    const done = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'out', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' });
    const r = await run(['publish', done.body.id, '--option', 'privacy=public', '--no-input']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`--option fixes a draft's options; post ${done.body.id} is (publishing|completed), so nothing was sent`));
  });
});

describe('open without an id', () => {
  it('opens the last post made here, as status does (its URL on stdout where no browser can open)', async () => {
    const dir = (await import('../support/cli.js')).tempConfigDir();
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') };
    const none = await run(['open', '--no-input'], { env });
    expect(none.code).toBe(5);
    expect(none.stderr).toMatch(/no post made from this machine is in the journal .* for this profile/);
    expect(none.stderr).toMatch(/Give the post id: vidpub open POST_ID/);
    const posted = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'open me', '--no-input', '--json', 'id,review_url'], { env });
    const { id, review_url } = JSON.parse(posted.stdout) as { id: string; review_url: string };
    const r = await run(['open', '--no-input'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`The last post made here: ${id}`);
    expect(r.stdout.trim()).toBe(review_url);
  });
});

describe('a time from now on a clock that is off the service\'s', () => {
  it('--at "in 1m" on a machine 3 hours behind the service says so before anything is sent, with when it goes out by the service\'s clock', async () => {
    const behind = { now: () => Date.now() - 3 * 3600_000, sleep: (ms: number, signal?: AbortSignal) => scaledClock(50).sleep(ms, signal) };
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'skewed', '--at', 'in 1m', '--no-input', '--no-wait'], { clock: behind });
    // The service's time is its Date header's whole second: the skew read is 3 hours give or take a second.
    expect(r.stderr).toMatch(/! --at 'in 1m' is counted from this machine's clock, which is (3h( \d+s)?|2h 59m 5\ds) behind the service's: by the service's clock the post goes out [\d ]+h[\d ]*m? ago\. Give a time of day or an ISO time \(--at 09:00\), or set this machine's clock right\./);
    // 3 hours behind: by the service's clock the time has passed, and it refuses it (exit 2) after the warning.
    expect(r.code).toBe(2);
    expect(r.stderr.indexOf('is counted from this machine')).toBeLessThan(r.stderr.indexOf('is in the past'));
    const plain = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'on time', '--at', 'in 1m', '--no-input', '--no-wait']);
    expect(plain.stderr).not.toMatch(/is counted from this machine's clock/);
  });
});

describe('a caption longer than a destination takes', () => {
  const long = 'x'.repeat(5000);
  it('is said before anything is sent (a warning on stderr), and the post goes out with the service\'s cut', async () => {
    const before = (await emu.requests()).length;
    const r = await run(['post', '--media', 'med_demo_sample', '--to', '@vidpub.demo,youtube', '--option', 'privacy=SELF_ONLY', '--caption', long, '--no-input']);
    expect(r.code).toBe(0);
    const warning = r.stderr.indexOf('! The caption has 5,000 characters and would be cut: @vidpub.demo (tiktok) takes 2,200. Shorten it, or add --strict to refuse such a post.');
    expect(warning).toBeGreaterThanOrEqual(0);
    expect(warning).toBeLessThan(r.stderr.indexOf('Posting video med_demo_sample'));
    expect((await emu.requests()).slice(before).some((q) => q.method === 'POST' && q.path === '/v1/posts')).toBe(true);
  });

  it('with --strict is exit 2 before anything is sent, naming the destination', async () => {
    const before = (await emu.requests()).length;
    const r = await run(['post', '--media', 'med_demo_sample', '--to', '@vidpub.demo,youtube', '--option', 'privacy=SELF_ONLY', '--caption', long, '--no-input', '--strict']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Error: the caption has 5,000 characters and would be cut: @vidpub.demo (tiktok) takes 2,200 (--strict); nothing was sent');
    expect((await emu.requests()).slice(before).filter((q) => q.method === 'POST')).toEqual([]);
  });
});

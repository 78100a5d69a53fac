/**
 * vidpub retry: a new post to the failed destinations only, confirmation at a
 * terminal, and a rerun that creates nothing (within the service's 24 hours
 * and past them).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { runCli, type RunOptions } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { scriptedPrompter } from '../support/prompter.js';

const emu = useEmulator({ processingMs: 20, publishMs: 100 });
let stateDir: string;

function run(args: string[], opts: RunOptions = {}) {
  return runCli(args, { clock: scaledClock(20), ...opts, env: { ...emu.env(), TZ: 'UTC', VIDPUB_STATE_DIR: stateDir, ...opts.env } });
}

const postsCreated = async () => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201 && !q.replayed);
const writes = async () => (await emu.requests()).filter((q) => q.path.startsWith('/v1/') && q.method !== 'GET');

/** A post to LinkedIn and YouTube whose YouTube destination failed; the fault is cleared afterwards. */
async function halfFailed(): Promise<string> {
  await emu.fault({ destination_fail: 'dst_demo_youtube' });
  const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--caption', 'launch', '--option', 'youtube:visibility=unlisted']);
  expect(r.code).toBe(6);
  await emu.admin('DELETE', '/faults');
  return /^id\t(\S+)$/m.exec(r.stdout)![1]!;
}

/**
 * Post `id` failed on LinkedIn and YouTube: `retry --to linkedin`, then `retry` (all the failed
 * ones) posts to YouTube alone, saying LinkedIn was retried already. The second retry's post, and
 * the count of posts before it.
 */
async function retryLinkedInThenAll(id: string): Promise<{ b: Post; before: number }> {
  const one = await run(['retry', id, '--to', 'linkedin', '--json']);
  expect(one.code).toBe(0);
  const a = JSON.parse(one.stdout) as Post;
  const before = (await postsCreated()).length;
  const all = await run(['retry', id, '--json']);
  expect(all.code).toBe(0);
  expect(all.stderr).toMatch(new RegExp(`@vidpub-demo \\(linkedin\\) was already retried as post ${a.id} on \\S+ \\(this machine's journal\\): not posted again\\.`));
  const b = JSON.parse(all.stdout) as Post;
  expect(b.destinations.map((d) => d.destination_id)).toEqual(['dst_demo_youtube']);
  expect((await postsCreated()).length).toBe(before + 1);
  return { b, before };
}

beforeEach(async () => {
  await emu.reset();
  stateDir = join(mkdtempSync(join(tmpdir(), 'vidpub-state-')), 'vidpub');
});

describe('vidpub retry', () => {
  it('after an injected failure: exactly one new post, for the failed destination only, with its options; its rerun creates none', async () => {
    const id = await halfFailed();
    const before = (await postsCreated()).length;
    const r = await run(['retry', id, '--json']);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    expect(post.id).not.toBe(id);
    expect(post.destinations.map((d) => d.destination_id)).toEqual(['dst_demo_youtube']);
    expect(post.destinations[0]!.options).toMatchObject({ visibility: 'unlisted' });
    expect(post.destinations[0]!.status).toBe('published');
    expect(post.caption).toBe('launch');
    expect((await postsCreated()).length).toBe(before + 1);
    expect(r.stderr).toMatch(new RegExp(`Retry of post ${id}: a new post of video med_demo_sample with the same caption and options to:`));
    expect(r.stderr).toMatch(/@vidpubdemo \(youtube\) {2}failed: youtube refused the video/);
    expect(r.stderr).toMatch(/Spends: 1 API post of \d+ left today \(of \d+; resets /);

    const again = await run(['retry', id, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).id).toBe(post.id);
    expect(again.stderr).toMatch(new RegExp(`This destination of post ${id} was already retried as post ${post.id}`));
    await emu.advance(25 * 3600);
    const nextDay = await run(['retry', id, '--json']);
    expect(JSON.parse(nextDay.stdout).id).toBe(post.id);
    expect((await postsCreated()).length).toBe(before + 1);

    const lines = readFileSync(join(stateDir, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.kind === 'post' && l.retry_of === id).map((l) => l.post_id)).toEqual([post.id]);
    const history = JSON.parse((await run(['history', '--json'])).stdout);
    expect(history.find((p: { post_id: string }) => p.post_id === id)).toMatchObject({ state: 'failed', retried_by: [post.id] });
  });

  it('a post with nothing failed: exit 0 with a sentence, nothing sent', async () => {
    const p = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'ok', destinations: [{ destination_id: 'dst_demo_linkedin' }], publish_at: 'now' });
    const r = await run(['retry', p.body.id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`Post ${p.body.id} has no destination that failed or was cancelled \\(1 destination, post \\w+\\): nothing to retry, nothing was sent\\.`));
    expect((await writes()).filter((q) => q.path === '/v1/posts')).toHaveLength(1); // only the test's own
  });

  it('--to a destination that did not fail: exit 2 naming those that did', async () => {
    const id = await halfFailed();
    const r = await run(['retry', id, '--to', 'linkedin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`Error: linkedin is not a destination of post ${id} that failed or was cancelled`));
    expect(r.stderr).toMatch(/Its destinations to retry: @vidpubdemo \(youtube\) \(failed\)\./);
  });

  it('--to "" (an empty variable in a script) is refused, not taken as every failed destination: exit 2, nothing sent', async () => {
    const id = await halfFailed();
    const before = (await postsCreated()).length;
    for (const to of ['', ' , ']) {
      const r = await run(['retry', id, '--to', to]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Error: --to names no destination: give the id, @handle or platform of a destination that failed, or leave --to out to retry them all/);
    }
    expect((await postsCreated()).length).toBe(before);
  });

  it('asks at a terminal; "no" sends nothing (exit 130)', async () => {
    const id = await halfFailed();
    const before = (await postsCreated()).length;
    const { prompter, asked } = scriptedPrompter([false]);
    const r = await run(['retry', id], { tty: true, prompter });
    expect(r.code).toBe(130);
    expect(asked).toMatchObject([{ kind: 'confirm', message: 'Post it now?' }]);
    expect(r.stderr).toMatch(/Cancelled: nothing was posted\./);
    expect((await postsCreated()).length).toBe(before);
  });

  it('a destination already retried from here is not posted again by a retry naming another set of destinations', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const made = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--caption', 'launch']);
    expect(made.code).toBe(6);
    await emu.admin('DELETE', '/faults');
    const id = /^id\t(\S+)$/m.exec(made.stdout)![1]!;
    // All the failed ones after LinkedIn alone: only YouTube is posted.
    const { b, before } = await retryLinkedInThenAll(id);

    // Both retried now: a rerun sends nothing (exit 0), naming both posts; --to youtube reports post b.
    for (const args of [[], ['--to', 'linkedin,youtube']]) {
      const again = await run(['retry', id, ...args]);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe('');
      expect(again.stderr).toMatch(new RegExp(`@vidpubdemo \\(youtube\\) was already retried as post ${b.id} on `));
      expect(again.stderr).toMatch(new RegExp(`Post ${id}: nothing to retry, nothing was sent\\.`));
    }
    const youtube = await run(['retry', id, '--to', 'youtube', '--json']);
    expect(youtube.code).toBe(0);
    expect(JSON.parse(youtube.stdout).id).toBe(b.id);
    expect((await postsCreated()).length).toBe(before + 1);
  });

  it('a post made elsewhere (not in this journal), retried here --to one then all: the first is not posted again', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const made = await emu.api.post<Post>('/posts', {
      media_id: 'med_demo_sample',
      caption: 'from elsewhere',
      destinations: [{ destination_id: 'dst_demo_linkedin' }, { destination_id: 'dst_demo_youtube' }],
      publish_at: 'now',
    });
    const id = made.body.id;
    await waitFor(async () => (await emu.api.call<Post>('GET', `/posts/${id}`)).body.status, (status) => status === 'completed');
    await emu.admin('DELETE', '/faults');
    await retryLinkedInThenAll(id);
  });

  it('--at +2h with no answer to the post (exit 9): the rerun the error gives carries the time sent, and reports the post made, none twice', async () => {
    const id = await halfFailed();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
    const cut = await run(['retry', id, '--at', '+2h', '--yes']);
    expect(cut.code).toBe(9);
    const made = (await postsCreated()).length;
    await emu.admin('DELETE', '/faults');
    // Run with another time, the service refuses the key: said as what it means for a retry (which takes no key).
    const other = await run(['retry', id, '--at', '+3h', '--yes']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      new RegExp(`Error: an earlier retry of post ${id} to @vidpubdemo \\(youtube\\) was sent with another time and may have made a post \\(this machine's journal has none from it\\); nothing was posted now`),
    );
    expect(other.stderr).toMatch(/Settle it with the command that retry's error gave \(with the --at it sent\); it reports the post if it was made\./);
    expect(other.stderr).not.toMatch(/use a new key/);
    expect(cut.stderr).toContain('Run the same command again to settle it (the line below carries the time that was sent): a retry already made is reported, not made twice.');
    const m = /Rerun to settle it \(nothing is done twice\): (vidpub retry .+)\n/.exec(cut.stderr);
    expect(m?.[1]).toMatch(new RegExp(`^vidpub retry ${id} --at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:Z|[+-]\\d\\d:\\d\\d) --yes$`));
    const again = await run([...m![1]!.split(' ').slice(1, -1), '--yes', '--json']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`Post (post_\\w+) was already created by an earlier retry of ${id}; reporting it\\.`));
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'scheduled' });
    expect((await postsCreated()).length).toBe(made);
  });

  it('--json with no answer to the post (exit 9): the document holds the rerun that settles it, with the time sent and no key', async () => {
    const id = await halfFailed();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
    const cut = await run(['retry', id, '--at', '+2h', '--json']);
    expect(cut.code).toBe(9);
    const doc = JSON.parse(cut.stdout) as { outcome: string; idempotency_key: string | null; rerun: string | null };
    expect(doc).toMatchObject({ outcome: 'unknown', idempotency_key: null });
    expect(doc.rerun).toMatch(new RegExp(`^vidpub retry ${id} --at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:Z|[+-]\\d\\d:\\d\\d) --json$`));
  });

  it('a post made here that the service no longer knows: exit 5, the journal says what it remembers', async () => {
    const id = await halfFailed();
    await emu.reset();
    const r = await run(['retry', id]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`Error: Not found: No post with id "${id}" in this workspace\\.`));
    expect(r.stderr).toMatch(/This machine's journal has it: made on \S+Z with profile "default" in workspace Demo, last seen failed on \S+Z/);
    expect(await writes()).toHaveLength(0);
  });

  it('an unknown post: exit 5', async () => {
    const r = await run(['retry', 'post_nope']);
    expect(r.code).toBe(5);
    expect((await writes())).toHaveLength(0);
  });
});

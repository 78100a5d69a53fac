/**
 * What post records in the journal, and the guard it gives --idempotency-key
 * beyond the service's 24 hours (the emulator's clock moved past them); a
 * journal that cannot be written; --no-journal.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { runCli, type RunOptions } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 100 });
let stateDir: string;

function run(args: string[], opts: RunOptions = {}) {
  return runCli(args, { clock: scaledClock(20), ...opts, env: { ...emu.env(), TZ: 'UTC', VIDPUB_STATE_DIR: stateDir, ...opts.env } });
}

const creates = async () => (await emu.requests()).filter((q) => q.method === 'POST' && (q.path === '/v1/posts' || q.path.startsWith('/v1/media')));
const records = (dir = stateDir) => readFileSync(join(dir, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

beforeEach(async () => {
  await emu.reset();
  stateDir = join(mkdtempSync(join(tmpdir(), 'vidpub-state-')), 'vidpub');
});

const NIGHTLY = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'nightly build', '--idempotency-key', 'nightly-42'];

describe('post records what it made', () => {
  it('the video and the post, with profile, service, workspace, key hash (never the key), file, size, caption, options, key and outcome', async () => {
    const r = await run([...NIGHTLY, '--json']);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    const text = readFileSync(join(stateDir, 'journal.jsonl'), 'utf8');
    expect(text).not.toContain(emu.key());
    const [media, created, end] = records();
    expect(media).toMatchObject({ kind: 'media', media_id: post.media_id, source: 'upload', size: 13734, status: 'ready', idem: 'nightly-42', outcome: 'ready' });
    expect(media!.file).toMatch(/test\/fixtures\/clip\.mp4$/);
    expect(created).toMatchObject({
      kind: 'post',
      profile: 'default',
      base_url: emu.baseUrl,
      workspace: 'Demo',
      workspace_id: expect.stringMatching(/\S/),
      key: expect.stringMatching(/^[0-9a-f]{12}$/),
      post_id: post.id,
      caption: 'nightly build',
      idem: 'nightly-42',
      outcome: 'created',
      destinations: [{ id: 'dst_demo_linkedin', name: '@vidpub-demo (linkedin)', options: expect.any(Object) }],
    });
    expect(end).toMatchObject({ kind: 'status', post_id: post.id, status: 'completed', outcome: 'published' });
  });

  it('with --workspace, the check and the journal share one GET /me (the key\'s workspace is read once)', async () => {
    const r = await run(['--workspace', 'Demo', 'post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'once', '--no-wait']);
    expect(r.code).toBe(0);
    expect(records().find((x) => x.kind === 'post')).toMatchObject({ workspace: 'Demo', caption: 'once' });
    expect((await emu.requests()).filter((q) => q.method === 'GET' && q.path === '/v1/me')).toHaveLength(1);
  });

  it('keeps the first 200 characters of a caption', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'c'.repeat(500), '--no-wait']);
    expect(r.code).toBe(0);
    expect(records().find((x) => x.kind === 'post')!.caption).toBe('c'.repeat(200));
  });
});

describe('a settled post reported again', () => {
  it("a rerun under the key soon after reads the settled post from the key's cache, not the service (afresh without the cache)", async () => {
    const cache = { VIDPUB_CACHE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-cache-')) };
    const first = await run([...NIGHTLY, '--json'], { env: cache });
    expect(first.code, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout) as Post;
    expect(a.status).toBe('completed');
    const reads = async () => (await emu.requests()).filter((q) => q.method === 'GET' && q.path === `/v1/posts/${a.id}`).length;
    const seen = await reads();
    const second = await run([...NIGHTLY, '--json'], { env: cache });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ id: a.id, status: 'completed' });
    expect(second.stderr).toMatch(`--idempotency-key nightly-42 was used for post ${a.id}`);
    expect(await reads()).toBe(seen);
    const fresh = await run([...NIGHTLY, '--json'], { env: { ...cache, VIDPUB_NO_CACHE: '1' } });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(await reads()).toBe(seen + 1);
  });
});

describe('rerun safety beyond 24 hours', () => {
  it('the next-day rerun with the same key creates nothing and reports the first post', async () => {
    const first = await run([...NIGHTLY, '--json']);
    expect(first.code).toBe(0);
    const a = JSON.parse(first.stdout) as Post;
    const before = (await creates()).length;
    await emu.advance(25 * 3600); // the service has forgotten the key
    const second = await run([...NIGHTLY, '--json']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).id).toBe(a.id);
    expect(second.stderr).toMatch(new RegExp(`--idempotency-key nightly-42 was used for post ${a.id} on \\S+ \\(this machine's journal\\): nothing new is created; reporting that post as it is now\\. To post again under this key, add --force-new\\.`));
    expect((await creates()).length).toBe(before);
    expect((await emu.requests()).filter((q) => q.method === 'PUT')).toHaveLength(1);
  });

  it('the same key with another caption, known to the journal only (after the service forgot it): exit 2 as the service says it, nothing posted', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const first = await run(NIGHTLY);
    expect(first.code).toBe(6);
    await emu.advance(25 * 3600);
    const second = await run([...NIGHTLY.slice(0, 4), '--caption', 'another caption', ...NIGHTLY.slice(6)]);
    expect(second.code).toBe(2);
    const id = /^id\t(\S+)$/m.exec(first.stdout)![1]!;
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(
      new RegExp(`^Error: --idempotency-key nightly-42 was used for a different post \\(post ${id}, made on \\S+\\) \\(another caption, destinations, options or time\\); nothing was posted$`, 'm'),
    );
    expect(second.stderr).toMatch(new RegExp(`vidpub retry ${id}\\. Use a new key for a new post, or add --force-new\\.`));
    expect((await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts')).toHaveLength(1);
  });

  // Where the service is the one to notice, the video was uploaded first: the message adds its id.
  it('the same key with another caption: one message and exit 2 with the journal, without it, and where the service alone knows the key', async () => {
    expect((await run(NIGHTLY)).code).toBe(0);
    const changed = [...NIGHTLY.slice(0, 4), '--caption', 'changed', ...NIGHTLY.slice(6)];
    const message = /^Error: --idempotency-key nightly-42 was used for a different post( \(post post_\w+, made on \S+\))? \(another caption, destinations, options or time\); nothing was posted( \(the video is uploaded: med_\w+; post it with --media med_\w+\))?$/m;
    const withJournal = await run(changed);
    const noJournal = await run([...changed, '--no-journal']);
    const elsewhere = await run(changed, { env: { VIDPUB_STATE_DIR: join(stateDir, 'elsewhere') } });
    for (const r of [withJournal, noJournal, elsewhere]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; post_ids: string[] }[] };
    expect(state.workspaces.find((w) => w.name === 'Demo')!.post_ids).toHaveLength(1);
  });

  it('--force-new posts again under a known key', async () => {
    expect((await run(NIGHTLY)).code).toBe(0);
    const r = await run([...NIGHTLY, '--force-new', '--json']);
    expect(r.code).toBe(0);
    const posts = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && !q.replayed);
    expect(posts).toHaveLength(2);
    expect(records().filter((x) => x.kind === 'post').map((x) => x.idem)).toEqual(['nightly-42', 'nightly-42']);
  });

  it('another workspace with the same key is not the same post', async () => {
    const second = ['post', '--media', 'med_second_sample', '--to', 'youtube', '--caption', 'x', '--option', 'visibility=public', '--idempotency-key', 'shared-key', '--no-wait'];
    expect((await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--idempotency-key', 'shared-key', '--no-wait'])).code).toBe(0);
    const r = await run(second, { env: emu.env('Demo Second') });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/this machine's journal/);
    expect((await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts')).toHaveLength(2);
  });

  it('a key refused by the service for a different post (no record here) shows the retry command', async () => {
    expect((await run(NIGHTLY, { env: { VIDPUB_STATE_DIR: join(stateDir, 'other') } })).code).toBe(0);
    const r = await run([...NIGHTLY.slice(0, 4), '--caption', 'different', ...NIGHTLY.slice(6)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: --idempotency-key nightly-42 was used for a different post \(another caption, destinations, options or time\); nothing was posted/);
    expect(r.stderr).toMatch(/vidpub retry POST_ID \("vidpub history" lists the posts made here\)/);
  });
});

describe('a journal that cannot be written never fails a post', () => {
  it('a full disk: one warning, the post is made (exit 0)', async () => {
    mkdirSync(stateDir, { recursive: true });
    symlinkSync('/dev/full', join(stateDir, 'journal.jsonl'));
    const r = await run([...NIGHTLY, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('completed');
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('! '));
    expect(warnings).toEqual([expect.stringMatching(/^! Could not write to the journal in \S+ \(ENOSPC\): this run is not recorded there\./)]);
  });

  it('a directory that cannot be made (read-only place): one warning, the post is made (exit 0)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vidpub-ro-')), 'not-a-dir');
    writeFileSync(file, '');
    const r = await run(NIGHTLY, { env: { VIDPUB_STATE_DIR: join(file, 'vidpub') } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status\tcompleted$/m);
    expect(r.stderr.match(/Could not write to the journal/g)).toHaveLength(1);
  });
});

describe('--no-journal', () => {
  it('--no-journal and VIDPUB_NO_JOURNAL=1 keep nothing', async () => {
    expect((await run(['--no-journal', ...NIGHTLY])).code).toBe(0);
    expect((await run(NIGHTLY, { env: { VIDPUB_NO_JOURNAL: '1' } })).code).toBe(0);
    expect(existsSync(stateDir)).toBe(false);
  });

  it('history with the journal off: exit 2 saying why', async () => {
    const r = await run(['history'], { env: { VIDPUB_NO_JOURNAL: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: vidpub history reads the local journal, which --no-journal or VIDPUB_NO_JOURNAL=1 turns off/);
  });
});

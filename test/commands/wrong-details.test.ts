/**
 * What a new user was told that was wrong or misleading (issue 29, items 1 to 13), in scripts
 * and at a terminal (the pseudo-terminal ones are in test/pty/): each asserts what is said now
 * and the exit code.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { runCli, tempConfigDir, type RunOptions } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { scriptedPrompter } from '../support/prompter.js';
import { exhaustDailyAllowance, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

function run(args: string[], opts: RunOptions = {}) {
  return runCli(args, { clock: scaledClock(50), ...opts, env: { ...emu.env(), TZ: 'UTC', NO_COLOR: '1', ...opts.env } });
}

beforeEach(async () => {
  await emu.reset();
});

describe('a required option filled from its default, in a script', () => {
  it('is said on stderr with the flag that chooses it, and named in --json', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'release', '--no-input', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("  visibility: private (the destination's default; pass --option youtube:visibility=VALUE to choose)");
    const post = JSON.parse(r.stdout) as Post & { destinations: { options_defaulted?: string[] }[] };
    expect(post.destinations[0]).toMatchObject({ destination_id: 'dst_demo_youtube', options: { visibility: 'private' }, options_defaulted: ['visibility'] });
  });

  it('given with --option, nothing is said and nothing is named', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'release', '--option', 'visibility=unlisted', '--no-input', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("the destination's default");
    const post = JSON.parse(r.stdout) as Post & { destinations: { options_defaulted?: string[] }[] };
    expect(post.destinations[0]!.options_defaulted).toBeUndefined();
    expect(post.destinations[0]!.options).toMatchObject({ visibility: 'unlisted' });
  });
});

describe("a post whose only destination failed", () => {
  it('status (without --wait) says failed and exits 6; history says the same', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const posted = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input']);
    expect(posted.code, posted.stderr).toBe(6);
    const id = /^id\t(post_\w+)$/m.exec(posted.stdout)![1]!;
    expect(posted.stdout).toMatch(/^status\tfailed$/m);

    const r = await run(['status', id]);
    expect(r.code).toBe(6);
    expect(r.stdout).toMatch(/^status\tfailed$/m);
    expect(r.stdout).not.toMatch(/completed/);
    expect(r.stdout).toMatch(/^@vidpub-demo \(linkedin\)\tfailed\t/m);
    expect(r.stderr).toMatch(new RegExp(`^Error: Post ${id}: 1 of 1 destination did not publish: @vidpub-demo \\(linkedin\\) failed`, 'm'));
    expect(r.stderr).toContain(`vidpub retry ${id}`);
  });

  it('post at a terminal prints "Status: failed" above the failed destination, and history agrees', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const dir = tempConfigDir();
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: `${dir}/state` };
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--yes'], { tty: true, env });
    expect(r.code, r.stderr).toBe(6);
    expect(r.stdout).toMatch(/Status: +failed/);
    expect(r.stdout).not.toMatch(/completed/);
    const h = await run(['history'], { env });
    expect(h.stdout).toMatch(/\tfailed\t/);
  });
});

describe('the daily allowance used up', () => {
  it('publish: the hint says when it resets and to rerun then or --wait-for-quota, never to schedule with --at', async () => {
    const draft = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'later', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
    await exhaustDailyAllowance(emu);
    const r = await run(['publish', draft.body.id, '--yes']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(new RegExp(`^Error: The daily post allowance is used up; post ${draft.body.id} was not published and stays as it was \\(a draft stays a draft\\)\\. It resets at .*\\(\\d{4}-\\d\\d-\\d\\dT00:00:00Z\\)\\.$`, 'm'));
    expect(r.stderr).toContain(`Run "vidpub publish ${draft.body.id}" again after the reset, or add --wait-for-quota to wait for it (scheduling with --at spends today's allowance too).`);
    expect(r.stderr).not.toMatch(/schedule it for after the reset|schedule the post for later/);
  });
});

describe('post FILE with the daily allowance used up', () => {
  it('is refused before the upload: exit 4, nothing uploaded, the reset time and what to run', async () => {
    await exhaustDailyAllowance(emu);
    const before = (await emu.requests()).length;
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--no-input', '--json']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { type: string; message: string; hint: string; exit_code: number } };
    expect(error).toMatchObject({ type: 'rate_limited', code: 'daily_post_limit', exit_code: 4 });
    expect(error.message).toMatch(/^The daily post allowance is used up; nothing was uploaded or posted\. It resets at .*\(\d{4}-\d\d-\d\dT00:00:00Z\)\.$/);
    expect(error.hint).toBe('Run the same command again after the reset, add --wait-for-quota to wait for it, or save it with --draft.');
    const sent = (await emu.requests()).slice(before);
    expect(sent.filter((q) => q.method !== 'GET')).toEqual([]);
    expect(sent.some((q) => q.path === '/v1/me')).toBe(true);
  });

  it('refused by the post itself after the upload: with --json, stdout carries the video made', async () => {
    await exhaustDailyAllowance(emu);
    // a rerun under a key may be a replay, which spends nothing: the service alone decides
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--idempotency-key', 'k-1', '--no-input', '--json']);
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout) as { post: null; media: { id: string; status: string } };
    expect(doc.post).toBeNull();
    expect(doc.media.id).toMatch(/^med_\w+$/);
    expect(r.stderr).toContain(`no post was created (the video is uploaded: ${doc.media.id})`);
  });

  it('a draft is saved: it spends nothing', async () => {
    await exhaustDailyAllowance(emu);
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--draft', '--no-input']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\tdraft$/m);
  });
});

describe('publish at a terminal, of a post whose issues block it', () => {
  it('exits 8 at once with the issues, without asking', async () => {
    // a draft to TikTok without its privacy: saved, with an issue of severity error
    const draft = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_tiktok' }] });
    expect(draft.body.issues.some((i) => i.severity === 'error')).toBe(true);
    const { prompter, asked } = scriptedPrompter([true]);
    const r = await run(['publish', draft.body.id], { tty: true, prompter });
    expect(r.code).toBe(8);
    expect(asked).toEqual([]);
    expect(r.stderr).not.toMatch(/Publish it now\?|About to publish/);
    expect(r.stderr).toMatch(new RegExp(`^Error: Post ${draft.body.id} was not published: 1 issue of severity error blocks it$`, 'm'));
    expect(r.stdout).toMatch(/Issues:\n +error +@vidpub\.demo \(tiktok\): .*\(missing_required_option\)/);
    expect((await emu.requests()).filter((q) => q.method === 'POST' && q.path.endsWith('/publish'))).toEqual([]);
  });
});

describe('pipe output: one value per field', () => {
  it('a destination line is name, status, url, warning, failure: each in a field of its own', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const long = 'x'.repeat(3100); // longer than LinkedIn takes: a warning once published
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--caption', long, '--no-input']);
    expect(r.code).toBe(6);
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('@'));
    const fields = Object.fromEntries(lines.map((l) => [l.split('\t')[0], l.split('\t')]));
    expect(fields['@vidpub-demo (linkedin)']).toEqual([
      '@vidpub-demo (linkedin)',
      'published',
      expect.stringMatching(/^http:\/\/\S+\/dst_demo_linkedin$/),
      'The caption was cut to 3000 characters. (caption_truncated)',
      '',
    ]);
    expect(fields['@vidpubdemo (youtube)']).toEqual(['@vidpubdemo (youtube)', 'failed', '', '', expect.stringMatching(/^youtube refused the video.* \(platform_rejected\)$/)]);
    expect(r.stdout).not.toMatch(/ · |warning: |failure: /);
  });

  it('at a terminal the details stay in one column, for people', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--yes'], { tty: true });
    expect(r.code).toBe(6);
    expect(r.stdout).toMatch(/@vidpubdemo \(youtube\) +failed +failure: youtube refused the video/);
  });
});

describe('login with --base-url, refused', () => {
  it('the hint repeats --base-url (and --profile): following it does not send the key to the default service', async () => {
    const env = { VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_API_KEY: undefined, VIDPUB_BASE_URL: undefined };
    const r = await runCli(['login', '--with-key', '--profile', 't1', '--base-url', emu.baseUrl], { stdin: 'vp_live_demo_revoked_X2v6Bn4Ts8Hj\n', env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^Error: The API key was refused: .*\(HTTP 401 revoked_key\)$/m);
    expect(r.stderr).toContain(`then run "vidpub login --profile t1 --base-url ${emu.baseUrl}".`);
    const invalid = await runCli(['login', '--with-key', '--base-url', emu.baseUrl], { stdin: 'vp_live_demo_notakey000000000000\n', env });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain(`Run "vidpub login --base-url ${emu.baseUrl}" with a valid key, or set VIDPUB_API_KEY.`);
  });
});

describe('Ctrl-C during --wait-for-quota', () => {
  it('post: says where things stand (the video made, nothing posted) and what to run', async () => {
    await exhaustDailyAllowance(emu);
    const stop = new AbortController();
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--wait-for-quota', '--no-input'], {
      signal: stop.signal,
      onStderr: (s) => {
        if (/waiting for the reset/.test(s)) stop.abort();
      },
    });
    expect(r.code).toBe(130);
    const id = r.stdout.trim();
    expect(id).toMatch(/^med_\w+$/);
    expect(r.stderr).toMatch(
      new RegExp(`^Error: Interrupted while waiting for the daily post allowance to reset; no post was created \\(the video is uploaded: ${id}\\)\\. It resets at .*\\(\\d{4}-\\d\\d-\\d\\dT00:00:00Z\\)\\.$`, 'm'),
    );
    expect(r.stderr).toContain(`Run again after the reset with --media ${id} instead of the file, add --wait-for-quota to wait for it, or save it with --draft.`);
    expect(r.stderr).not.toMatch(/^Error: Interrupted\.$/m);
  });

  it('publish: says the post stays as it was and what to run', async () => {
    const draft = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'later', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
    await exhaustDailyAllowance(emu);
    const stop = new AbortController();
    const r = await run(['publish', draft.body.id, '--wait-for-quota', '--no-input'], {
      signal: stop.signal,
      onStderr: (s) => {
        if (/waiting for the reset/.test(s)) stop.abort();
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      new RegExp(`^Error: Interrupted while waiting for the daily post allowance to reset; post ${draft.body.id} was not published and stays as it was \\(a draft stays a draft\\)\\. It resets at .*Z\\)\\.$`, 'm'),
    );
    expect(r.stderr).toContain(`Run "vidpub publish ${draft.body.id}" again after the reset, or add --wait-for-quota to wait for it`);
    expect((await emu.api.get<Post>(`/posts/${draft.body.id}`)).body.status).toBe('draft');
  });
});

describe("the emulator's key table", () => {
  it('lists the Free key as having no access, not read_write (its workspace has no API access)', async () => {
    const stop = new AbortController();
    let seen = '';
    const r = await runCli(['emulator', '--port', '0'], {
      signal: stop.signal,
      env: { NO_COLOR: '1' },
      onStderr: (chunk) => {
        seen += chunk;
        if (/Press Ctrl-C/.test(seen)) stop.abort();
      },
    });
    const all = r.stdout + r.stderr;
    expect(all).toMatch(/^vp_live_free_rw_Z5c1Rm7Ue3Kp8Dw4\tFree\tfree\tnone$/m);
    expect(all).toMatch(/^vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td\tDemo\tstandard\tread_write$/m);
    // and the service agrees: every call of that key is refused
    const me = await runCli(['me'], { env: { ...emu.env(), VIDPUB_API_KEY: 'vp_live_free_rw_Z5c1Rm7Ue3Kp8Dw4' } });
    expect(me.code).toBe(3);
    expect(me.stderr).toMatch(/plan_without_api_access/);
  });
});

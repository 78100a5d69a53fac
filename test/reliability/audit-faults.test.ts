/**
 * Faults found by an audit of the unattended commands, each over real HTTP
 * against the emulator: what the command says, its exit code, and (from
 * /_emulator/state) that nothing was created twice.
 */
import { describe as serialDescribe, expect, it as baseIt } from 'vitest';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../support/cli.js';
import { runTimedOut, runWaitsCut } from '../support/clocked-run.js';
import { exhaustDailyAllowance, startTestEmulator, type TestEmulator } from '../support/emulator.js';

// They run side by side, each against an emulator of its own. A --timeout runs out on a manual clock in the wait
// that matters (timeUpWhen), but for one write whose answer comes after its real deadline.
const describe = serialDescribe.concurrent;
const it = baseIt.extend<{ emu: TestEmulator }>({
  // eslint-disable-next-line no-empty-pattern
  emu: async ({}, use) => {
    const own = await startTestEmulator({ processingMs: 20, publishMs: 30 });
    try {
      await use(own);
    } finally {
      await own.close();
    }
  },
});

/** Requests of `method` to `path` the emulator logged with `fault` (and, given, `status`). */
const logged = (emu: TestEmulator, method: string, path: string, fault: string, status?: number) => async () =>
  (await emu.requests()).some((q) => q.method === method && (path.endsWith('*') ? q.path.startsWith(path.slice(0, -1)) : q.path === path) && q.fault === fault && (status === undefined || q.status === status));

const postsTotal = async (emu: TestEmulator): Promise<number> => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
};

describe('a write whose first attempt got no answer', () => {
  it('a 429 on the retry beyond --max-wait is an unknown outcome (exit 9 with the rerun), not "rate limited"', async ({ emu }) => {
    const before = await postsTotal(emu);
    // The first attempt creates the post but its answer is lost; the retry is refused for the minute's allowance.
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 1 });
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 429, retry_after: 30, times: 1 });
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input', '--max-wait', '5s'];
    const r = await runCli(args, { env: emu.env() });
    expect(r.stderr).toMatch(/The outcome is unknown: the post may have been created \(video med_demo_sample\)/);
    expect(r.stderr).not.toMatch(/Try again in 30s/);
    const rerun = /Rerun to settle it \(nothing is done twice\): vidpub (.*) --idempotency-key (vp-\S+)/.exec(r.stderr);
    expect(rerun).not.toBeNull();
    expect(r.stdout).toBe('med_demo_sample\n');
    expect(r.code).toBe(9);
    expect(await postsTotal(emu)).toBe(before + 1);

    // The printed rerun reports the post the first attempt made: still one post.
    const again = await runCli([...args, '--idempotency-key', rerun![2]!], { env: emu.env() });
    expect(again.stderr).toMatch(/Post post_\w+ was already created by an earlier run with this --idempotency-key; reporting it\./);
    expect(again.code).toBe(0);
    expect(await postsTotal(emu)).toBe(before + 1);
  });
});

/** A post whose LinkedIn destination failed (exit 6), made by the CLI (its looks at the post as it publishes ended as they begin); its id. */
async function failedPost(emu: TestEmulator): Promise<string> {
  await emu.fault({ destination_fail: 'dst_demo_linkedin' });
  const r = await runWaitsCut(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input', '--quiet', '--timeout', '60s'], { env: emu.env() }, 60_000);
  expect(r.code).toBe(6);
  await emu.admin('DELETE', '/faults');
  return r.stdout.trim();
}

describe('a write whose retry is refused by the operation itself', () => {
  it('a daily-allowance 429 after a dropped attempt stays a refusal (exit 4): a handled attempt would have been replayed', async ({ emu }) => {
    const body = JSON.stringify({ error: { type: 'rate_limited', code: 'daily_post_limit', message: 'The daily post allowance is used up.' } });
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_before_handling', times: 1 });
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 429, retry_after: 60, content_type: 'application/json', body, times: 1 });
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input'], { env: emu.env() });
    expect(r.stderr).toMatch(/Error: The daily post allowance is used up; no post was created\./);
    expect(r.stderr).not.toMatch(/outcome is unknown/);
    expect(r.code).toBe(4);
  });
});

describe('retry under faults', () => {
  it('POST /posts not answered before --timeout: exit 9 at the deadline, naming the command that settles it; that rerun makes one post', async ({ emu }) => {
    const id = await failedPost(emu);
    const before = await postsTotal(emu);
    // The service creates the retry's post, but only after the command's deadline.
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 3000 });
    const r = await runCli(['retry', id, '--timeout', '2s', '--no-input'], { env: emu.env() });
    expect(r.stderr).toMatch(new RegExp(`Error: The outcome is unknown: the retry of post ${id} may have been created; the --timeout was reached before the service answered\\.`));
    expect(r.stderr).toContain(`Rerun to settle it (nothing is done twice): vidpub retry ${id} --timeout 2s --no-input\n`);
    expect(r.stderr).not.toMatch(/--idempotency-key/);
    expect(r.code).toBe(9);

    const again = await runCli(['retry', id, '--no-input'], { env: emu.env() });
    expect(again.stderr).toMatch(new RegExp(`Post post_\\w+ was already created by an earlier retry of ${id}; reporting it\\.`));
    expect(again.code).toBe(0);
    expect(await postsTotal(emu)).toBe(before + 1);
  });

  it('GET of the post never answered: exit 7 at the --timeout, saying nothing was posted', async ({ emu }) => {
    const id = await failedPost(emu);
    await emu.fault({ method: 'GET', path: `/v1/posts/${id}`, action: 'hang', times: 10 });
    const r = await runTimedOut(['retry', id, '--timeout', '2s', '--no-input'], { env: emu.env() }, 2000, logged(emu, 'GET', `/v1/posts/${id}`, 'hang'), { inFlight: true });
    expect(r.stderr).toMatch(new RegExp(`Error: Stopped \\(--timeout reached\\) before the retry of post ${id} was sent; nothing was posted\\.`));
    expect(r.stdout).toBe('');
    expect(r.code).toBe(7);
  });
});

describe('status --wait under faults', () => {
  it('rides out an outage on its first look too (5xx past the client retries), then reports the post', async ({ emu }) => {
    const created = await emu.api.post<{ id: string }>('/posts', { media_id: 'med_demo_sample', caption: 'x', publish_at: 'now', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
    expect(created.status).toBe(201);
    const id = created.body.id;
    // More failures than the client's own 4 attempts of one request.
    await emu.fault({ method: 'GET', path: `/v1/posts/${id}`, action: 'status', status: 502, times: 5 });
    const r = await runWaitsCut(['status', id, '--wait', '--timeout', '30s', '--no-input'], { env: emu.env() }, 30_000);
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.stdout).toMatch(new RegExp(`^id\\t${id}\\nstatus\\tcompleted\\n`));
    expect(r.code).toBe(0);
    const looks = (await emu.requests()).filter((q) => q.path === `/v1/posts/${id}`);
    expect(looks.filter((q) => q.status === 502)).toHaveLength(5);
  });

  it('an outage past --timeout on its first look: exit 7 (stopped waiting), not exit 1', async ({ emu }) => {
    const created = await emu.api.post<{ id: string }>('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
    const id = created.body.id;
    await emu.fault({ method: 'GET', path: `/v1/posts/${id}`, action: 'reset_before_handling', times: 1000 });
    // The time is up once more looks failed than the client's own 4 attempts of one request (its waits ended as they begin).
    const failed = async () => (await emu.requests()).filter((q) => q.path === `/v1/posts/${id}` && q.fault === 'reset_before_handling').length > 4;
    const r = await runTimedOut(['status', id, '--wait', '--timeout', '60s', '--no-input'], { env: emu.env() }, 60_000, failed, { meanwhile: true });
    expect(r.stderr).toMatch(new RegExp(`Error: Stopped \\(--timeout reached\\) before post ${id} could be read\\.`));
    expect(r.stdout).toBe('');
    expect(r.code).toBe(7);
  });
});

describe('status --wait interrupted during an outage on its first look', () => {
  it('says it stopped waiting for that post and how to look again (exit 130), not a bare "Interrupted."', async ({ emu }) => {
    const created = await emu.api.post<{ id: string }>('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
    const id = created.body.id;
    await emu.fault({ method: 'GET', path: `/v1/posts/${id}`, action: 'status', status: 503, times: 1000 });
    const ctrlC = new AbortController();
    const r = await runCli(['status', id, '--wait', '--no-input'], {
      env: emu.env(),
      signal: ctrlC.signal,
      onStderr: (chunk) => {
        if (chunk.includes('retrying')) ctrlC.abort();
      },
    });
    expect(r.stderr).toMatch(new RegExp(`Error: Interrupted: stopped waiting for post ${id}; it goes on at the service\\.\\nCheck on it later with: vidpub status ${id} --wait\\n`));
    expect(r.code).toBe(130);
  });
});

describe('status --wait of a video under faults', () => {
  it('rides out an outage on its first look too', async ({ emu }) => {
    await emu.fault({ method: 'GET', path: '/v1/media/med_demo_sample', action: 'status', status: 502, times: 5 });
    const r = await runWaitsCut(['status', 'med_demo_sample', '--wait', '--timeout', '30s', '--no-input', '--json'], { env: emu.env() }, 30_000);
    expect(r.stderr).not.toMatch(/Error:/);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'med_demo_sample', status: 'ready' });
    expect(r.code).toBe(0);
  });
});

describe('post --media: the messages do not speak of an upload there was none of', () => {
  it('the daily allowance used up: exit 4, the reset time, and a rerun of the same command', async ({ emu }) => {
    await exhaustDailyAllowance(emu);
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input'], { env: emu.env() });
    expect(r.stderr).toMatch(/Error: The daily post allowance is used up; no post was created\. It resets at .*\(\d{4}-\d\d-\d\dT00:00:00Z\)\.\n/);
    expect(r.stderr).toMatch(/Run the same command again after the reset, add --wait-for-quota to wait for it, or save it with --draft\./);
    expect(r.stderr).not.toMatch(/uploaded|instead of the file/);
    expect(r.code).toBe(4);
  });

  it('the --timeout reached while creating the post: exit 7, nothing posted, no "uploaded" video', async ({ emu }) => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 429, retry_after: 30, times: 1 });
    // The time is up while the command waits out the 429's 30 s.
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input', '--timeout', '2s'];
    const r = await runTimedOut(args, { env: emu.env() }, 2000, logged(emu, 'POST', '/v1/posts', 'status', 429));
    expect(r.stderr).toMatch(/Error: Stopped \(--timeout reached\) while creating the post; nothing was posted\.\n/);
    expect(r.stderr).not.toMatch(/uploaded/);
    expect(r.code).toBe(7);
  });

  it('a link: the daily allowance names the imported video and the link', async ({ emu }) => {
    await exhaustDailyAllowance(emu);
    // (under a key: the service decides, after the import, as the post may be a replay)
    const r = await runCli(['post', 'https://cdn.example.com/talk.mp4', '--to', 'linkedin', '--caption', 'x', '--idempotency-key', 'once', '--no-input'], { env: emu.env() });
    expect(r.stderr).toMatch(/Error: The daily post allowance is used up; no post was created \(the video is imported: med_\w+\)\./);
    expect(r.stderr).toMatch(/Run again after the reset with --media med_\w+ instead of the link, add --wait-for-quota/);
    expect(r.code).toBe(4);
  });
});

describe('history --refresh', () => {
  it('a post the service no longer has is said so and kept as last seen; the others are refreshed and listed (exit 0)', async ({ emu }) => {
    const dir = tempConfigDir();
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') };
    const schedule = async (caption: string) => {
      const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', caption, '--at', '+2h', '--no-input', '--quiet'], { env });
      expect(r.code).toBe(0);
      return r.stdout.trim();
    };
    const gone = await schedule('gone');
    await emu.reset(); // the service forgets it (as if deleted in the web app)
    const kept = await schedule('kept');
    await emu.api.admin('POST', `/posts/${kept}/cancel`);

    const r = await runCli(['history', '--refresh', '--no-input'], { env });
    expect(r.stderr).toMatch(new RegExp(`Post ${gone} was not found at the service \\(deleted\\?\\): its last state seen here is shown\\.`));
    expect(r.stdout).toMatch(new RegExp(`^${kept}\\t\\S+\\tfailed\\tdst_demo_linkedin:cancelled\\tkept$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^${gone}\\t\\S+\\tscheduled\\tdst_demo_linkedin:pending\\tgone$`, 'm'));
    expect(r.code).toBe(0);
  });

  it('the service not answering within --timeout: exit 7, saying what to do (a longer --timeout, or no --refresh)', async ({ emu }) => {
    const dir = tempConfigDir();
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') };
    const made = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--at', '+2h', '--no-input', '--quiet'], { env });
    const id = made.stdout.trim();
    await emu.fault({ method: 'GET', path: `/v1/posts/${id}`, action: 'hang', times: 10 });
    const r = await runTimedOut(['history', '--refresh', '--timeout', '2s', '--no-input'], { env }, 2000, logged(emu, 'GET', `/v1/posts/${id}`, 'hang'), { inFlight: true });
    expect(r.stderr).toMatch(new RegExp(`Error: Stopped \\(--timeout reached\\) while reading post ${id} from the service; nothing more was refreshed\\.`));
    expect(r.stderr).toMatch(/Run it again with a longer --timeout, or without --refresh to list the states last seen\./);
    expect(r.code).toBe(7);
  });
});

describe('--wait-for-quota', () => {
  it('a daily-allowance 429 without a reset time says it asks again, not "the reset at the next reset"', async ({ emu }) => {
    const body = JSON.stringify({ error: { type: 'rate_limited', code: 'daily_post_limit', message: 'The daily post allowance is used up.' } });
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 429, retry_after: null, content_type: 'application/json', body, times: 1 });
    // The time is up while the command waits the minute before it asks again.
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input', '--wait-for-quota', '--timeout', '2s'];
    const r = await runTimedOut(args, { env: emu.env() }, 2000, logged(emu, 'POST', '/v1/posts', 'status', 429));
    expect(r.stderr).toMatch(/Daily post allowance used up and the service gave no reset time; asking again in 1m \(--wait-for-quota\)/);
    expect(r.stderr).not.toMatch(/at the next reset/);
    expect(r.stderr).toMatch(/Error: Stopped \(--timeout reached\) while creating the post; nothing was posted\./);
    expect(r.code).toBe(7);
  });
});

describe('upload stopped by --timeout before its complete', () => {
  it('names the key whose rerun completes that video; the rerun makes no second video', async ({ emu }) => {
    // Every byte arrives, but the storage's answer is trickled past the deadline: the video stays "uploading".
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'trickle', ms: 1000, times: 1 });
    // The time is up once the storage's answer has begun to trickle (every byte of the file arrived).
    const r = await runTimedOut(['upload', 'test/fixtures/clip.mp4', '--timeout', '2s', '--no-input'], { env: emu.env() }, 2000, async () => (await emu.requests()).some((q) => q.method === 'PUT' && q.fault === 'trickle' && q.status > 0), { inFlight: true });
    expect(r.stderr).toMatch(/Error: Stopped \(--timeout reached\) during the upload of clip\.mp4 \(video med_\w+, \d+% sent\); it was not completed\./);
    const hint = /Run the same command again with --idempotency-key (vp-\S+) to finish video (med_\w+) \(a longer --timeout helps\); without it the file is uploaded again as a new video\./.exec(r.stderr);
    expect(hint).not.toBeNull();
    expect(r.stdout).toBe(`${hint![2]}\n`);
    expect(r.code).toBe(7);

    const again = await runCli(['upload', 'test/fixtures/clip.mp4', '--no-input', '--idempotency-key', hint![1]!], { env: emu.env() });
    expect(again.stdout).toBe(`${hint![2]}\n`);
    expect(again.code).toBe(0);
    const created = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads' && q.status === 201 && !q.replayed);
    expect(created).toHaveLength(1);
  });
});

/**
 * Answers outside the contract: a 200 whose record is not a post or a video
 * (no status) is refused with the request named (exit 1), never printed as a
 * post or taken for a finished video; a gateway's 502/504 in the service's
 * place leaves a write's outcome open (exit 9), a 503 does not.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { runTimedOut, runWaitsCut } from '../support/clocked-run.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 30 });
/** post's default --timeout (30m): its deadline, the one wait not ended as it begins when the client's backoff and the looks at a post publishing are. */
const POST_TIMEOUT_MS = 30 * 60_000;

async function aPost(): Promise<string> {
  const r = await runWaitsCut(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input', '--quiet'], { env: emu.env() }, POST_TIMEOUT_MS);
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

describe('a record without a status', () => {
  it('status ID: GET /posts/{id} answered 200 {} is an unexpected response (exit 1), not a crash', async () => {
    const id = await aPost();
    await emu.fault({ method: 'GET', path: '/v1/posts/*', action: 'status', status: 200, content_type: 'application/json', body: '{}', times: 1 });
    const r = await runCli(['status', id], { env: emu.env() });
    expect(r.stderr).toContain(`Error: Unexpected response to GET /v1/posts/${id}: HTTP 200 without the post's status.`);
    expect(r.stderr).not.toMatch(/unexpected: |please report it|TypeError/);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
  });

  it('status MEDIA --wait: a 200 [] for GET /media/{id} is looked at again, never taken for a finished video', async () => {
    await emu.fault({ method: 'GET', path: '/v1/media/*', action: 'status', status: 200, content_type: 'application/json', body: '[]', times: 50 });
    // The time is up once the video was looked at again (the pause between the looks ended as it begins).
    const lookedAgain = async () => (await emu.requests()).filter((q) => q.path === '/v1/media/med_demo_sample' && q.fault === 'status').length >= 2;
    const r = await runTimedOut(['status', 'med_demo_sample', '--wait', '--timeout', '60s', '--json'], { env: emu.env() }, 60_000, lookedAgain, { meanwhile: true });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Stopped (--timeout reached) before video med_demo_sample could be read.');
    expect(r.code).toBe(7);
  });
});

describe('a gateway answering for the service', () => {
  const postsTotal = async (): Promise<number> => {
    const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
    return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
  };

  it('POST /posts answered 504 on every attempt: outcome unknown (exit 9) with the rerun, not "try again"', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 504, content_type: 'text/html', body: '<html>Gateway Timeout</html>', times: 10 });
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'gateway', '--no-input'];
    const r = await runWaitsCut(args, { env: emu.env() }, POST_TIMEOUT_MS);
    expect(r.stderr).toContain("The outcome is unknown: the post may have been created (video med_demo_sample); a gateway answered HTTP 504 in the service's place.");
    expect(r.stderr).not.toMatch(/try again in a minute/);
    const rerun = /Rerun to settle it \(nothing is done twice\): vidpub .* --idempotency-key (vp-\S+)/.exec(r.stderr);
    expect(rerun).not.toBeNull();
    expect(r.code).toBe(9);

    // Here the gateway passed nothing on: the rerun posts, once.
    await emu.admin('DELETE', '/faults');
    const before = await postsTotal();
    const again = await runWaitsCut([...args, '--idempotency-key', rerun![1]!], { env: emu.env() }, POST_TIMEOUT_MS);
    expect(again.code).toBe(0);
    expect(await postsTotal()).toBe(before + 1);
  });

  it('a 503 on every attempt stays a failure of the service (exit 1): it did not take the request', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 503, retry_after: null, times: 10 });
    const r = await runWaitsCut(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input'], { env: emu.env() }, POST_TIMEOUT_MS);
    expect(r.stderr).toMatch(/Error: The service failed on POST \S+\/v1\/posts: .*HTTP 503/);
    expect(r.stderr).not.toMatch(/outcome is unknown/);
    expect(r.code).toBe(1);
  });
});

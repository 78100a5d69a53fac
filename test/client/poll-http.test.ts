/**
 * poll() with the real client over real HTTP against the emulator and its
 * faults: 503 bursts and dropped connections while a video processes are
 * ridden out; a deadline during trouble keeps the last record; 404 and 401
 * end the wait at once; a look that hangs past the deadline is abandoned.
 */
import { describe, expect, test } from 'vitest';
import type { ClientSettings } from '../../src/api/client.js';
import { poll } from '../../src/api/wait/poll.js';
import type { Media } from '../../src/contract/wire-types.js';
import { AuthError, ExitCode, NotFoundError, TimeoutError, VidpubError } from '../../src/errors.js';
import { createClientFor } from '../../src/cli/run/client-factory.js';
import { makeContext } from '../support/cli.js';
import { virtualClock } from '../support/clock.js';
import { expectError } from '../support/errors.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 400 });

const SETTINGS: ClientSettings = { profile: 'default', debug: false, maxWaitMs: 600_000, waitForQuota: false, quiet: true };
const FAST = { baseMs: 20, capMs: 80 };

async function setup(key?: string) {
  const { ctx } = makeContext({ env: { ...emu.env(), ...(key ? { VIDPUB_API_KEY: key } : {}) } });
  const client = await createClientFor(ctx, SETTINGS, { backoff: FAST, maxRetries: 1 });
  return { ctx, client };
}

/** An uploaded video, processing (create, PUT, complete). */
async function processingVideo(client: Client): Promise<Media> {
  const { media, upload } = await client.createUpload({ filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: 16 });
  const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: Buffer.alloc(16) });
  expect(put.status).toBeLessThan(300);
  return client.completeUpload(media.id);
}

type Client = Awaited<ReturnType<typeof setup>>['client'];

/** Looks at the video; the first look succeeds, then `fault` is set before the second one. */
function faultFromSecondLook(client: Client, id: string, fault: Parameters<typeof emu.fault>[0]) {
  let looks = 0;
  return async ({ signal }: { signal: AbortSignal }): Promise<Media> => {
    if (looks++ === 1) await emu.fault(fault);
    return client.getMedia(id, { signal });
  };
}

function mediaGets(reqs: { method: string; path: string; status: number; fault?: string | null }[], id: string) {
  return reqs.filter((r) => r.method === 'GET' && r.path === `/v1/media/${id}`);
}

describe('poll over HTTP rides out trouble', () => {
  test('a burst of 503s on GET /v1/media/*: the wait goes on and returns the ready video', async () => {
    const { ctx, client } = await setup();
    const m = await processingVideo(client);
    await emu.fault({ method: 'GET', path: '/v1/media/*', action: 'status', status: 503, retry_after: null, times: 6 });
    const retried: unknown[] = [];
    const ready = await poll<Media>({
      fetch: ({ signal }) => client.getMedia(m.id, { signal }),
      done: (x) => x.status !== 'processing' && x.status !== 'uploading',
      onRetry: (err) => retried.push(err),
      backoff: FAST,
      clock: ctx.clock,
      what: `video ${m.id}`,
      deadlineMs: ctx.clock.now() + 60_000,
    });
    expect(ready.status).toBe('ready');
    const gets = mediaGets(await emu.requests(), m.id);
    expect(gets.filter((g) => g.status === 503)).toHaveLength(6);
    expect(gets.at(-1)!.status).toBe(200);
    // The client tries twice per look (maxRetries 1): six 503s are three failed looks.
    expect(retried).toHaveLength(3);
    await client.close();
  });

  test('connections dropped before handling (reset_before_handling on GET): ridden out, the video is ready', async () => {
    const { ctx, client } = await setup();
    const m = await processingVideo(client);
    await emu.fault({ method: 'GET', path: '/v1/media/*', action: 'reset_before_handling', times: 5 });
    const ready = await poll<Media>({
      fetch: ({ signal }) => client.getMedia(m.id, { signal }),
      done: (x) => x.status === 'ready',
      backoff: FAST,
      clock: ctx.clock,
      what: `video ${m.id}`,
      deadlineMs: ctx.clock.now() + 60_000,
    });
    expect(ready.status).toBe('ready');
    const gets = mediaGets(await emu.requests(), m.id);
    expect(gets.filter((g) => g.status === 0)).toHaveLength(5);
    await client.close();
  });

  test('503s until the deadline: TimeoutError (exit 7) carrying the last record seen', async () => {
    const { ctx, client } = await setup();
    const m = await processingVideo(client);
    const err = await expectError(VidpubError, () =>
      poll<Media>({
        // From the second look on, every GET fails.
        fetch: faultFromSecondLook(client, m.id, { method: 'GET', path: '/v1/media/*', action: 'status', status: 503, retry_after: null, times: 1000 }),
        done: (x) => x.status === 'ready',
        backoff: FAST,
        clock: ctx.clock,
        what: `video ${m.id} to be ready`,
        deadlineMs: ctx.clock.now() + 600,
      }),
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.exitCode).toBe(ExitCode.TIMEOUT);
    expect((err.data as Media).id).toBe(m.id);
    expect((err.data as Media).status).toBe('processing');
    expect(err.message).toMatch(new RegExp(`^Stopped waiting for video ${m.id} to be ready after .+ \\(--timeout\\); it goes on at the service\\. The last look failed: .*HTTP 503`));
    await client.close();
  });

  test('a look that hangs past the deadline (delay fault) is abandoned: TimeoutError with the last record', async () => {
    const { ctx, client } = await setup();
    const m = await processingVideo(client);
    const err = await expectError(VidpubError, () =>
      poll<Media>({
        fetch: faultFromSecondLook(client, m.id, { method: 'GET', path: '/v1/media/*', action: 'delay', ms: 20_000, times: 1 }),
        done: (x) => x.status === 'ready',
        clock: ctx.clock,
        what: `video ${m.id} to be ready`,
        deadlineMs: ctx.clock.now() + 300,
        initialIntervalMs: 50,
      }),
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err.data as Media).status).toBe('processing');
    await client.close();
  });

  test('404 for the video: NotFoundError (exit 5) at once, one request', async () => {
    const { ctx, client } = await setup();
    const err = await expectError(VidpubError, () =>
      poll<Media>({
        fetch: ({ signal }) => client.getMedia('med_0000000000000000', { signal }),
        done: () => true,
        clock: ctx.clock,
        what: 'video',
        deadlineMs: ctx.clock.now() + 60_000,
      }),
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.exitCode).toBe(ExitCode.NOT_FOUND);
    expect(mediaGets(await emu.requests(), 'med_0000000000000000')).toHaveLength(1);
    await client.close();
  });

  test('401 (the key was revoked while waiting): AuthError (exit 3) at once', async () => {
    const { ctx, client } = await setup(emu.keys.find((k) => k.access === 'read_write' && k.workspace === 'Demo')!.key);
    const m = await processingVideo(client);
    const { client: revoked } = await setup('vp_live_demo_revoked_X2v6Bn4Ts8Hj');
    const err = await expectError(VidpubError, () =>
      poll<Media>({
        fetch: ({ signal }) => revoked.getMedia(m.id, { signal }),
        done: () => false,
        clock: ctx.clock,
        what: 'video',
        deadlineMs: ctx.clock.now() + 60_000,
      }),
    );
    expect(err).toBeInstanceOf(AuthError);
    expect(err.exitCode).toBe(ExitCode.AUTH);
    expect(mediaGets(await emu.requests(), m.id)).toHaveLength(1);
    await client.close();
    await revoked.close();
  });

  test('the response metadata of each record paces the looks by the read allowance, no 429', async () => {
    const { ctx, client } = await setup();
    const m = await processingVideo(client);
    // A fresh minute on the emulator's clock (which is real time): the window must not turn during the test and
    // give the reads back, however slow the machine. Then spend most of the minute's 60 reads.
    await emu.api.freshMinute();
    for (let i = 0; i < 50; i++) await client.getMe();
    const clock = virtualClock(ctx.clock.now());
    let looks = 0;
    const err = await expectError(VidpubError, () =>
      poll<Media>({
        fetch: ({ signal }) => (looks++, client.getMedia(m.id, { signal })),
        done: () => false,
        clock,
        what: 'video',
        deadlineMs: clock.now() + 30_000,
      }),
    );
    expect(err).toBeInstanceOf(TimeoutError);
    // 10 reads left of 60 (under a quarter): each wait is the time to the reset spread over the reads left.
    expect(clock.sleeps.length).toBeGreaterThan(1);
    expect(Math.min(...clock.sleeps.slice(0, -1))).toBeGreaterThanOrEqual(1000);
    expect(looks).toBeLessThanOrEqual(10);
    expect((await emu.requests()).filter((r) => r.status === 429)).toHaveLength(0);
    await client.close();
  });
});

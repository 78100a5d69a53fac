/**
 * The client's side of an unknown outcome, over real HTTP against the
 * emulator: a write that may have reached the service without an answer is
 * OutcomeUnknownError (exit 9), never a refusal; a write that surely did not
 * reach it (nothing listening) stays a plain connection error; reads are
 * never "unknown". Plus the pure pieces: the rerun command and the exit codes.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ClientSettings } from '../../src/api/client.js';
import { createApiClient, type ClientDeps } from '../../src/api/http-client.js';
import { realClock } from '../../src/core/clock.js';
import { renderLine } from '../../src/cli/line/render.js';
import { readLineOnly } from '../support/cli.js';
import { shellWord } from '../../src/util/shell.js';
import { ExitCode, InterruptedError, OutcomeUnknownError, ServiceError, TimeoutError, exitCodeOf } from '../../src/errors.js';
import { streamNotices } from '../../src/ui/notices.js';
import { virtualClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator();

const SETTINGS: ClientSettings = { profile: 'default', debug: false, maxWaitMs: 600_000, waitForQuota: false, quiet: false };
const DRAFT = { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_youtube' }] };

async function client(opts: { base?: string; headersTimeoutMs?: number; signal?: AbortSignal; clock?: ClientDeps['clock'] } = {}) {
  const deps: ClientDeps = {
    clock: opts.clock ?? virtualClock(),
    signal: opts.signal ?? new AbortController().signal,
    version: 'test',
    notices: streamNotices(new PassThrough(), false),
    credentials: { env: { ...emu.env(), ...(opts.base ? { VIDPUB_BASE_URL: opts.base } : {}) }, cwd: process.cwd(), readProfile: async () => undefined },
  };
  return createApiClient(SETTINGS, deps, { headersTimeoutMs: opts.headersTimeoutMs });
}

describe('unknown outcomes', () => {
  it('no answer in time, then "still being handled" on every retry: OutcomeUnknownError (exit 9), not "refused"', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 3000 });
    const c = await client({ headersTimeoutMs: 200 });
    const err = await c.createPost(DRAFT, { idempotencyKey: 'k-in-flight' }).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ reason: 'in-flight', request: 'POST /v1/posts', exitCode: ExitCode.OUTCOME_UNKNOWN });
    expect((err as Error).message).toBe('The outcome of POST /v1/posts (create a post) is unknown: the service was still handling the request; it may have been done.');
    expect((err as Error).message).not.toMatch(/refused/);
    const keys = new Set((await emu.requests()).filter((r) => r.method === 'POST').map((r) => r.idempotency_key));
    expect([...keys]).toEqual(['k-in-flight']);
  });

  it('aborted while the write is in flight: OutcomeUnknownError with reason "interrupt"', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 5000 });
    const controller = new AbortController();
    const c = await client({ signal: controller.signal, clock: realClock });
    const pending = c.createPost(DRAFT).catch((e: unknown) => e);
    // Aborted once the emulator holds the write (seen in its log), not after a guess of how long sending takes.
    await waitFor(() => emu.took('delay', 'POST', '/v1/posts'), Boolean, 30_000);
    controller.abort();
    const err = await pending;
    await c.close();
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ reason: 'interrupt' });
  });

  it('nothing listening: the write surely did not arrive, a plain connection error (exit 1)', async () => {
    const c = await client({ base: 'http://127.0.0.1:9/v1' });
    const err = await c.createPost(DRAFT).catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).not.toBeInstanceOf(OutcomeUnknownError);
    expect((err as Error).message).toMatch(/Could not reach the service .* connection refused/);
  });

  it('a read with no answer is never "unknown": aborted reads are interruptions', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'hang' });
    const controller = new AbortController();
    const c = await client({ signal: controller.signal, clock: realClock });
    const pending = c.getMe().catch((e: unknown) => e);
    // Aborted once the emulator holds the read (its log), not after a guess of how long sending takes.
    await waitFor(() => emu.took('hang', 'GET', '/v1/me'), Boolean, 30_000);
    controller.abort();
    const err = await pending;
    await c.close();
    expect(err).toBeInstanceOf(InterruptedError);
  });
});

describe('the rerun command and the exit codes', () => {
  it('keeps every argument, quoted for a shell, and puts the key in place of any other', async () => {
    const rerun = async (argv: string[], key: string, values: Record<`--${string}`, string> = {}) => renderLine((await readLineOnly(argv)).line!, { ...values, '--idempotency-key': key });
    expect(await rerun(['post', 'my clip.mp4', '--caption', "it's here", '--idempotency-key', 'old', '--to', 'youtube'], 'vp-abc')).toBe(
      "vidpub post 'my clip.mp4' --caption 'it'\\''s here' --idempotency-key vp-abc --to youtube",
    );
    expect(await rerun(['post', '--idempotency-key=old', 'a.mp4'], 'k')).toBe('vidpub post a.mp4 --idempotency-key k');
    // a flag whose value this run resolved (a relative --at): the rerun carries the value sent, in either spelling
    const sent = { '--at': '2026-11-23T10:25:20+00:00' } as const;
    expect(await rerun(['post', 'a.mp4', '--at', 'in 2h', '--caption', 'x'], 'k', sent)).toBe('vidpub post a.mp4 --at 2026-11-23T10:25:20+00:00 --caption x --idempotency-key k');
    expect(await rerun(['post', 'a.mp4', '--at=in 2h'], 'k', sent)).toBe('vidpub post a.mp4 --at 2026-11-23T10:25:20+00:00 --idempotency-key k');
    expect(shellWord('$(rm -rf ~)')).toBe("'$(rm -rf ~)'");
  });

  it('an interruption exits per signal (130, 143, 129); an unknown outcome stays 9 whatever stopped it', () => {
    const by = (signal: string) => {
      const c = new AbortController();
      c.abort(Object.assign(new Error('x'), { signal }));
      return c.signal;
    };
    const interrupted = new InterruptedError('Interrupted.');
    expect(exitCodeOf(interrupted, by('SIGINT'))).toBe(130);
    expect(exitCodeOf(interrupted, by('SIGTERM'))).toBe(143);
    expect(exitCodeOf(interrupted, by('SIGHUP'))).toBe(129);
    expect(exitCodeOf(new OutcomeUnknownError('?', { request: 'POST /v1/posts', reason: 'interrupt' }), by('SIGTERM'))).toBe(9);
    expect(exitCodeOf(new TimeoutError('t'))).toBe(7);
    expect(exitCodeOf(new Error('x'))).toBe(1);
  });
});

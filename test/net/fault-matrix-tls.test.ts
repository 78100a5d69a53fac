/**
 * A part of the fault matrix (test/reliability/fault-cells.ts) over HTTPS
 * against the emulator's TLS listeners, each cell both straight and through a
 * real proxy (tinyproxy, CONNECT tunnels): a hung PUT to the storage origin,
 * the answer to POST /v1/posts dropped once and on every attempt, a 429 with
 * Retry-After. Each cell asserts the exit code, stdout, that the command
 * ended within its --timeout + 1 s plus what a command without faults costs
 * here over the same route (a computed bound), and, from the emulator's own
 * log, that nothing was done twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/cli/run/context.js';
import { RESET_JITTER_MS } from '../../src/api/send/retry-decision.js';
import { runCli, type RunResult } from '../support/cli.js';
import { manualClock, scaledClock, tickWhileAllAsleep } from '../support/clock.js';
import { waitFor } from '../support/poll.js';
import { withStall } from '../support/stall.js';
import { expectNothingTwice, postsTotal, startTestEmulator, writes, type TestEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';
import { MATRIX, POST_MEDIA, timeoutOf, withTimeout, type Cell } from '../reliability/fault-cells.js';
import { startTinyproxy, type Tinyproxy } from './tinyproxy.js';

const RETRY_AFTER_S = 3;

interface TlsCell extends Cell {
  /** Runs on a clock 10 times faster than the wall's, whose sleeps are recorded: checked here. */
  sleeps?: (sleeps: number[]) => void;
}

const fromMatrix = (command: string, fault: string): Cell => MATRIX.find((c) => c.command === command && c.fault === fault)!;

const CELLS: TlsCell[] = [
  fromMatrix('post', 'signed-URL PUT hung (body not read, no answer)'),
  fromMatrix('post', 'POST /posts reset after handling, once'),
  {
    command: 'post',
    phase: 'create post',
    fault: 'POST /posts reset after handling, every attempt',
    faults: [{ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 20 }],
    args: [...POST_MEDIA, '--no-wait'],
    code: 9,
    stdout: /^med_demo_sample\n$/,
    stderr: /The outcome is unknown: the post may have been created \(video med_demo_sample\); (the connection failed|the --timeout was reached) before the service answered[\s\S]*Rerun to settle it \(nothing is done twice\): vidpub post .*--idempotency-key vp-/,
    posts: 1,
  },
  {
    command: 'post',
    phase: 'create post',
    fault: `POST /posts 429 with Retry-After ${RETRY_AFTER_S}, once`,
    faults: [{ method: 'POST', path: '/v1/posts', action: 'status', status: 429, retry_after: RETRY_AFTER_S, times: 1 }],
    args: [...withTimeout(POST_MEDIA, '30s'), '--no-wait'],
    code: 0,
    stdout: /^id\tpost_\w+$/m,
    // Retry-After plus a random part of up to 1.5 s (afterReset).
    stderr: new RegExp(`Rate limited \\(requests_per_minute\\); retrying in (${RETRY_AFTER_S}|${RETRY_AFTER_S + 1}|${RETRY_AFTER_S + 2})s`),
    posts: 1,
    sleeps: (sleeps) => expect(sleeps.some((ms) => ms >= RETRY_AFTER_S * 1000 && ms <= RETRY_AFTER_S * 1000 + RESET_JITTER_MS), String(sleeps)).toBe(true),
  },
];


/** A clock 10 times faster than the wall's that records the sleeps asked of it. */
function recordingClock(): Clock & { sleeps: number[] } {
  const fast = scaledClock(10);
  const sleeps: number[] = [];
  return { sleeps, now: fast.now, sleep: (ms, signal) => (sleeps.push(ms), fast.sleep(ms, signal)) };
}

describe.skipIf(missing('tinyproxy', ['-v']))('the fault matrix over TLS, straight and through tinyproxy', () => {
  let emu: TestEmulator;
  let proxy: Tinyproxy;
  /** What a command without faults costs over each route here, now (start-up, TLS handshakes, tunnels, exit). */
  const overheadMs = { straight: 0, proxied: 0 };
  const routes = { straight: () => ({}), proxied: () => ({ HTTPS_PROXY: proxy.url }) };
  const storageHost = () => new URL(emu.info.storage_url!).host;

  async function timed(route: keyof typeof routes, args: string[], clock?: Clock): Promise<RunResult & { elapsedMs: number; stallMs: number }> {
    const env = { ...emu.env(), VIDPUB_CA_FILE: emu.info.ca_file!, ...routes[route]() };
    const started = performance.now();
    const { value: r, stallMs } = await withStall(() => runCli(args, { env, clock }));
    return { ...r, elapsedMs: performance.now() - started, stallMs };
  }

  beforeAll(async () => {
    // Publishing takes long enough that nothing is published under a cell.
    emu = await startTestEmulator({ tls: 'generate', processingMs: 20, publishMs: 30_000 });
    proxy = await startTinyproxy({ connectPorts: [emu.port, Number(new URL(emu.info.storage_url!).port)] });
    for (const route of ['straight', 'proxied'] as const) {
      const r = await timed(route, ['destinations', '--json']);
      expect(r.code).toBe(0);
      overheadMs[route] = r.elapsedMs;
    }
  });
  afterAll(async () => {
    await proxy?.stop();
    await emu?.close();
  });

  // One cell at a time: the emulator's faults are its own, and the proxy log is read per cell.
  for (const route of ['straight', 'proxied'] as const) {
    for (const cell of CELLS) {
      it(`${route} · ${cell.command} · ${cell.phase} · ${cell.fault} → exit ${cell.code}`, async () => {
        await emu.reset();
        const since = (await writes(emu)).length;
        const postsBefore = await postsTotal(emu);
        const tunnelsBefore = proxy.connects().length;
        for (const f of cell.faults) await emu.fault(f);
        // A hung PUT's --timeout passes on a clock the test moves once the PUT hangs: however slow the handshakes
        // and the proxy on a loaded machine, the deadline comes during the upload, which is what the cell says.
        const held = cell.faults.some((f) => f.method === 'PUT' && f.action === 'hang') ? manualClock(Date.now()) : undefined;
        const recording = cell.sleeps ? recordingClock() : undefined;
        // Any other cell's waits (the backoff between attempts) end as they begin, on a clock moved while the command
        // sleeps on it; its deadline falls due once they add up to it.
        const ticked = held || recording ? undefined : manualClock(Date.now());
        let ended = false;
        const stopTicking = ticked ? tickWhileAllAsleep(ticked, () => (ended ? 0 : 1), [timeoutOf(cell.args)]) : () => undefined;
        const running = timed(route, cell.args, held ?? recording ?? ticked).finally(() => {
          ended = true;
          stopTicking();
        });
        if (held) {
          await waitFor(() => emu.took('hang', 'PUT', '/_uploads/*'), (yes) => yes, 30_000);
          held.tick(timeoutOf(cell.args));
        }
        const r = await running;
        expect(r.stderr).toMatch(cell.stderr);
        expect(r.code).toBe(cell.code);
        expect(r.stdout).toMatch(cell.stdout);
        // Plus the time this process could not run (test/support/stall.ts), as the plain matrix allows.
        expect(r.elapsedMs).toBeLessThan(timeoutOf(cell.args) + 1000 + 3 * overheadMs[route] + r.stallMs);
        if (recording) cell.sleeps!(recording.sleeps);
        await expectNothingTwice(emu, since);
        expect(await postsTotal(emu)).toBe(postsBefore + (cell.posts ?? 0));
        const tunnels = proxy.connects().slice(tunnelsBefore);
        if (route === 'straight') {
          expect(tunnels).toEqual([]);
        } else {
          expect(tunnels).toContain(`127.0.0.1:${emu.port}`);
          if (cell.phase === 'PUT') expect(tunnels).toContain(storageHost());
        }
      });
    }
  }
});

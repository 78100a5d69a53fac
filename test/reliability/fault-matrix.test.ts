/**
 * The fault matrix: each command, phase by phase, against the real emulator
 * over real HTTP with a fault injected in that phase (a delay beyond the
 * deadline, a request never answered, a connection reset before or after
 * handling, a 5xx burst, a trickled body, a hung PUT). Each cell asserts the
 * exit code, what is on stdout, that the command ended on time, and, from
 * /_emulator/requests, that nothing was created twice: every attempt of a
 * write carried one Idempotency-Key, and at most one was handled.
 *
 * A cell cut off by its deadline (a request never answered, delayed or
 * trickled) runs on a manual clock: its --timeout runs out once the faulted
 * request is in the emulator's log (a trickled answer: once its head is sent),
 * while the command is still waiting on it; the command must then end with
 * its deadline's exit, having been still running until then. One cell of each
 * of these kinds, and every cell that ends on its own, run on the real clock
 * instead and must end within their --timeout plus 1 s (plus the start-up
 * cost of a command measured in this run, so the bound is computed, never a
 * tight hard-coded value): the real deadline's timer is proven once per kind.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type RunResult } from '../support/cli.js';
import { expectNothingTwice, postsTotal, startTestEmulator, useEmulator, writes, type TestEmulator } from '../support/emulator.js';
import { MATRIX, POST_MEDIA, TIMEOUT_MS, timeoutOf, type Cell } from './fault-cells.js';
import { withStall } from '../support/stall.js';
import { waitFor } from '../support/poll.js';
import { runTimedOut } from '../support/clocked-run.js';

// Publishing takes long enough that a post is still publishing while it is watched.
const TIMINGS = { processingMs: 20, publishMs: 30_000 };
/** For the overhead; each test has an emulator of its own, so they run concurrently. */
const emu = useEmulator(TIMINGS);

/** The command's own start-up and clean-up, measured below on a command without faults. */
let overheadMs = 0;

async function timed(on: TestEmulator, args: string[], env: Record<string, string> = {}, stdin?: string): Promise<RunResult & { elapsedMs: number; stallMs: number }> {
  const started = performance.now();
  const { value: r, stallMs } = await withStall(() => runCli(args, { env: { ...on.env(), ...env }, stdin }));
  return { ...r, elapsedMs: performance.now() - started, stallMs };
}

/**
 * The bound the issue sets: the deadline + 1 s, plus what any command costs here without a fault (x3 for a busy
 * machine), plus the time this process could not run during the command (test/support/stall.ts: the cells run
 * side by side, and other processes may hold the cores).
 */
const bound = (args: string[], stallMs: number) => timeoutOf(args) + 1000 + 3 * overheadMs + stallMs;

beforeAll(async () => {
  // One command without faults: what start-up, the client and the exit cost on this machine now.
  const r = await timed(emu, ['destinations', '--json']);
  expect(r.code).toBe(0);
  overheadMs = r.elapsedMs;
});

const title = (cell: Cell) => `${cell.command} · ${cell.phase} · ${cell.fault} → exit ${cell.code}`;
/** The faults a deadline cuts off: the command waits on the request until its --timeout. */
const CUT_OFF = ['hang', 'delay', 'trickle'];
const cutOff = (cell: Cell) => cell.faults.some((f) => CUT_OFF.includes(f.action as string));
/** One cell of each kind cut off by its deadline, on the real clock and its real timer. */
const ON_REAL_CLOCK = new Set([
  'post · resolve destinations · GET /destinations never answered → exit 7',
  'me · read · GET /me body trickled (1 byte/s) → exit 7',
  'post · create post · POST /posts delayed past the deadline → exit 9',
]);
const onRealClock = (cell: Cell) => !cutOff(cell) || ON_REAL_CLOCK.has(title(cell));

/** The cell's command on a manual clock, its --timeout run out once the faulted request is in flight (a trickled answer: its head sent). */
async function onManualClock(cell: Cell, on: TestEmulator, args: string[], env: Record<string, string>, stdin?: string): Promise<RunResult> {
  const action = cell.faults.map((f) => f.action as string).find((a) => CUT_OFF.includes(a))!;
  const inFlight = async () => (await on.requests()).some((q) => q.fault === action && (action !== 'trickle' || q.status > 0));
  // The command's own waits before it (a look at a video processing) end as they begin.
  return runTimedOut(args, { env: { ...on.env(), ...env }, stdin }, timeoutOf(args), inFlight, { meanwhile: true, inFlight: true });
}

async function runCell(cell: Cell, on: TestEmulator): Promise<void> {
  const id = cell.setup ? await cell.setup(on) : undefined;
  const since = (await writes(on)).length; // the setup's own writes are not the command's
  for (const f of cell.faults) await on.fault(f);
  const args = cell.args.map((a) => (a === 'ID' && id ? id : a));
  const env = cell.env ? { VIDPUB_API_KEY: '', ...cell.env(on) } : {};
  let r: RunResult;
  if (onRealClock(cell)) {
    const t = await timed(on, args, env, cell.stdin?.(on));
    expect(t.elapsedMs).toBeLessThan(bound(args, t.stallMs));
    r = t;
  } else r = await onManualClock(cell, on, args, env, cell.stdin?.(on));
  expect(r.stderr).toMatch(cell.stderr);
  expect(r.code).toBe(cell.code);
  if (cell.stdout === '') expect(r.stdout).toBe('');
  else expect(r.stdout).toMatch(cell.stdout);
  await expectNothingTwice(on, since);
  if (cell.posts !== undefined) expect(await postsTotal(on)).toBeLessThanOrEqual(cell.posts);
}

// The cells run side by side, each against a fresh emulator of its own; those that sit out real time first.
describe.concurrent('every fault, side by side', () => {
  describe('an unknown outcome is settled by the rerun it prints, without a duplicate', () => {
    it('POST /posts answered after the deadline: the printed rerun replays it, one post in all', async () => {
      const own = await startTestEmulator(TIMINGS);
      try {
        await own.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: TIMEOUT_MS + 500 });
        const first = await timed(own, [...POST_MEDIA, '--no-wait']);
        expect(first.code).toBe(9);
        const rerun = /Rerun to settle it \(nothing is done twice\): vidpub (.*)$/m.exec(first.stderr)![1]!;
        const key = /--idempotency-key (vp-[\w-]+)/.exec(rerun)![1]!;
        // The delayed request is handled meanwhile (one post); the rerun reports it instead of posting again.
        await waitFor(() => postsTotal(own), (n) => n >= 1, 30_000);
        const second = await timed(own, [...POST_MEDIA, '--no-wait', '--idempotency-key', key]);
        expect(second.stderr).toMatch(/already created by an earlier run with this --idempotency-key/);
        expect(second.code).toBe(0);
        expect(second.stdout).toMatch(/^id\tpost_\w+$/m);
        expect(await postsTotal(own)).toBe(1);
      } finally {
        await own.close();
      }
    });
  });

  describe('fault matrix: every cell ends on time, says the truth, creates nothing twice', () => {
    for (const cell of [...MATRIX.filter(onRealClock), ...MATRIX.filter((c) => !onRealClock(c))]) {
      it(title(cell), async () => {
        const own = await startTestEmulator(TIMINGS);
        try {
          await runCell(cell, own);
        } finally {
          await own.close();
        }
      });
    }
  });
});

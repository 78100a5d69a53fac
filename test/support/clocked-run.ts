/** vidpub in-process (runCli) on a manual clock the test moves: the waits a test stages instead of sitting them out. */
import { expect } from 'vitest';
import { runCli, type RunOptions, type RunResult } from './cli.js';
import { DEFAULT_DEADLINES_MS, manualClock, tickWhileAllAsleep, timeUpWhen } from './clock.js';

/**
 * `args` on a manual clock whose --timeout of `timeoutMs` runs out once `reached()` holds, in the wait that
 * matters (timeUpWhen, with `how`: `inFlight` for a request never answered, `meanwhile` to end the command's
 * other waits before it as they begin). The command must still be running then: what ends it is the deadline.
 */
export async function runTimedOut(
  args: string[],
  opts: RunOptions,
  timeoutMs: number,
  reached: () => Promise<boolean>,
  how: { meanwhile?: boolean; inFlight?: boolean } = {},
): Promise<RunResult> {
  const clock = manualClock(Date.now());
  let ended = false;
  const running = runCli(args, { ...opts, clock }).finally(() => {
    ended = true;
  });
  await timeUpWhen(clock, timeoutMs, reached, how);
  expect(ended, 'the command was still running when its --timeout ran out').toBe(false);
  return running;
}

/**
 * `args` on a manual clock moved to the end of each of its waits as they begin, but its --timeout of `timeoutMs`
 * (without it, the default --timeout of a command).
 */
export async function runWaitsCut(args: string[], opts: RunOptions, timeoutMs?: number): Promise<RunResult> {
  const clock = manualClock(Date.now());
  let running = 1;
  const stop = tickWhileAllAsleep(clock, () => running, timeoutMs === undefined ? [...DEFAULT_DEADLINES_MS] : [timeoutMs]);
  return runCli(args, { ...opts, clock }).finally(() => {
    running = 0;
    stop();
  });
}

/**
 * The service lost while a post is followed (issue: a lost service hung a cron line for the
 * whole 30-minute --timeout, 422 lines on stderr): once the post is made, a service that gives
 * no answer at all for --unanswered-timeout (2 minutes by default) ends the wait with exit 7 and
 * the line that looks again, saying once that the service stopped answering. The same command
 * once the service is back reports the post and posts nothing twice. On a manual clock: the
 * follow's sleeps are moved on one by one, however slow the machine.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { runCli, tempConfigDir, type RunResult } from '../support/cli.js';
import { manualClock, type ManualClock } from '../support/clock.js';
import { startTestEmulator, postsTotal, type TestEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { TcpRelay } from '../support/relay.js';

const CLIP = join(ROOT, 'test/fixtures/clip.mp4');
const THIRTY_MINUTES = 30 * 60_000;

let emu: TestEmulator;
let relay: TcpRelay;
beforeAll(async () => {
  // Publishing takes an hour on the emulator's clock: the post is still publishing when the service goes.
  emu = await startTestEmulator({ processingMs: 20, publishMs: 3_600_000 });
  relay = await new TcpRelay(emu.port).start();
});
afterAll(async () => {
  await relay.lose();
  await emu.close();
});

/** Ends the run's sleeps (not its 30-minute deadline) one at a time until it is over; the clock moved in all. */
async function runOut(clock: ManualClock, run: Promise<RunResult>): Promise<number> {
  let done = false;
  void run.finally(() => (done = true));
  let moved = 0;
  while (!done) {
    const next = await waitFor(() => (done ? [0] : clock.pending().filter((ms) => ms !== THIRTY_MINUTES)), (ms) => ms.length > 0, 30_000);
    if (done) break;
    const ms = Math.min(...next);
    moved += ms;
    clock.tick(ms);
  }
  return moved;
}

describe('the service lost while a post is followed', () => {
  it('ends in exit 7 after --unanswered-timeout, one line about it, the line that looks again; the rerun reports the post', async () => {
    const dir = tempConfigDir();
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_BASE_URL: relay.baseUrl, VIDPUB_API_KEY: emu.key(), TZ: 'UTC' };
    const argv = ['post', CLIP, '--to', 'linkedin', '--caption', 'lost on the way', '--no-input', '--json'];
    const before = await postsTotal(emu);

    const clock = manualClock();
    const run = runCli(argv, { env, clock });
    // The upload's waits end as they begin until the post is made; then the follow's first look waits on the clock.
    const posted = async () => (await emu.requests()).some((r) => r.method === 'POST' && r.path === '/v1/posts' && r.status === 201);
    await waitFor(
      async () => {
        const other = clock.pending().filter((ms) => ms !== THIRTY_MINUTES);
        if (other.length === 0) return false;
        if (await posted()) return true;
        clock.tick(Math.min(...other));
        return false;
      },
      Boolean,
      30_000,
    );
    await relay.lose();
    const moved = await runOut(clock, run);
    const r = await run;

    expect(r.code).toBe(7);
    // Stopped after the 2 minutes of no answer (plus at most one backoff), far from the 30-minute deadline.
    expect(moved).toBeGreaterThanOrEqual(120_000);
    expect(moved).toBeLessThan(180_000);
    const lines = r.stderr.trim().split('\n');
    expect(lines.length).toBeLessThan(30);
    expect(lines.filter((l) => /The service is not answering/.test(l))).toHaveLength(1);
    expect(r.stderr).toMatch(/The service is not answering \(.*ECONNREFUSED.*\); trying again for up to 2m/);
    expect(r.stderr).not.toMatch(/retrying in/);
    const { error } = JSON.parse(lines.at(-1)!) as { error: { message: string; hint?: string; exit_code: number } };
    expect(error.exit_code).toBe(7);
    expect(error.message).toMatch(/^The service has not answered for 2m( \d+s)?: stopped waiting for post post_\w+; it goes on at the service\./);
    expect(error.hint).toMatch(/vidpub status post_\w+ --wait/);

    // The service is back and the post has gone out: the same command reports it and posts nothing twice.
    await relay.back();
    await emu.advance(3600);
    const again = await runCli(argv, { env });
    expect(again.code).toBe(0);
    const post = JSON.parse(again.stdout) as { id: string; status: string };
    expect(error.message).toContain(post.id);
    expect(post.status).toBe('completed');
    expect(await postsTotal(emu)).toBe(before + 1);
  });

  it('refuses an --unanswered-timeout that is not a duration longer than 0 (exit 2)', async () => {
    const r = await runCli(['status', 'post_x', '--unanswered-timeout', '0s'], { env: { VIDPUB_BASE_URL: relay.baseUrl, VIDPUB_API_KEY: emu.key() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--unanswered-timeout must be longer than 0s/);
  });
});

/**
 * A `post` cut off before it knew whether it posted (kill -9 while POST /posts
 * is in flight, or exit 9), then run again as it was typed, without
 * --idempotency-key: the rerun continues the cut-off run under its key, so
 * there is one post, never two. A finished run, a changed command, --force-new
 * and a run still alive are not continued.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { LOOK_MS } from '../../src/posts/post/live-run.js';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { runCli } from '../support/cli.js';
import type { Clock } from '../../src/cli/run/context.js';
import { aheadBy, manualClock, scaledClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { scriptedPrompter } from '../support/prompter.js';
import { TcpRelay } from '../support/relay.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

beforeAll(() => ensureBuilt());

type Totals = { posts: number; media: number };
const totals = async (): Promise<Totals> => {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number }; media: { total: number } }[] };
  const demo = state.workspaces.find((w) => w.name === 'Demo')!;
  return { posts: demo.posts.total, media: demo.media.total };
};

/** A config and state directory of their own, shared by a test's runs. */
function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-cutoff-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state') };
}

/** What is in runs/ but the notes of finished runs (`.done`: when an identical run finished). */
const pending = (env: Record<string, string>) => readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).filter((n) => !n.endsWith('.done'));

/** Runs vidpub in-process; `laterMs` puts its clock that far ahead (a later run, without waiting for it). */
/**
 * One clock for the runs of a test, 20 times faster than the wall: each later run reads a later time
 * than anything an earlier one wrote (a clock of its own per run could read earlier than the note of
 * a run that had run ahead on a busy machine).
 */
let testClock: Clock = scaledClock(20);
beforeEach(() => {
  testClock = scaledClock(20);
});
const run = (args: string[], env: Record<string, string>, laterMs = 0) => runCli(args, { clock: aheadBy(testClock, laterMs), env: { ...emu.env(), ...env, TZ: 'UTC' } });

/**
 * Runs vidpub in-process, beside an identical run still going, on a clock only the test moves: its --timeout of
 * `timeoutMs` runs out once it waits for that run (asleep between two looks at it), never while it works before,
 * however slow the machine; no real time is sat out.
 */
async function timedOutBeside(args: string[], env: Record<string, string>, timeoutMs: number) {
  const clock = manualClock(testClock.now());
  const running = runCli(args, { clock, env: { ...emu.env(), ...env, TZ: 'UTC' } });
  await timeUpWhen(clock, timeoutMs, async () => clock.pending().includes(LOOK_MS), { meanwhile: true });
  return running;
}

/** Starts the built vidpub; resolves once `ready()` holds, with a function that kills it (-9) and waits for its end. */
async function startUntil(args: string[], env: Record<string, string>, ready: () => Promise<boolean>): Promise<{ kill9: () => Promise<string> }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...emu.env(), ...env, TZ: 'UTC', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!(await ready())) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`vidpub never got there; it said: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    kill9: async () => {
      child.kill('SIGKILL');
      await ended;
      return stderr;
    },
  };
}

const CLIP = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'Cut off', '--no-input'];
/** Runs CLIP in the built vidpub and kills it (-9) once the service has made the post, while vidpub still waits for the answer. */
async function killedAfterPost(env: Record<string, string>): Promise<void> {
  const posts = (await totals()).posts;
  // The post is made; its answer arrives a byte a minute, so vidpub is still waiting for it when it is killed.
  await emu.fault({ method: 'POST', path: '/v1/posts', action: 'trickle', ms: 60_000, times: 1 });
  const first = await startUntil(CLIP, env, async () => (await totals()).posts > posts);
  await first.kill9();
}

const CONTINUED = /An earlier run of this command, started (?:\d+ [dhms] )+ago \(\S+Z\), was cut off: continuing it under its key (vp-[\w-]+), so what it did is reported, not done twice\. To post anew instead, add --force-new\./;

describe('a rerun of a post that was cut off', () => {
  it('kill -9 after the service made the post, before its answer: the rerun reports that post (one post, one video, nothing sent twice)', async () => {
    const env = dirs();
    const before = await totals();
    await killedAfterPost(env);
    // the note, and the socket the killed run held it by (nothing listens on it now)
    expect(readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs')).sort()).toEqual([expect.stringMatching(/^\.[0-9a-f]{32}\.vp-[\w-]+\.[0-9a-f]{12}\.sock$/), expect.stringMatching(/^[0-9a-f]{32}\.vp-[\w-]+\.json$/)]);

    const r = await run([...CLIP, '--json'], env);
    expect(r.stderr).toMatch(CONTINUED);
    expect(r.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
    expect(r.code).toBe(0);
    const post = JSON.parse(r.stdout) as Post;
    expect(post.status).toBe('completed');
    expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });
    // no bytes sent again: the first run's upload was complete
    expect((await emu.requests()).filter((q) => q.method === 'PUT')).toHaveLength(1);
    // the run is settled: nothing is left to continue, the socket files gone; only the note that it finished (when)
    expect(readdirSync(join(env.VIDPUB_STATE_DIR!, 'runs'))).toEqual([expect.stringMatching(/^[0-9a-f]{32}\.vp-[\w-]+\.done$/)]);
    const mode = statSync(join(env.VIDPUB_STATE_DIR!, 'runs')).mode & 0o777;
    expect(mode).toBe(0o700);
  });

  it('exit 7 while the post is watched (--timeout): the command run again as typed reports that post and follows it, one post', async () => {
    const env = dirs();
    const before = await totals();
    await emu.fault({ method: 'GET', path: '/v1/posts/*', action: 'hang', times: 20 });
    // The 20 s run out on a clock only the test moves, once the post is made and a look at it hangs (the waits before
    // ended as they begin): exit 7 while the post is watched, whatever the machine's speed, and no wall time sat out.
    const clock = manualClock(testClock.now());
    const running = runCli([...CLIP, '--timeout', '20s'], { clock, env: { ...emu.env(), ...env, TZ: 'UTC' } });
    const watched = async () => (await emu.requests()).some((q) => q.method === 'GET' && q.path.startsWith('/v1/posts/post_'));
    await timeUpWhen(clock, 20_000, watched, { meanwhile: true, inFlight: true });
    const first = await running;
    expect(first.stderr).toMatch(/Stopped waiting for post (post_\w+) after 20s \(--timeout\); it goes on at the service\./);
    expect(first.code).toBe(7);
    const made = /^id\t(post_\w+)$/m.exec(first.stdout)?.[1];
    expect(made).toMatch(/^post_/);
    await emu.admin('DELETE', '/faults');

    // a later run: its clock past anything the first one's read
    const again = await run([...CLIP, '--json'], env, Math.max(0, clock.now() - testClock.now()) + 1100);
    expect(again.stderr).toMatch(CONTINUED);
    expect(again.stderr).toMatch(new RegExp(`Post ${made} was created by the earlier run this one continues; reporting it\\.`));
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as Post).id).toBe(made);
    expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });
  });

  it('kill -9 while POST /posts was never handled: the rerun posts it, once, with the video the first run uploaded', async () => {
    const env = dirs();
    const before = await totals();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 1 });
    const first = await startUntil(CLIP, env, async () => (await emu.requests()).some((q) => q.method === 'POST' && q.path === '/v1/posts'));
    await first.kill9();

    const r = await run(CLIP, env);
    expect(r.stderr).toMatch(CONTINUED);
    expect(r.stderr).not.toMatch(/was created by the earlier run/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status\tcompleted$/m);
    expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });
  });

  it('exit 9 (the answer to POST /posts lost on every attempt): running the command again as typed settles it, one post', async () => {
    const env = dirs();
    const before = await totals();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'Nine', '--at', 'in 2h', '--no-input', '--timeout', '60s'];
    const first = await run(args, env);
    expect(first.stderr).toMatch(/The outcome is unknown: the post may have been created/);
    expect(first.code).toBe(9);
    const firstAt = /^Posting .*\((\S+Z)\)$/m.exec(first.stderr)?.[1];
    expect(firstAt).toMatch(/Z$/);
    await emu.admin('DELETE', '/faults');

    // Declined at a terminal, the continued run leaves the cut-off run to be continued still.
    const { prompter, asked } = scriptedPrompter([false]);
    const declined = await runCli(args.filter((a) => a !== '--no-input'), { clock: testClock, env: { ...emu.env(), ...env, TZ: 'UTC', NO_COLOR: '1' }, tty: true, prompter });
    expect(asked).toHaveLength(1);
    expect(declined.stderr).toMatch(/ended without knowing whether it posted: continuing it/);
    expect(declined.code).toBe(130);

    // A second later (its clock 1.1 s ahead) "in 2h" is another time; the continued run sends the first run's, as the service wants for a replay.
    const again = await run([...args.slice(0, -2), '--json'], env, 1100);
    expect(again.stderr).toMatch(/An earlier run of this command, started (?:\d+ [dhms] )+ago \(\S+Z\), ended without knowing whether it posted: continuing it under its key vp-/);
    expect(again.stderr).toMatch(/was created by the earlier run this one continues; reporting it\./);
    expect(again.code).toBe(0);
    const post = JSON.parse(again.stdout) as Post;
    expect(post.status).toBe('scheduled');
    expect(Date.parse(post.publish_at!)).toBe(Date.parse(firstAt!));
    expect((await totals()).posts).toBe(before.posts + 1);
  });

  it('exit 9 with a relative --at: the rerun it prints carries the time sent; run here or on another machine, it reports the post', async () => {
    const env = dirs();
    const before = await totals();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'Printed rerun', '--at', 'in 2h', '--no-input', '--timeout', '60s'];
    const first = await run(args, env);
    expect(first.code).toBe(9);
    const firstAt = /^Posting .*\((\S+Z)\)$/m.exec(first.stderr)?.[1];
    const printed = /^Rerun to settle it \(nothing is done twice\): vidpub post .* --at (\S+) .*--idempotency-key (vp-[\w-]+)$/m.exec(first.stderr);
    expect(printed).not.toBeNull();
    const [, at, key] = printed!;
    expect(Date.parse(at!)).toBe(Date.parse(firstAt!));
    await emu.admin('DELETE', '/faults');

    // A second later (the runs' clocks 1.1 s ahead) "in 2h" would be another time; the printed line needs no note of this machine's.
    const rerun = args.map((a) => (a === 'in 2h' ? at! : a));
    const elsewhere = await run([...rerun, '--json', '--idempotency-key', key!], dirs(), 1100);
    expect(elsewhere.stderr).toMatch(/Post post_\w+ was already created by an earlier run with this --idempotency-key; reporting it\./);
    expect(elsewhere.code).toBe(0);
    expect(Date.parse((JSON.parse(elsewhere.stdout) as Post).publish_at!)).toBe(Date.parse(firstAt!));

    // Here, the line as typed first with the key (the note holds the time) settles it too, and forgets the run.
    const here = await run([...args, '--json', '--idempotency-key', key!], env, 1100);
    expect(here.stderr).toMatch(/Post post_\w+ was already created by an earlier run with this --idempotency-key; reporting it\./);
    expect(here.code).toBe(0);
    expect(Date.parse((JSON.parse(here.stdout) as Post).publish_at!)).toBe(Date.parse(firstAt!));
    expect((await totals()).posts).toBe(before.posts + 1);
    expect(pending(env)).toEqual([]);
  });

  it('a run that finished, a changed caption, and --force-new are new posts', async () => {
    const env = dirs();
    const before = await totals();
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'Twice on purpose', '--no-input', '--no-wait'];
    expect((await run(args, env)).code).toBe(0);
    const second = await run(args, env);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/An earlier run/);
    expect((await totals()).posts).toBe(before.posts + 2);

    // cut off (exit 9), then a different caption, then --force-new: neither continues it
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_before_handling', times: 10 });
    const cut = await run([...args, '--timeout', '60s'], env);
    expect(cut.code).toBe(9);
    await emu.admin('DELETE', '/faults');
    const changed = await run([...args.slice(0, 6), 'Another caption', ...args.slice(7)], env);
    expect(changed.stderr).not.toMatch(/An earlier run/);
    expect(changed.code).toBe(0);
    const forced = await run([...args, '--force-new'], env);
    expect(forced.stderr).not.toMatch(/An earlier run/);
    expect(forced.code).toBe(0);
    expect((await totals()).posts).toBe(before.posts + 4);
    // the cut-off run is still there for the command as it was typed
    const settled = await run(args, env);
    expect(settled.stderr).toMatch(/ended without knowing whether it posted: continuing it/);
    expect(settled.code).toBe(0);
    expect((await totals()).posts).toBe(before.posts + 5);
  });

  it('a run declined at the confirmation sent nothing: it leaves no run to continue, and the same command later is a run of its own', async () => {
    const env = dirs();
    const args = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'Not yet', '--at', 'in 2h'];
    const { prompter, asked } = scriptedPrompter([false]);
    const declined = await runCli(args, { clock: testClock, env: { ...emu.env(), ...env, TZ: 'UTC', NO_COLOR: '1' }, tty: true, prompter });
    expect(asked).toHaveLength(1);
    expect(declined.stderr).toMatch(/^Cancelled: nothing was posted \(the video med_demo_sample stays at the service\)\.$/m);
    expect(declined.code).toBe(130);
    expect(existsSync(join(env.VIDPUB_STATE_DIR!, 'runs')) ? pending(env) : []).toEqual([]);

    const later = await run([...args, '--no-input'], env);
    expect(later.stderr).not.toMatch(/An earlier run/);
    expect(later.code).toBe(0);
  });

  it('nothing is noted while the confirmation is on screen (a kill -9 there sent nothing); the note is written once the post goes ahead', async () => {
    const env = dirs();
    const runsDir = join(env.VIDPUB_STATE_DIR!, 'runs');
    const notes = () => (existsSync(runsDir) ? readdirSync(runsDir).filter((n) => n.endsWith('.json')) : []);
    let atPrompt: string[] | undefined;
    const { prompter: yes } = scriptedPrompter([true]);
    const prompter = { ...yes, confirm: (o: Parameters<typeof yes.confirm>[0]) => ((atPrompt = notes()), yes.confirm(o)) };
    // The post's answer is held back (a relay in front of the service) until the note has been looked at while the
    // post is on its way: however slow the machine, and no real-time hold to sit out.
    const relay = await new TcpRelay(emu.port).start();
    onTestFinished(() => relay.lose());
    relay.holdAnswers('POST /v1/posts ');
    let whileSent: string[] = [];
    const seen = (async () => {
      await waitFor(() => emu.requests(), (log) => log.some((q) => q.method === 'POST' && q.path === '/v1/posts'), 60_000);
      whileSent = notes();
      relay.release();
    })();
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'Confirmed', '--no-wait'], {
      clock: testClock,
      env: { ...emu.env(), ...env, VIDPUB_BASE_URL: relay.baseUrl, TZ: 'UTC', NO_COLOR: '1' },
      tty: true,
      prompter,
    });
    await seen;
    expect(r.code).toBe(0);
    expect(atPrompt).toEqual([]);
    expect(whileSent).toHaveLength(1);
    // the post is known: its note is gone
    expect(notes()).toEqual([]);
  });

  it('a run cut off before its post, continued after its time passed: said plainly, and the next run posts at a new time', async () => {
    const env = dirs();
    const args = ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'Too late', '--at', 'in 10m', '--no-input', '--timeout', '60s'];
    // The answer to the upload's create is lost on every attempt: exit 9 before any POST /posts.
    await emu.fault({ method: 'POST', path: '/v1/media/uploads', action: 'reset_after_handling', times: 10 });
    const first = await run(args, env);
    expect(first.code).toBe(9);
    await emu.admin('DELETE', '/faults');

    // An hour later, at the service and here: the first run's time has passed.
    await emu.advance(3600);
    const hourLater = { now: () => Date.now() + 3_600_000, sleep: (ms: number, signal?: AbortSignal) => scaledClock(1).sleep(ms, signal) };
    const late = await runCli(args, { clock: hourLater, env: { ...emu.env(), ...env, TZ: 'UTC' } });
    expect(late.stderr).toMatch(/ended without knowing whether it posted: continuing it/);
    expect(late.stderr).toMatch(/^Error: the earlier run this one continues made no post, and its time \S+ \(\S+Z\) has passed; nothing was posted/m);
    expect(late.stderr).toMatch(/Run the command again: it posts at the time --at gives then\./);
    expect(late.code).toBe(2);

    const again = await runCli([...args, '--json'], { clock: hourLater, env: { ...emu.env(), ...env, TZ: 'UTC' } });
    expect(again.stderr).not.toMatch(/An earlier run/);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as Post).status).toBe('scheduled');
  });

  it('notes of other commands go after a week; younger ones stay', async () => {
    const env = dirs();
    const runs = join(env.VIDPUB_STATE_DIR!, 'runs');
    mkdirSync(runs, { recursive: true, mode: 0o700 });
    const note = (what: string, key: string, agoMs: number) =>
      writeFileSync(join(runs, `${what}.${key}.json`), JSON.stringify({ v: 1, key, started: Date.now() - agoMs, pid: 2 ** 22 + 12345, host: hostname() }), { mode: 0o600 });
    note('a'.repeat(32), 'vp-old', 8 * 24 * 3_600_000);
    note('b'.repeat(32), 'vp-young', 25 * 3_600_000);

    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'Another post', '--no-input', '--no-wait'], env);
    expect(r.stderr).toMatch(/^Posting video med_demo_sample to @vidpub-demo \(linkedin\): now/m);
    expect(r.stderr).not.toMatch(/An earlier run/);
    expect(r.code).toBe(0);
    expect(pending(env)).toEqual([`${'b'.repeat(32)}.vp-young.json`]);
  });

  it('a run killed before the machine restarted is continued, though its process id is taken by another process since', async () => {
    const env = dirs();
    const before = await totals();
    await killedAfterPost(env);
    // As after a restart: the run's process id now belongs to a live process (here 1), and the machine booted since.
    const runs = join(env.VIDPUB_STATE_DIR!, 'runs');
    const [name] = readdirSync(runs).filter((n) => n.endsWith('.json'));
    const note = JSON.parse(readFileSync(join(runs, name!), 'utf8')) as { booted?: number };
    writeFileSync(join(runs, name!), JSON.stringify({ ...note, pid: 1, booted: (note.booted ?? Date.now()) - 3_600_000 }));

    const r = await run(CLIP, env);
    expect(r.stderr).toMatch(CONTINUED);
    expect(r.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
    expect(r.code).toBe(0);
    expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });
  });

  it('kill -9 after the post made on destinations read again (the cached ones refused): the rerun reports that post, one post', async () => {
    const env = { ...dirs(), VIDPUB_CACHE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-cutoff-cache-')) };
    const args = ['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--caption', 'Read again', '--no-input'];
    // A post that fills the key's cache, then the account's default visibility changes: the cached "private" is refused.
    expect((await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'Warm', '--no-input', '--no-wait'], env)).code).toBe(0);
    await emu.admin('POST', '/destinations/dst_demo_youtube', { options: [{ key: 'visibility', values: ['public', 'unlisted'], default: 'unlisted' }] });
    const before = await totals();
    // The first POST /posts is answered (refused); the second makes the post and its answer trickles.
    await emu.admin('POST', '/faults', [
      { method: 'POST', path: '/v1/posts', action: 'delay', ms: 0, times: 1 },
      { method: 'POST', path: '/v1/posts', action: 'trickle', ms: 60_000, times: 1 },
    ]);
    const first = await startUntil(args, env, async () => (await totals()).posts > before.posts);
    expect(await first.kill9()).toMatch(/reading them again/);

    const r = await run([...args, '--json'], env);
    expect(r.stderr).toMatch(CONTINUED);
    expect(r.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Post).destinations[0]!.options).toMatchObject({ visibility: 'unlisted' });
    expect(await totals()).toEqual({ posts: before.posts + 1, media: before.media + 1 });
  });

  it('a continued run whose destinations are refused again reads them again under a step of its own; a further rerun replays that post', async () => {
    const env: Record<string, string> = { ...dirs(), VIDPUB_CACHE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-cutoff-cache-')) };
    const args = ['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'Read twice', '--no-input', '--no-wait', '--timeout', '60s'];
    const visibility = (values: string[]) => emu.admin('POST', '/destinations/dst_demo_youtube', { options: [{ key: 'visibility', values, default: values.at(-1) }] });
    expect((await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'Warm', '--no-input', '--no-wait'], env)).code).toBe(0);
    const before = await totals();
    // The cached "private" is refused; read again, "unlisted" is posted, and that post never reaches the service (exit 9).
    await visibility(['public', 'unlisted']);
    await emu.admin('POST', '/faults', [
      { method: 'POST', path: '/v1/posts', action: 'delay', ms: 0, times: 1 },
      { method: 'POST', path: '/v1/posts', action: 'reset_before_handling', times: 10 },
    ]);
    const first = await run(args, env);
    expect(first.stderr).toMatch(/reading them again/);
    expect(first.code).toBe(9);
    await emu.admin('DELETE', '/faults');

    // The rerun posts the cached "unlisted" under the first run's step: refused now too; read again, "public" is posted
    // (made, its answer lost: exit 9), under a key of its own, not the refused one's.
    await visibility(['public']);
    await emu.admin('POST', '/faults', [
      { method: 'POST', path: '/v1/posts', action: 'delay', ms: 0, times: 1 },
      { method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 },
    ]);
    const second = await run(args, env);
    expect(second.stderr).toMatch(/ended without knowing whether it posted: continuing it under its key vp-/);
    expect(second.stderr).toMatch(/reading them again/);
    expect(second.stderr).toMatch(/The outcome is unknown: the post may have been created/);
    expect(second.code, second.stderr).toBe(9);
    await emu.admin('DELETE', '/faults');
    expect((await totals()).posts).toBe(before.posts + 1);

    const third = await run([...args, '--json'], env);
    expect(third.stderr).toMatch(/ended without knowing whether it posted: continuing it under its key vp-/);
    expect(third.stderr).toMatch(/Post post_\w+ was created by the earlier run this one continues; reporting it\./);
    expect(third.code).toBe(0);
    expect((JSON.parse(third.stdout) as Post).destinations[0]!.options).toMatchObject({ visibility: 'public' });
    expect((await totals()).posts).toBe(before.posts + 1);
    expect(pending(env)).toEqual([]);
  });

  it('a run still going (its process alive) is not taken over: the same command beside it waits, then exit 7 with the line that continues it; that line run after the first was killed makes the one post', async () => {
    const env = dirs();
    const before = await totals();
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 1 });
    const first = await startUntil(CLIP, env, async () => (await emu.requests()).some((q) => q.method === 'POST' && q.path === '/v1/posts'));
    let line = '';
    try {
      const beside = await timedOutBeside([...CLIP, '--timeout', '20s'], env, 20_000);
      expect(beside.stderr).toMatch(/^An identical run of this command is running, started .* under the key (vp-[\w-]+): waiting for it to end \(up to --timeout\)/m);
      expect(beside.stderr).toMatch(/^Error: Stopped \(--timeout reached\) while an identical run of this command was still running \(stopped, or still working\); this run sent nothing\.$/m);
      const key = /under the key (vp-[\w-]+)/.exec(beside.stderr)![1]!;
      line = /^Rerun to continue it \(nothing is done twice\): (vidpub post .*)$/m.exec(beside.stderr)![1]!;
      expect(line).toContain(`--idempotency-key ${key}`);
      expect(beside.code).toBe(7);
      expect(beside.stdout).toBe('');
      expect((await totals()).posts).toBe(before.posts);
      // --json: the error object carries the key and the line
      const json = await timedOutBeside([...CLIP, '--timeout', '20s', '--json'], env, 20_000);
      const { error } = JSON.parse(json.stderr.trim().split('\n').pop()!) as { error: Record<string, unknown> };
      expect(error).toMatchObject({ type: 'timeout', exit_code: 7, idempotency_key: key, rerun: expect.stringMatching(new RegExp(`^vidpub post .* --json --idempotency-key ${key}$`)) });
      expect(json.code).toBe(7);
      // the same line while the first run still runs waits again: no post beside it
      const again = await timedOutBeside([...CLIP, '--idempotency-key', key, '--timeout', '20s'], env, 20_000);
      expect(again.stderr).toMatch(/^An identical run of this command is running/m);
      expect(again.code).toBe(7);
      expect((await totals()).posts).toBe(before.posts);
      // --force-new waits for nothing: a post beside it, on purpose
      const forced = await run([...CLIP, '--force-new', '--no-wait'], env);
      expect(forced.stderr).not.toMatch(/An identical run|An earlier run/);
      expect(forced.code).toBe(0);
      expect((await totals()).posts).toBe(before.posts + 1);
    } finally {
      await first.kill9();
    }
    const settled = await run([...CLIP, '--idempotency-key', /--idempotency-key (\S+)/.exec(line)![1]!, '--no-wait'], env);
    expect(settled.code).toBe(0);
    expect((await totals()).posts).toBe(before.posts + 2);
  });
});

/**
 * `vidpub watch` in-process against the emulator: what it refuses (an unknown profile, no journal),
 * a journal whose last line is torn (said, skipped, nothing reported twice or lost), and its pacing:
 * with the minute's reads nearly spent it reads only down to the reserve left for other commands,
 * says what it left, and the next run reads it.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { expectEvents, publishedAtService } from '../support/events.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

function home() {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-watch-'));
  return { VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_CACHE: '1' };
}

async function schedule(env: Record<string, string>, inSec: number): Promise<string> {
  const at = new Date((await emu.api.clockNow()) + inSec * 1000).toISOString();
  const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'hi', '--at', at, '--yes', '--json', 'id'], { env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { id: string }).id;
}

describe('vidpub watch: bad input', () => {
  it('an unknown profile: no key, exit 3, saying how to store one', async () => {
    const r = await runCli(['watch', '--once', '--profile', 'nosuch'], { env: { ...home(), VIDPUB_BASE_URL: emu.baseUrl } });
    expect(r.stderr).toMatch(/No API key: none was given and none is stored in profile "nosuch"/);
    expect(r.stderr).toMatch(/vidpub login --profile nosuch/);
    expect([r.code, r.stdout]).toEqual([3, '']);
  });

  it('with the journal off: exit 2, saying why', async () => {
    const r = await runCli(['watch', '--once', '--no-journal'], { env: { ...home(), ...emu.env() } });
    expect(r.stderr).toMatch(/vidpub watch reads the local journal, which --no-journal or VIDPUB_NO_JOURNAL=1 turns off/);
    expect(r.code).toBe(2);
  });

  it('a journal with a torn last line: said, the record written after it kept, each event reported once', async () => {
    const env = { ...home(), ...emu.env() };
    const before = await schedule(env, 600);
    const dir = env.VIDPUB_STATE_DIR;
    const file = readdirSync(dir, { recursive: true }).map(String).find((f) => f.endsWith('journal.jsonl'))!;
    // A run killed mid-write: its line has no end, and the next record is appended to it.
    appendFileSync(join(dir, file), '{"v":1,"kind":"status","post_id":"post_torn","sta');
    const after = await schedule(env, 600);
    await emu.advance(660);
    await publishedAtService(emu.api.as(emu.key()), [before, after]);
    const r1 = await runCli(['watch', '--once', '--json'], { env });
    expect(r1.stderr).toMatch(/Skipped a damaged line in the journal: .*journal\.jsonl line \d+/);
    expect(r1.code, r1.stderr).toBe(0);
    const events = expectEvents(r1.stdout).map((e) => `${e.type} ${e.post_id}`);
    expect(events.sort()).toEqual([`post.completed ${after}`, `post.completed ${before}`, `post.destination.published ${after}`, `post.destination.published ${before}`].sort());
    const r2 = await runCli(['watch', '--once', '--json'], { env });
    expect([r2.code, r2.stdout]).toEqual([0, '']);
  });
});

describe('vidpub watch: pacing', () => {
  it('leaves the reserve of the minute to other commands, says what it did not read, and the next run reads it', async () => {
    const env = { ...home(), ...emu.env() };
    const ids = [await schedule(env, 600), await schedule(env, 601), await schedule(env, 602)];
    await emu.advance(700);
    await publishedAtService(emu.api.as(emu.key()), ids);
    await emu.api.freshMinute();
    // Spend the minute's reads down to 9: watch's look at the service's clock (GET /me) and the destinations' names
    // take two, two posts are read, and the reserve of 5 is left: the third post waits for the next run.
    for (let left = Infinity; left > 9; ) left = Number((await emu.api.as(emu.key()).get('/me')).headers['x-ratelimit-remaining']);
    const r1 = await runCli(['watch', '--once', '--json'], { env });
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stderr).toMatch(/1 post due was not read, to leave this minute's reads to other commands on the key: the next run reads it/);
    const first = new Set(expectEvents(r1.stdout).map((e) => e.post_id));
    expect(first.size).toBe(2);
    expect((await emu.requests()).some((q) => q.status === 429)).toBe(false);
    await emu.api.freshMinute();
    const r2 = await runCli(['watch', '--once', '--json'], { env });
    const second = expectEvents(r2.stdout).map((e) => e.post_id);
    expect(new Set([...first, ...second])).toEqual(new Set(ids));
    expect(second.every((p) => !first.has(p))).toBe(true);
  });
});

describe('vidpub watch --exec', () => {
  it('runs the hook per event (the event on stdin, its ids in the env, no key); a failed hook gets the event again next run, once', async () => {
    const env = { ...home(), ...emu.env() };
    const out = mkdtempSync(join(tmpdir(), 'vidpub-hook-'));
    const id = await schedule(env, 600);
    await emu.advance(660);
    await publishedAtService(emu.api.as(emu.key()), [id]);
    const r1 = await runCli(['watch', '--once', '--json', '--exec', `cat >> ${out}/failed; exit 3`], { env });
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stderr).toMatch(new RegExp(`The --exec hook failed \\(exit 3\\) for post.destination.published of ${id} \\(dst_demo_linkedin\\) \\(evt_\\w+\\): it is offered again on the next run`));
    const reported = expectEvents(r1.stdout);
    expect(expectEvents(readFileSync(join(out, 'failed'), 'utf8'))).toEqual(reported);

    const hook = `cat >> ${out}/got; env > ${out}/env-$VIDPUB_EVENT_TYPE`;
    const r2 = await runCli(['watch', '--once', '--json', '--exec', hook], { env });
    expect([r2.code, r2.stdout, r2.stderr]).toEqual([0, '', 'Watch: 0 posts read, 0 new events.\n']);
    expect(expectEvents(readFileSync(join(out, 'got'), 'utf8'))).toEqual(reported);
    const childEnv = readFileSync(join(out, 'env-post.destination.published'), 'utf8');
    expect(childEnv).toContain(`VIDPUB_POST_ID=${id}`);
    expect(childEnv).toContain('VIDPUB_DESTINATION_ID=dst_demo_linkedin');
    expect(childEnv).not.toContain('VIDPUB_API_KEY');
    expect(childEnv).not.toContain(emu.key());

    const r3 = await runCli(['watch', '--once', '--exec', `cat >> ${out}/again`], { env });
    expect(r3.code).toBe(0);
    expect(existsSync(join(out, 'again'))).toBe(false);
  });

  it('an empty --exec is refused (exit 2)', async () => {
    const r = await runCli(['watch', '--once', '--exec', ' '], { env: { ...home(), ...emu.env() } });
    expect(r.stderr).toMatch(/--exec needs a command/);
    expect(r.code).toBe(2);
  });
});

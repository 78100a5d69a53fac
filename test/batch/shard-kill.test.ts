import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/batch/manifest.js';
import { parseReport, type ShardReport } from '../../src/batch/report/format.js';
import { identities } from '../../src/batch/shard.js';
import { defaultFixture } from '../../src/emulator/index.js';
import { ensureBuilt } from '../support/build.js';
import { startTestEmulator, writes, type TestEmulator } from '../support/emulator.js';
import { toNextDaySec } from '../support/rest.js';
import { signalWhen, spawnWatched, type Ended } from '../support/spawned.js';

/**
 * Past one machine, through the real bin: a manifest of 40 items in 4 shards, each shard a
 * process with its own HOME and state directory (a machine of its own), all on one key of one
 * emulator. Shards 1 and 2 start with 6 posts left of the day: they post those 6 and wait for
 * the reset (--wait-for-quota), and are killed (SIGKILL) there, once their reports hold the 6
 * (an event, not a time). The next day (the emulator's clock moved on, still within the keys'
 * 24 hours) shards 3 and 4 run, and shards 1 and 2 again on other machines (fresh HOME and state),
 * four processes at once: every item posted exactly once by the emulator's record, the ones
 * posted before the kill replayed and reported so, the four reports together the manifest.
 * (bench/shards.bench.mjs: the same with 1,200 items.)
 */
const ITEMS = 40;
const LEFT = 6;
let emu: TestEmulator;
let dir: string;
let file: string;

beforeAll(async () => {
  ensureBuilt();
  const fixture = defaultFixture();
  // Writes enough for the whole run in a minute; LEFT posts left of the day, and the next day's 46 enough for the rest.
  fixture.accounts.find((a) => a.id === 'acct_demo')!.limits = { requests_per_minute: { read: 1000, write: 1000 }, api_posts_per_day: { limit: ITEMS + LEFT, used: ITEMS } };
  emu = await startTestEmulator({ fixture, processingMs: 20, publishMs: 20 });
  // Between 01:00 and 23:50 UTC on the emulator's clock: the next day begins within 24 hours less a minute.
  const toNextDay = toNextDaySec(await emu.api.clockNow());
  if (toNextDay < 600 || toNextDay > 23 * 3600) await emu.advance(toNextDay + 3600 - (toNextDay > 23 * 3600 ? 86_400 : 0));
  dir = mkdtempSync(join(tmpdir(), 'vidpub-shard-kill-'));
  file = join(dir, 'm.jsonl');
  writeFileSync(file, Array.from({ length: ITEMS }, (_, i) => JSON.stringify({ media: 'med_demo_sample', to: 'linkedin', caption: `sharded ${i + 1}` })).join('\n') + '\n');
});
afterAll(() => emu?.close());

/** A machine of its own: HOME, config and state directories. */
function machine(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-shard-machine-'));
  return { HOME: home, VIDPUB_CONFIG_DIR: join(home, 'config'), VIDPUB_STATE_DIR: join(home, 'state'), VIDPUB_CACHE_DIR: join(home, 'cache') };
}

const shard = (i: number, report: string) =>
  spawnWatched(['batch', file, '--yes', '--no-wait', '--wait-for-quota', '--shard', `${i}/4`, '--report', report], { ...emu.env(), ...machine(), TZ: 'UTC', NO_COLOR: '1' }, { guardMs: 60_000 });

const reportAt = (path: string): ShardReport | undefined => (existsSync(path) ? parseReport(readFileSync(path, 'utf8'), path) : undefined);
const count = (r: ShardReport | undefined, result: string) => r?.items.filter((it) => it.result === result).length ?? 0;

describe('batch --shard: four machines, two killed and run again elsewhere', () => {
  it('every item posted exactly once, the replayed ones reported so, the reports together the manifest', async () => {
    const first = [1, 2].map((i) => join(dir, `first-${i}.json`));
    const posted = () => count(reportAt(first[0]!), 'posted') + count(reportAt(first[1]!), 'posted');
    // Both shards killed once the day's posts are made and each has written its report (a shard slow to start may
    // begin when the other has already made them all: it then finds none left and waits for the reset).
    const killed: Ended[] = await Promise.all(first.map((r, i) => signalWhen(shard(i + 1, r), async () => posted() >= LEFT && first.every((f) => existsSync(f)), 'SIGKILL')));
    for (const e of killed) expect(e.signal, e.stderr).toBe('SIGKILL');
    const before = first.map((r) => reportAt(r)!);
    // Killed outright: the last report written is whole, and says the run did not end.
    for (const r of before) expect([r.complete, r.ended_at, count(r, 'pending') > 0]).toEqual([false, null, true]);
    const postedBefore = new Set(before.flatMap((r) => r.items.filter((it) => it.result === 'posted').map((it) => it.id)));
    expect(postedBefore.size).toBe(LEFT);

    await emu.admin('POST', '/clock', { advance_sec: toNextDaySec(await emu.api.clockNow()) + 30 });
    const again = [1, 2, 3, 4].map((i) => join(dir, `again-${i}.json`));
    const ended = await Promise.all(again.map((r, i) => shard(i + 1, r).ended));
    for (const e of ended) expect(e.code, e.stderr).toBe(0);

    // The emulator's record: one post for each item, none made twice.
    const posts = (await writes(emu)).filter((w) => w.path === '/v1/posts' && w.status === 201);
    const made = posts.filter((w) => !w.replayed);
    expect(made.length).toBe(ITEMS);
    expect(new Set(made.map((w) => w.idempotency_key)).size).toBe(ITEMS);
    expect(posts.filter((w) => w.replayed).length).toBe(LEFT);

    const reports = again.map((r) => reportAt(r)!);
    const items = reports.flatMap((r) => r.items);
    const { ids, manifestId } = identities(await parseManifest(readFileSync(file, 'utf8'), 'jsonl'));
    expect(items.map((it) => it.id).sort()).toEqual([...ids].sort());
    expect(new Set(reports.map((r) => r.manifest.id))).toEqual(new Set([manifestId]));
    expect(reports.every((r) => r.complete)).toBe(true);
    for (const it of items) expect(it.result, `item ${it.item}`).toBe(postedBefore.has(it.id) ? 'replayed' : 'posted');
  });
});

/**
 * The scenario through the built bin under faketime, TZ=Europe/Berlin: 12 clips with
 * --slots "mon-fri 09:00,17:00" --from 2027-03-25 (a Thursday) go over the weekend and the
 * spring-forward night; the run leaves 12 scheduled posts at exactly those times in the
 * emulator's record; the same command again sends nothing new and keeps the times.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { copyVideo } from '../support/video-copy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultFixture } from '../../src/emulator/index.js';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';

const noFaketime = missing('faketime', null);
// The per-minute write allowance out of the way (12 uploads and 12 posts would wait a minute for it); the daily one is Standard's 30.
const fixture = defaultFixture();
fixture.accounts.find((a) => a.id === 'acct_demo')!.limits = { requests_per_minute: { read: 1_000_000, write: 1_000_000 } };
// The emulator's clock starts at the scenario's Saturday whatever today's date is (the test moves it on, never back).
const emu = useEmulator({ fixture, processingMs: 0, publishMs: 0, now: () => Date.parse('2027-03-20T12:00:00Z') });
/** The post of each item, in item order (the lines come as items end). */
const postIds = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { item: number; post_id: string })
    .sort((a, b) => a.item - b.item)
    .map((l) => l.post_id);
const START = '2027-03-20 12:00:00Z';

const TIMES = [
  '2027-03-25T08:00:00Z', '2027-03-25T16:00:00Z', '2027-03-26T08:00:00Z', '2027-03-26T16:00:00Z', // +01:00
  '2027-03-29T07:00:00Z', '2027-03-29T15:00:00Z', '2027-03-30T07:00:00Z', '2027-03-30T15:00:00Z', // +02:00 from the 28th
  '2027-03-31T07:00:00Z', '2027-03-31T15:00:00Z', '2027-04-01T07:00:00Z', '2027-04-01T15:00:00Z',
];

describe.skipIf(noFaketime)('a backlog of 12 clips on mon-fri 09:00,17:00 (real bin, faketime, Europe/Berlin)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('schedules each clip at its slot in the emulator; the same command again sends nothing new', async () => {
    const emuNow = Date.parse((await emu.api.admin('GET', '/clock')).body.now as string);
    const target = Date.parse(START.replace(' ', 'T'));
    if (emuNow < target) await emu.api.admin('POST', '/clock', { advance_sec: Math.floor((target - emuNow) / 1000) });
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-backlog-'));
    const lines: string[] = [];
    for (let i = 1; i <= 12; i++) {
      // Each clip its own video (the same one to one destination would be refused as a duplicate).
      copyVideo('test/fixtures/clip.mp4', join(dir, `clip${i}.mp4`), i);
      lines.push(`clip${i}.mp4,linkedin,Clip ${i}`);
    }
    writeFileSync(join(dir, 'backlog.csv'), `file,to,caption\n${lines.join('\n')}\n`);
    const env = { ...process.env, ...emu.env(), TZ: 'Europe/Berlin', NO_COLOR: '1', VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state') };
    const batch = () =>
      runAsync('faketime', [START, process.execPath, BIN, 'batch', join(dir, 'backlog.csv'), '--slots', 'mon-fri 09:00,17:00', '--from', '2027-03-25', '--yes', '--no-wait'], { env, timeoutMs: 90_000 });

    const first = await batch();
    expect(first.status, first.stderr).toBe(0);
    const ids = postIds(first.stdout);
    const posts = await Promise.all(ids.map(async (id) => (await emu.api.get(`/posts/${id}`)).body as { status: string; publish_at: string; destinations: unknown[] }));
    expect(posts.map((p) => [p.status, new Date(Date.parse(p.publish_at)).toISOString().replace('.000', '')])).toEqual(TIMES.map((t) => ['scheduled', t]));
    const created = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && !q.replayed && q.status < 300).length;
    expect(created).toBe(12);

    const again = await batch();
    expect(again.status, again.stderr).toBe(0);
    expect((await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && !q.replayed && q.status < 300).length).toBe(12);
    expect(postIds(again.stdout)).toEqual(ids);
  }, 120_000);
});

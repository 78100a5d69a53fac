/**
 * The key's cache across runs (src/cache/, the client's `cached` reads): what
 * a repeated post no longer reads, what keeps two keys or services apart, the
 * files' modes, what happens when the cache is wrong (the service refuses,
 * the post flow reads again and never posts on stale data) or unreadable,
 * and the two ways around it. Reads are counted in the emulator's request log.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyCache } from '../../src/cache/key-cache.js';
import type { Clock } from '../../src/core/clock.js';
import type { Post, RecordedRequest } from '../../src/contract/wire-types.js';
import { cliRunner } from '../support/cli.js';
import { aheadBy, scaledClock } from '../support/clock.js';
import { startTestEmulator, useEmulator } from '../support/emulator.js';

const emu = useEmulator();
let cacheDir: string;
// Ten times faster than real time: the waits' 1 s first looks take 100 ms.
const run = cliRunner(() => ({ env: { ...emu.env(), VIDPUB_CACHE_DIR: cacheDir, TZ: 'UTC' }, clock: scaledClock(10) }));
const post = (extra: string[] = [], env: Record<string, string> = {}, clock?: Clock) =>
  run(['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--caption', 'cached', '--json', ...extra], { env, ...(clock ? { clock } : {}) });

beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'vidpub-cache-test-'));
});
afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

/** The GETs of the request log since the last clear, by path, then cleared. */
async function readsSinceLast(): Promise<string[]> {
  const log = (await emu.requests()) as RecordedRequest[];
  await emu.admin('DELETE', '/requests');
  return log.filter((e) => e.method === 'GET' && e.path.startsWith('/v1/')).map((e) => e.path);
}

const RARE = ['/v1/destinations', '/v1/destinations/dst_demo_youtube/options', '/v1/me'];
const rare = (paths: string[]) => paths.filter((p) => RARE.includes(p));
const cacheFiles = () => readdirSync(join(cacheDir, 'api')).filter((f) => f.endsWith('.json'));
const cacheText = () => cacheFiles().map((f) => readFileSync(join(cacheDir, 'api', f), 'utf8')).join('\n');

async function postsInDemo(): Promise<number> {
  const state = (await emu.admin('GET', '/state')) as { workspaces: { name: string; posts: { total: number } }[] };
  return state.workspaces.find((w) => w.name === 'Demo')!.posts.total;
}

describe('a repeated post', () => {
  it('reads destinations, options and the workspace once when cold, not at all when warm', async () => {
    await emu.admin('DELETE', '/requests');
    const cold = await post();
    expect(cold.code, cold.stderr).toBe(0);
    // Within one run nothing is read twice.
    expect(rare(await readsSinceLast()).sort()).toEqual([...RARE].sort());

    const warm = await post();
    expect(warm.code, warm.stderr).toBe(0);
    const warmReads = await readsSinceLast();
    expect(rare(warmReads)).toEqual([]);
    expect(warmReads.length).toBeGreaterThan(0); // the waits still look
    expect((JSON.parse(warm.stdout) as Post).destinations[0]).toMatchObject({ destination_id: 'dst_demo_youtube', status: 'published' });
  });

  it('an hour later destinations and options are read again, the workspace not (kept 7 days); 8 days later it is', async () => {
    const later = (ms: number): Clock => aheadBy(scaledClock(10), ms);
    await emu.admin('DELETE', '/requests');
    expect((await post()).code).toBe(0);
    await readsSinceLast();
    const hour = await post([], {}, later(3_600_000));
    expect(hour.code, hour.stderr).toBe(0);
    expect(rare(await readsSinceLast()).sort()).toEqual(['/v1/destinations', '/v1/destinations/dst_demo_youtube/options']);
    const week = await post([], {}, later(8 * 86_400_000));
    expect(week.code, week.stderr).toBe(0);
    expect(rare(await readsSinceLast()).sort()).toEqual([...RARE].sort());
  });

  it('remembers how long processing and publishing took, for the next waits', async () => {
    const r = await post();
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(cacheText()) as { entries: Record<string, { at: number; value: { ms: number; bytes?: number } }> };
    expect(file.entries['took:post:dst_demo_youtube']!.value.ms).toBeGreaterThanOrEqual(0);
    expect(file.entries['took:media:processing']!.value).toMatchObject({ bytes: statSync('test/fixtures/clip.mp4').size });
  });

  it('keeps its files private: the directory 0700, the file 0600, no key in it', async () => {
    expect((await post()).code).toBe(0);
    expect(statSync(join(cacheDir, 'api')).mode & 0o777).toBe(0o700);
    const [file] = cacheFiles();
    expect(statSync(join(cacheDir, 'api', file!)).mode & 0o777).toBe(0o600);
    expect(cacheText()).not.toContain(emu.key());
    expect(cacheText()).toContain(emu.baseUrl);
  });
});

describe('entries are per key and per service', () => {
  it('another key (another workspace) reads for itself, with a file of its own', async () => {
    expect((await post()).code).toBe(0);
    await emu.admin('DELETE', '/requests');
    const other = await run(['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--caption', 'x', '--json'], { env: emu.env('Demo Second') });
    expect(other.code, other.stderr).toBe(0);
    expect(rare(await readsSinceLast())).toContain('/v1/destinations');
    expect(cacheFiles()).toHaveLength(2);
  });

  it('the same key at another base URL reads for itself', async () => {
    expect((await post()).code).toBe(0);
    const second = await startTestEmulator();
    try {
      const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--caption', 'x', '--json'], { env: second.env() });
      expect(r.code, r.stderr).toBe(0);
      const reads = ((await second.requests()) as RecordedRequest[]).filter((e) => e.method === 'GET').map((e) => e.path);
      expect(reads).toContain('/v1/destinations');
      expect(cacheFiles()).toHaveLength(2);
    } finally {
      await second.close();
    }
  });
});

describe('when the cache is wrong', () => {
  it('a destination disconnected since: the refusal is not the end; read again, refused here, nothing posted', async () => {
    expect((await post()).code).toBe(0);
    await emu.admin('POST', '/destinations/dst_demo_youtube', { status: 'disconnected' });
    const before = await postsInDemo();
    const r = await post();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('reading them again');
    expect(r.stderr).toMatch(/cannot post to an inactive destination: @vidpubdemo \(youtube\) is disconnected \(the video is uploaded: med_\w+; post it with --media med_\w+\)/);
    expect(await postsInDemo()).toBe(before);
    // The cache now holds what the service said.
    expect(cacheText()).toContain('"disconnected"');
  });

  it('an option value no longer allowed: read again, posted with what the destination takes now', async () => {
    expect((await post()).code).toBe(0);
    // The cached default "private" is no longer a value; the new default is "unlisted".
    await emu.admin('POST', '/destinations/dst_demo_youtube', { options: [{ key: 'visibility', values: ['public', 'unlisted'], default: 'unlisted' }] });
    const before = await postsInDemo();
    const r = await post();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('reading them again');
    expect(r.stderr).toContain('Posting with what the destinations take now: @vidpubdemo (youtube) visibility=unlisted');
    const created = JSON.parse(r.stdout) as Post;
    expect(created.destinations[0]!.options).toMatchObject({ visibility: 'unlisted' });
    expect(await postsInDemo()).toBe(before + 1);
  });

  it('a destination removed since: the 404 naming it leads to reading again, and a usage error', async () => {
    expect((await post()).code).toBe(0);
    await emu.admin('DELETE', '/destinations/dst_demo_youtube');
    const r = await post();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown destination \\"youtube\\"'); // JSON-escaped (--json)
    expect(r.stderr).toMatch(/the video is uploaded: med_\w+/);
  });

  it('"vidpub destinations" reads the service and refreshes the cache: the next post stops before uploading', async () => {
    expect((await post()).code).toBe(0);
    await emu.admin('POST', '/destinations/dst_demo_youtube', { status: 'expired' });
    const list = await run(['destinations', '--all', '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('"expired"');
    await emu.admin('DELETE', '/requests');
    const r = await post();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot post to an inactive destination: @vidpubdemo (youtube) is expired');
    const log = (await emu.requests()) as RecordedRequest[];
    expect(log.filter((e) => e.method === 'POST')).toEqual([]);
    // Refused on the kept list: read once more from the service before saying so.
    expect(log.filter((e) => e.method === 'GET').map((e) => e.path)).toEqual(['/v1/destinations']);
  });

  it('"vidpub options" reads the service and refreshes the cached options', async () => {
    expect((await post()).code).toBe(0);
    await emu.admin('POST', '/destinations/dst_demo_youtube', { options: [{ key: 'visibility', values: ['public', 'unlisted'], default: 'unlisted' }] });
    const r = await run(['options', 'youtube', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(cacheText()) as { entries: Record<string, { value: { options: { key: string; default: unknown }[] } }> };
    expect(file.entries['options:dst_demo_youtube']!.value.options.find((o) => o.key === 'visibility')!.default).toBe('unlisted');
  });

  it('a corrupt cache file is ignored (read afresh) and replaced', async () => {
    expect((await post()).code).toBe(0);
    const [file] = cacheFiles();
    writeFileSync(join(cacheDir, 'api', file!), '{"v":1,"entries":{"destinations":');
    await emu.admin('DELETE', '/requests');
    const r = await post();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(r.stderr.replace(/cache/gi, '')); // nothing said about it
    expect(rare(await readsSinceLast())).toContain('/v1/destinations');
    expect(() => JSON.parse(cacheText()) as unknown).not.toThrow();
  });

  it('a cache directory that cannot be made is no error: the post goes on without it', async () => {
    const blocker = join(cacheDir, 'a-file');
    writeFileSync(blocker, 'not a directory');
    const r = await post([], { VIDPUB_CACHE_DIR: blocker });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(blocker, 'utf8')).toBe('not a directory');
  });
});

describe("the key's workspace", () => {
  it('is read once and then cached: --workspace checks a warm run without GET /me, and re-reads before refusing', async () => {
    expect((await post(['--workspace', 'Demo'])).code).toBe(0);
    await emu.admin('DELETE', '/requests');
    expect((await post(['--workspace', 'Demo'])).code).toBe(0);
    expect(await readsSinceLast()).not.toContain('/v1/me');
    // A name that the cached workspace does not have: asked again before refusing (a rename would show there).
    const r = await post(['--workspace', 'Elsewhere']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('This API key belongs to workspace \\"Demo\\", not \\"Elsewhere\\"');
    expect(await readsSinceLast()).toContain('/v1/me');
  });

  it("another workspace's key with --workspace is told as such before the accounts are looked up", async () => {
    // Demo Second has no TikTok account: looked up first, the refusal would be "no active tiktok account" (exit 2).
    await emu.admin('DELETE', '/requests');
    const r = await run(['post', 'test/fixtures/clip.mp4', '--to', 'tiktok', '--caption', 'x', '--workspace', 'Demo', '--no-input'], {
      env: { VIDPUB_API_KEY: 'vp_live_demo2_rw_P3s9Jd5Gk1Mx7Cv2' },
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('This API key belongs to workspace "Demo Second", not "Demo" (--workspace / VIDPUB_WORKSPACE); nothing was written.');
    expect(r.stderr).not.toContain('tiktok');
    expect(await readsSinceLast()).toEqual(['/v1/me']);
  });

  it('a refused key (401) drops everything cached under it', async () => {
    const key = 'vp_live_demo_revoked_X2v6Bn4Ts8Hj';
    const keyId = createHash('sha256').update(key).digest('hex').slice(0, 12);
    const seeded = new KeyCache({ dir: cacheDir, baseUrl: emu.baseUrl, keyId, now: () => Date.now() });
    await seeded.set('destinations', [{ id: 'dst_demo_youtube', platform: 'youtube', handle: '@vidpubdemo', status: 'active' }]);
    await seeded.set('options:dst_demo_youtube', { options: [] });
    await seeded.close();
    const r = await post([], { VIDPUB_API_KEY: key });
    expect(r.code).toBe(3);
    const fresh = new KeyCache({ dir: cacheDir, baseUrl: emu.baseUrl, keyId, now: () => Date.now() });
    expect(await fresh.get('destinations', 60_000)).toBeUndefined();
    expect(await fresh.get('options:dst_demo_youtube', 60_000)).toBeUndefined();
  });
});

describe('going around the cache', () => {
  it('--no-cache reads everything from the service and writes nothing', async () => {
    const r = await post(['--no-cache']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(cacheDir)).toEqual([]);
    expect((await post()).code).toBe(0); // now warm
    await emu.admin('DELETE', '/requests');
    expect((await post(['--no-cache'])).code).toBe(0);
    expect(rare(await readsSinceLast()).sort()).toEqual([...RARE].sort());
  });

  it('VIDPUB_NO_CACHE=1 does the same', async () => {
    expect((await post()).code).toBe(0);
    await emu.admin('DELETE', '/requests');
    expect((await post([], { VIDPUB_NO_CACHE: '1' })).code).toBe(0);
    expect(rare(await readsSinceLast()).sort()).toEqual([...RARE].sort());
  });

  it('a draft reads the service (the service saves a draft whatever its issues)', async () => {
    expect((await post()).code).toBe(0);
    await emu.admin('DELETE', '/requests');
    expect((await post(['--draft'])).code).toBe(0);
    expect(rare(await readsSinceLast())).toContain('/v1/destinations');
  });
});

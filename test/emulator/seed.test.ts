/**
 * An emulator seeded from another emulator acting as the real service (a
 * workspace unlike the default fixture's), read through vidpub's own client:
 * the same answers from both, GET only at the source, and the daily
 * allowance counting down from the source's used count.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientSettings } from '../../src/api/client.js';
import { createApiClient } from '../../src/api/http-client.js';
import { seedFixture, validateFixture, type SeedResult } from '../../src/emulator/index.js';
import { streamNotices } from '../../src/ui/notices.js';
import { scaledClock } from '../support/clock.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { SOURCE_DESTINATIONS, SOURCE_KEY, SOURCE_LAST4, spendOne, startSource } from '../support/seed-source.js';

const SETTINGS: ClientSettings = { profile: 'default', debug: false, maxWaitMs: 60_000, waitForQuota: false, quiet: true, cache: false };

let source: TestEmulator;
let seeded: TestEmulator;
let seed: SeedResult;

async function seedFrom(emu: TestEmulator): Promise<SeedResult> {
  const client = await createApiClient(SETTINGS, {
    clock: scaledClock(100),
    signal: new AbortController().signal,
    version: 'test',
    notices: streamNotices(new PassThrough(), false),
    credentials: { env: { VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_API_KEY: SOURCE_KEY }, cwd: process.cwd(), readProfile: async () => undefined },
  });
  try {
    return await seedFixture(client, { source: emu.baseUrl });
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  source = await startSource();
  await spendOne(source);
  await source.admin('DELETE', '/requests');
  seed = await seedFrom(source);
  seeded = await startTestEmulator({ fixture: seed.fixture });
});
afterAll(async () => {
  await seeded?.close();
  await source?.close();
});

describe('emulator seeded from a service', () => {
  it('sent the source nothing but GET requests: /me, /destinations and each options', async () => {
    const log = await source.requests();
    expect(log.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(log.map((r) => r.path).sort()).toEqual(['/v1/destinations', '/v1/me', ...SOURCE_DESTINATIONS.map((id) => `/v1/destinations/${id}/options`)].sort());
  });

  it('answers /destinations as the source does', async () => {
    const [a, b] = await Promise.all([source.api.as(SOURCE_KEY).get('/destinations'), seeded.api.as(seed.key).get('/destinations')]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect((b.body.data as { id: string }[]).map((d) => d.id)).toEqual(SOURCE_DESTINATIONS);
  });

  it.each(SOURCE_DESTINATIONS)('answers the options of %s as the source does', async (id) => {
    const [a, b] = await Promise.all([
      source.api.as(SOURCE_KEY).get(`/destinations/${id}/options`),
      seeded.api.as(seed.key).get(`/destinations/${id}/options`),
    ]);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('has the workspace, plan and allowances of the source, with its own key', async () => {
    const [a, b] = await Promise.all([source.api.as(SOURCE_KEY).get('/me'), seeded.api.as(seed.key).get('/me')]);
    expect(b.body.workspace).toEqual(a.body.workspace);
    expect(b.body.plan).toEqual(a.body.plan);
    expect(b.body.limits.requests_per_minute.read.limit).toBe(90);
    expect(b.body.limits.requests_per_minute.write.limit).toBe(12);
    expect(b.body.limits.api_posts_per_day).toMatchObject({ limit: 7, used: 3, remaining: 4, scope: 'workspace' });
    expect(b.body.key.access).toBe('read_write');
    expect(seed.key).not.toBe(SOURCE_KEY);
    expect(seeded.keys.map((k) => k.key)).toEqual([seed.key]);
  });

  it('counts the daily allowance down from the source\'s used count', async () => {
    const upload = await seeded.api.as(seed.key).post('/media/uploads', { filename: 'a.mp4', size_bytes: 10, content_type: 'video/mp4' });
    expect(upload.status).toBe(201);
    // A post needs a ready video: the seeded workspace has none of the source's (no list of them in the contract).
    const put = await fetch(upload.body.upload.url, { method: 'PUT', headers: upload.body.upload.headers, body: Buffer.alloc(10) });
    expect(put.status).toBeLessThan(300);
    const mediaId = upload.body.media.id as string;
    expect((await seeded.api.as(seed.key).post(`/media/${mediaId}/complete`)).status).toBe(200);
    await seeded.advance(1);
    await expect.poll(async () => (await seeded.api.as(seed.key).get(`/media/${mediaId}`)).body.status).toBe('ready');
    const post = (n: number) => seeded.api.as(seed.key).post('/posts', { media_id: mediaId, caption: `p${n}`, destinations: [{ destination_id: 'dst_acme_films' }], publish_at: 'now' });
    for (let n = 4; n <= 7; n++) {
      expect((await post(n)).status).toBe(201);
      expect((await seeded.api.as(seed.key).get('/me')).body.limits.api_posts_per_day).toMatchObject({ used: n, remaining: 7 - n });
    }
    const refused = await post(8);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('daily_post_limit');
    expect(refused.body.error.message).toContain('daily allowance of 7 API posts in this workspace is used up');
  });

  it('goes back to the source\'s used count on reset, and to 0 the next day', async () => {
    await seeded.reset();
    expect((await seeded.api.as(seed.key).get('/me')).body.limits.api_posts_per_day).toMatchObject({ used: 3, remaining: 4 });
    await seeded.api.nextDay();
    expect((await seeded.api.as(seed.key).get('/me')).body.limits.api_posts_per_day).toMatchObject({ used: 0, remaining: 7 });
  });

  it('holds no trace of the source key, and passes the fixture checker', () => {
    const text = JSON.stringify(seed.fixture);
    expect(text).not.toContain(SOURCE_KEY);
    expect(text).not.toContain(SOURCE_LAST4);
    expect(seed.notes).toEqual([]);
    expect(validateFixture(seed.fixture).workspaces[0]!.destinations.map((d) => d.id)).toEqual(SOURCE_DESTINATIONS);
  });

  it('seeds a read-only key as read-only: a rehearsal is refused where the real run would be', async () => {
    // The source's workspace, read with a key of read access.
    const ro = await startTestEmulator({ fixture: { ...SOURCE_FIXTURE_RO } });
    try {
      const client = await createApiClient(SETTINGS, {
        clock: scaledClock(100), signal: new AbortController().signal, version: 'test', notices: streamNotices(new PassThrough(), false),
        credentials: { env: { VIDPUB_BASE_URL: ro.baseUrl, VIDPUB_API_KEY: RO_KEY }, cwd: process.cwd(), readProfile: async () => undefined },
      });
      const s = await seedFixture(client).finally(() => client.close());
      const emu = await startTestEmulator({ fixture: s.fixture });
      try {
        const r = await emu.api.as(s.key).post('/media/uploads', { filename: 'a.mp4', size_bytes: 10, content_type: 'video/mp4' });
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('read_only_key');
      } finally {
        await emu.close();
      }
    } finally {
      await ro.close();
    }
  });
});

const RO_KEY = 'vp_live_acme_ro_Hw4Ns8Pq2Lk6GXYV';
const SOURCE_FIXTURE_RO = { workspaces: [{ id: 'ws_ro', name: 'Read only', plan: 'studio', keys: [{ key: RO_KEY, name: 'Reader', access: 'read' }], destinations: [] }] };

describe('a fixture account\'s own allowances (limits)', () => {
  const withLimits = (limits: unknown) => ({ accounts: [{ id: 'a', plan: 'standard', limits }], workspaces: [{ name: 'W', account: 'a' }] });

  it('takes the plan\'s figure for each one left out', () => {
    const f = validateFixture(withLimits({ api_posts_per_day: { used: 5 } }));
    expect(f.accounts[0]!.limits).toEqual({ api_posts_per_day: { used: 5 } });
  });

  it('names every wrong figure at its path', () => {
    const bad = withLimits({ requests_per_minute: { read: 0, write: 'lots' }, api_posts_per_day: { used: -1, scope: 'team' }, daily: 3 });
    expect(() => validateFixture(bad, 'mine.json')).toThrow([
      'mine.json: accounts[0].limits.requests_per_minute.read must be a whole number from 1 to 9007199254740991, got 0',
      'mine.json: accounts[0].limits.requests_per_minute.write must be a whole number from 1 to 9007199254740991, got "lots"',
      'mine.json: accounts[0].limits.api_posts_per_day.scope must be "account" or "workspace", got "team"',
      'mine.json: accounts[0].limits.api_posts_per_day.used must be a whole number of at least 0, got -1',
      'mine.json: accounts[0].limits.daily is not a known field (known: requests_per_minute, api_posts_per_day)',
    ].join('\n'));
  });
});

describe('a fixture workspace\'s posts', () => {
  const withPost = (post: Record<string, unknown>): { workspaces: Record<string, unknown>[] } => ({
    workspaces: [{
      name: 'W', plan: 'studio',
      destinations: [{ id: 'dst_a', platform: 'youtube', handle: '@a' }],
      media: [{ id: 'med_a', filename: 'a.mp4', content_type: 'video/mp4', size_bytes: 10 }],
      posts: [post],
    }],
  });

  it('names a video or destination that is not the workspace\'s, and a scheduled post without its time', () => {
    expect(() => validateFixture(withPost({ id: 'post_a', media_id: 'med_b', status: 'scheduled', destinations: [{ destination_id: 'dst_b' }] }), 'mine.json')).toThrow([
      'mine.json: workspaces[0].posts[0].publish_at is required for a scheduled post',
      'mine.json: workspaces[0].posts[0].media_id must be the id of an entry of the workspace\'s media, got "med_b"',
      'mine.json: workspaces[0].posts[0].destinations[0].destination_id must be the id of one of the workspace\'s destinations, got "dst_b"',
    ].join('\n'));
  });

  it('serves a draft of the fixture under its own id, and publishes it', async () => {
    const key = 'vp_live_w_12345678';
    const fixture = withPost({ id: 'post_a', media_id: 'med_a', caption: 'hi', destinations: [{ destination_id: 'dst_a' }] });
    fixture.workspaces[0]!.keys = [{ key, name: 'W', access: 'read_write' }];
    const emu = await startTestEmulator({ fixture });
    try {
      expect((await emu.api.as(key).get('/posts/post_a')).body).toMatchObject({ id: 'post_a', status: 'draft', caption: 'hi', media_id: 'med_a' });
      const published = await emu.api.as(key).post('/posts/post_a/publish', { publish_at: 'now' });
      expect(published.status).toBe(200);
      expect(published.body.status).toBe('publishing');
    } finally {
      await emu.close();
    }
  });
});

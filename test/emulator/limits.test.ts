import { describe, expect, it } from 'vitest';
import { defaultFixture } from '../../src/emulator/index.js';
import { startTestEmulator, useEmulator } from '../support/emulator.js';
import { type Rest, KEYS, type Json } from '../support/rest.js';

// The emulator's clock stands still unless a test moves it: a minute window cannot roll over, and a
// Retry-After cannot lose a second, between two requests of a test on a loaded machine.
const T0 = Date.now();
const emu = useEmulator({ now: () => T0 });

async function schedule(c: Rest, media: string, dest: string): Promise<Json> {
  const at = new Date((await c.clockNow()) + 2 * 3600_000).toISOString();
  return c.post('/posts', { media_id: media, caption: 'scheduled', destinations: [{ destination_id: dest }], publish_at: at });
}

describe('per-minute request counters', () => {
  it('Standard: 60 reads per minute, headers on every response, 429 requests_per_minute not counted, reset by the clock', async () => {
    await emu.api.freshMinute();
    for (let i = 1; i <= 60; i++) {
      const r = await emu.api.get('/destinations');
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBe('60');
      expect(r.headers['x-ratelimit-remaining']).toBe(String(60 - i));
      expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
    }
    const refused = await emu.api.get('/me');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limited', code: 'requests_per_minute' });
    expect(refused.headers['retry-after']).toBe(refused.headers['x-ratelimit-reset']);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-limit']).toBe('60');

    // reads and writes are separate counters: a write still goes through
    const write = await emu.api.post('/posts', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube' }] });
    expect(write.status).toBe(201);
    expect(write.headers['x-ratelimit-limit']).toBe('20');
    expect(write.headers['x-ratelimit-remaining']).toBe('19');

    // other keys have their own counters
    expect((await emu.api.as(KEYS.demo_read).get('/me')).status).toBe(200);

    await emu.api.advance(Number(refused.headers['retry-after']));
    const after = await emu.api.get('/me');
    expect(after.status).toBe(200);
    expect(after.headers['x-ratelimit-remaining']).toBe('59');
    expect(after.body.limits.requests_per_minute.read.used).toBe(1);
  });

  it('Standard: 20 writes per minute; refused writes do not spend the counter', async () => {
    await emu.api.freshMinute();
    for (let i = 0; i < 20; i++) {
      const r = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 10, content_type: 'video/mp4' });
      expect(r.status).toBe(201);
    }
    for (let i = 0; i < 3; i++) {
      const r = await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 10, content_type: 'video/mp4' });
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('requests_per_minute');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    const me = await emu.api.get('/me');
    expect(me.body.limits.requests_per_minute.write).toMatchObject({ used: 20, remaining: 0, limit: 20 });
    expect(me.body.usage.media_count).toBe(22);
  });

  it('Studio: 120 reads and 30 writes per minute', async () => {
    await emu.api.freshMinute();
    const studio = emu.api.as(KEYS.studio_rw);
    for (let i = 0; i < 30; i++) expect((await studio.post('/posts', { media_id: 'med_studio_sample', destinations: [{ destination_id: 'dst_studio_youtube' }] })).status).toBe(201);
    const w = await studio.post('/posts', { media_id: 'med_studio_sample', destinations: [{ destination_id: 'dst_studio_youtube' }] });
    expect(w.status).toBe(429);
    expect(w.headers['x-ratelimit-limit']).toBe('30');
    for (let i = 0; i < 120; i++) expect((await studio.get('/destinations')).status).toBe(200);
    const r = await studio.get('/destinations');
    expect(r.status).toBe(429);
    expect(r.headers['x-ratelimit-limit']).toBe('120');
  });
});

describe('daily post allowance', () => {
  it('Standard: 30 per day shared by the workspaces of the account; drafts free; reset at midnight UTC', async () => {
    await emu.api.nextDay();
    const second = emu.api.as(KEYS.second_rw);
    for (let i = 0; i < 15; i++) expect((await schedule(emu.api, 'med_demo_sample', 'dst_demo_youtube')).status).toBe(201);
    for (let i = 0; i < 15; i++) expect((await schedule(second, 'med_second_sample', 'dst_second_youtube')).status).toBe(201);

    const me = await emu.api.get('/me');
    expect(me.body.limits.api_posts_per_day).toMatchObject({ limit: 30, used: 30, remaining: 0, scope: 'account' });
    expect(me.body.usage.posts_today).toBe(15);

    const before = await emu.api.admin('GET', '/state');
    const refused = await schedule(emu.api, 'med_demo_sample', 'dst_demo_youtube');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limited', code: 'daily_post_limit' });
    const resetAt = Date.parse(refused.body.error.reset_at);
    expect(new Date(resetAt).toISOString()).toMatch(/T00:00:00\.000Z$/);
    const now = await emu.api.clockNow();
    expect(Number(refused.headers['retry-after'])).toBe(Math.ceil((resetAt - now) / 1000));
    // a 429 does not spend the per-minute write counter
    expect(refused.headers['x-ratelimit-remaining']).toBe('5'); // 15 writes used, the refused one given back
    // refused create leaves no post behind
    const after = await emu.api.admin('GET', '/state');
    expect(after.body.workspaces[0].posts.total).toBe(before.body.workspaces[0].posts.total);
    // the other workspace of the account is refused too
    expect((await schedule(second, 'med_second_sample', 'dst_second_youtube')).body.error.code).toBe('daily_post_limit');
    // publish now is refused as well
    const now1 = await emu.api.post('/posts', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' });
    expect(now1.status).toBe(429);

    // drafts are still saved
    const draft = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'd', destinations: [{ destination_id: 'dst_demo_youtube' }] });
    expect(draft.status).toBe(201);
    expect(draft.body.status).toBe('draft');
    // publishing the draft is refused and it stays a draft
    const pub = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    expect(pub.status).toBe(429);
    expect(pub.body.error.code).toBe('daily_post_limit');
    expect(pub.headers['retry-after']).toBeDefined();
    expect((await emu.api.get(`/posts/${draft.body.id}`)).body.status).toBe('draft');

    await emu.api.nextDay();
    const fresh = await emu.api.get('/me');
    expect(fresh.body.limits.api_posts_per_day).toMatchObject({ used: 0, remaining: 30 });
    expect(fresh.body.usage.posts_today).toBe(0);
    const ok = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('publishing');
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(1);
  });

  it('rescheduling and sending a scheduled post now do not spend the allowance', async () => {
    await emu.api.nextDay();
    const s = await schedule(emu.api, 'med_demo_sample', 'dst_demo_youtube');
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(1);
    const later = new Date((await emu.api.clockNow()) + 5 * 3600_000).toISOString();
    const moved = await emu.api.post(`/posts/${s.body.id}/publish`, { publish_at: later });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('scheduled');
    expect(moved.body.publish_at).toBe(later);
    const now = await emu.api.post(`/posts/${s.body.id}/publish`, { publish_at: 'now' });
    expect(now.body.status).toBe('publishing');
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(1);
  });

  it('a scheduled post can still be rescheduled when the allowance is used up', async () => {
    await emu.api.nextDay();
    const second = emu.api.as(KEYS.second_rw);
    const first = await schedule(emu.api, 'med_demo_sample', 'dst_demo_youtube');
    for (let i = 0; i < 14; i++) await schedule(emu.api, 'med_demo_sample', 'dst_demo_youtube');
    for (let i = 0; i < 15; i++) await schedule(second, 'med_second_sample', 'dst_second_youtube');
    expect((await schedule(emu.api, 'med_demo_sample', 'dst_demo_youtube')).status).toBe(429);
    const later = new Date((await emu.api.clockNow()) + 3 * 3600_000).toISOString();
    const moved = await emu.api.post(`/posts/${first.body.id}/publish`, { publish_at: later });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('scheduled');
  });

  it('Studio: 100 per day per workspace (two workspaces of one Studio account are independent)', async () => {
    const fixture = defaultFixture();
    fixture.workspaces.push({
      id: 'ws_studio_b',
      name: 'Studio B',
      account: 'acct_studio',
      keys: [{ key: 'vp_live_studio_b_rw_12345678', name: 'B', access: 'read_write', revoked: false, created_at: '2025-01-01T00:00:00Z' }],
      destinations: [{ ...fixture.workspaces[2]!.destinations[3]!, id: 'dst_b_youtube' }],
      media: [{ ...fixture.workspaces[2]!.media[0]!, id: 'med_b' }],
    });
    const other = await startTestEmulator({ fixture, now: () => T0 });
    try {
      const a = other.api.as(KEYS.studio_rw);
      const b = other.api.as('vp_live_studio_b_rw_12345678');
      await a.nextDay();
      for (let i = 0; i < 100; i++) {
        if (i > 0 && i % 30 === 0) await a.advance(60);
        expect((await schedule(a, 'med_studio_sample', 'dst_studio_youtube')).status).toBe(201);
      }
      const refused = await schedule(a, 'med_studio_sample', 'dst_studio_youtube');
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('daily_post_limit');
      expect(refused.body.error.message).toContain('in this workspace');
      const me = await a.get('/me');
      expect(me.body.limits.api_posts_per_day).toMatchObject({ limit: 100, used: 100, scope: 'workspace' });
      const okB = await schedule(b, 'med_b', 'dst_b_youtube');
      expect(okB.status).toBe(201);
      expect((await b.get('/me')).body.limits.api_posts_per_day).toMatchObject({ used: 1, remaining: 99 });
    } finally {
      await other.close();
    }
  });
});

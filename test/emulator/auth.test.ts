import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { KEYS } from '../support/rest.js';

const emu = useEmulator();

describe('authentication', () => {
  it('401 missing_key without an Authorization header, with no rate-limit headers', async () => {
    const r = await emu.api.get('/me', { key: null });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: { type: 'authentication_error', code: 'missing_key', message: expect.stringContaining('Authorization') } });
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('401 invalid_key for an unknown key, a key without _live_, and a non-Bearer header', async () => {
    const unknown = await emu.api.get('/me', { key: 'vp_live_doesnotexist123' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('invalid_key');
    const test = await emu.api.get('/me', { key: 'vp_test_demo_rw_k7Qm2Xc4Lp9Hs3Td' });
    expect(test.status).toBe(401);
    expect(test.body.error.code).toBe('invalid_key');
    expect(test.body.error.message).toContain('_live_');
    const basic = await emu.api.get('/me', { key: null, headers: { authorization: `Basic ${KEYS.demo_rw}` } });
    expect(basic.status).toBe(401);
    expect(basic.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_key' });
    expect(unknown.headers['x-ratelimit-remaining']).toBeUndefined();
  });

  it('401 revoked_key for a revoked key', async () => {
    const r = await emu.api.get('/destinations', { key: KEYS.demo_revoked });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatchObject({ type: 'authentication_error', code: 'revoked_key' });
  });

  it('accepts the scheme case-insensitively', async () => {
    const r = await emu.api.get('/me', { key: null, headers: { authorization: `bearer ${KEYS.demo_rw}` } });
    expect(r.status).toBe(200);
  });

  it('403 plan_without_api_access on every call with a Free-plan key', async () => {
    for (const [method, path] of [['GET', '/me'], ['GET', '/destinations'], ['POST', '/posts']] as const) {
      const r = await emu.api.as(KEYS.free_rw).call(method, path, { body: method === 'POST' ? {} : undefined });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'plan_without_api_access' });
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('403 read_only_key for a POST with a read key; GET works', async () => {
    const ro = emu.api.as(KEYS.demo_read);
    const get = await ro.get('/destinations');
    expect(get.status).toBe(200);
    for (const path of ['/posts', '/media/uploads', '/media/imports', '/media/med_demo_sample/complete', '/posts/x/publish']) {
      const r = await ro.post(path, {});
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'read_only_key' });
      expect(r.headers['x-ratelimit-limit']).toBe('20');
    }
  });

  it('authenticates before reading the body: a malformed body with a bad key is a 401', async () => {
    const r = await emu.api.call('POST', '/posts', { key: 'vp_live_nope_nope_nope', raw: '{oops' });
    expect(r.status).toBe(401);
  });
});

describe('GET /me', () => {
  it('returns key, workspace, plan, usage and limits for a Standard key', async () => {
    const r = await emu.api.get('/me');
    expect(r.status).toBe(200);
    expect(r.body.key).toEqual({
      id: 'key_ws_demo_1',
      name: 'Demo read/write',
      access: 'read_write',
      prefix: 'vp_live_',
      last4: KEYS.demo_rw.slice(-4),
      created_at: '2025-01-15T09:00:00.000Z',
    });
    expect(JSON.stringify(r.body)).not.toContain(KEYS.demo_rw);
    expect(r.body.workspace).toEqual({ id: 'ws_demo', name: 'Demo' });
    expect(r.body.plan).toEqual({ name: 'standard' });
    expect(r.body.usage).toEqual({ posts_today: 0, media_count: 2, post_count: 0 });
    const rpm = r.body.limits.requests_per_minute;
    expect(rpm.scope).toBe('key');
    expect(rpm.read).toMatchObject({ limit: 60, used: 1, remaining: 59 });
    expect(rpm.write).toMatchObject({ limit: 20, used: 0, remaining: 20 });
    expect(Date.parse(rpm.read.reset_at) % 60_000).toBe(0);
    const day = r.body.limits.api_posts_per_day;
    expect(day).toMatchObject({ limit: 30, used: 0, remaining: 30, scope: 'account' });
    expect(day.reset_at).toMatch(/T00:00:00\.000Z$/);
  });

  it('reports Studio limits with workspace scope, and the read key access', async () => {
    const studio = await emu.api.as(KEYS.studio_rw).get('/me');
    expect(studio.body.plan.name).toBe('studio');
    expect(studio.body.limits.requests_per_minute.read.limit).toBe(120);
    expect(studio.body.limits.requests_per_minute.write.limit).toBe(30);
    expect(studio.body.limits.api_posts_per_day).toMatchObject({ limit: 100, scope: 'workspace' });
    const ro = await emu.api.as(KEYS.demo_read).get('/me');
    expect(ro.body.key.access).toBe('read');
    expect(ro.body.workspace.name).toBe('Demo');
    const second = await emu.api.as(KEYS.second_rw).get('/me');
    expect(second.body.workspace).toEqual({ id: 'ws_demo_second', name: 'Demo Second' });
  });
});

describe('destinations', () => {
  it('lists every destination of the workspace with all statuses and video limits', async () => {
    const r = await emu.api.get('/destinations');
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual(['dst_demo_tiktok', 'dst_demo_youtube', 'dst_demo_linkedin', 'dst_demo_instagram']);
    expect(r.body.data[0]).toEqual({
      id: 'dst_demo_tiktok',
      platform: 'tiktok',
      handle: '@vidpub.demo',
      display_name: 'vidpub Demo',
      status: 'active',
      video_limits: { max_duration_sec: 600, max_size_bytes: 1_000_000_000, content_types: ['video/mp4', 'video/quicktime', 'video/webm'] },
    });
    expect(r.body.data[3].status).toBe('disconnected');
    const second = await emu.api.as(KEYS.second_rw).get('/destinations');
    expect(second.body.data.map((d: { id: string; status: string }) => `${d.id}:${d.status}`)).toEqual(['dst_second_youtube:active', 'dst_second_tiktok:expired']);
  });

  it('options of a creator-disclosure destination: required privacy without default, creator, max_duration_sec', async () => {
    const r = await emu.api.get('/destinations/dst_demo_tiktok/options');
    expect(r.status).toBe(200);
    expect(r.body.options[0]).toEqual({
      key: 'privacy',
      label: 'Who can view this video',
      type: 'enum',
      values: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
      default: null,
      required: true,
    });
    expect(r.body.creator).toEqual({ handle: '@vidpub.demo', display_name: 'vidpub Demo', avatar_url: 'https://avatars.example.com/vidpub.demo.png' });
    expect(r.body.max_duration_sec).toBe(600);
  });

  it('options of the long-form destination: a required option with a default; no creator', async () => {
    const r = await emu.api.get('/destinations/dst_demo_youtube/options');
    expect(r.body.options.find((o: { key: string }) => o.key === 'visibility')).toMatchObject({ required: true, default: 'private' });
    expect(r.body.creator).toBeUndefined();
    expect(r.body.max_duration_sec).toBeUndefined();
    const li = await emu.api.get('/destinations/dst_demo_linkedin/options');
    expect(li.body.options.every((o: { required: boolean }) => !o.required)).toBe(true);
  });

  it('404 not_found for an unknown destination or one of another workspace', async () => {
    for (const id of ['dst_nope', 'dst_second_youtube']) {
      const r = await emu.api.get(`/destinations/${id}/options`);
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ type: 'not_found', code: 'not_found' });
      expect(r.body.error.message).toContain(id);
    }
  });
});

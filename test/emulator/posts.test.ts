import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { KEYS, http, type Json } from '../support/rest.js';

const emu = useEmulator();

const YT = { destination_id: 'dst_demo_youtube' };
const LI = { destination_id: 'dst_demo_linkedin' };
const TT_PRIVATE = { destination_id: 'dst_demo_tiktok', options: { privacy: 'SELF_ONLY' } };

async function nowMs(): Promise<number> {
  return Date.parse((await emu.api.admin('GET', '/clock')).body.now);
}
const inHours = async (h: number): Promise<string> => new Date((await nowMs()) + h * 3600_000).toISOString();
const waitCompleted = (id: string): Promise<Json> => waitFor(() => emu.api.get(`/posts/${id}`), (r) => r.body.status === 'completed');
const postCount = async (): Promise<number> => (await emu.api.admin('GET', '/state')).body.workspaces[0].posts.total;

describe('drafts', () => {
  it('POST /posts without publish_at saves a draft with review_url, issues and defaults applied', async () => {
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'Hello', destinations: [{ destination_id: 'dst_demo_tiktok' }, YT] });
    expect(r.status).toBe(201);
    const p = r.body;
    expect(p.id).toMatch(/^post_[0-9a-f]{16}$/);
    expect(p).toMatchObject({ status: 'draft', caption: 'Hello', media_id: 'med_demo_sample', publish_at: null });
    expect(p.review_url).toBe(`${emu.adminUrl}/review/${p.id}`);
    expect(p.issues).toEqual([
      {
        severity: 'error',
        code: 'missing_required_option',
        destination_id: 'dst_demo_tiktok',
        option: 'privacy',
        message: expect.stringContaining('SELF_ONLY'),
      },
    ]);
    expect(p.destinations).toEqual([
      { destination_id: 'dst_demo_tiktok', options: { allow_comments: true, allow_duet: false, allow_stitch: false, branded_content: false }, status: 'pending', url: null, warning: null, failure: null },
      { destination_id: 'dst_demo_youtube', options: { visibility: 'private', category: 'People & Blogs', notify_subscribers: true }, status: 'pending', url: null, warning: null, failure: null },
    ]);
    const got = await emu.api.get(`/posts/${p.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(p);
    const review = await http('GET', p.review_url);
    expect(review.status).toBe(200);
    expect(review.headers['content-type']).toContain('text/html');
    expect(review.text).toContain(p.id);
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(0);
  });

  it('a destination with only optional settings gives no issues; a given option overrides the default', async () => {
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ ...LI, options: { visibility: 'CONNECTIONS' } }] });
    expect(r.body.issues).toEqual([]);
    expect(r.body.destinations[0].options).toEqual({ visibility: 'CONNECTIONS', allow_comments: true });
  });

  it('issues: value not in the list, inactive destination, video too long (errors); empty caption (warning)', async () => {
    const r = await emu.api.post('/posts', {
      media_id: 'med_demo_long',
      caption: '',
      destinations: [{ destination_id: 'dst_demo_tiktok', options: { privacy: 'FRIENDS' } }, { destination_id: 'dst_demo_instagram' }],
    });
    expect(r.status).toBe(201);
    const codes = r.body.issues.map((i: Json) => `${i.severity}:${i.code}:${i.destination_id ?? '-'}`);
    expect(codes).toEqual([
      'warning:caption_empty:-',
      'error:option_value_not_allowed:dst_demo_tiktok',
      'error:video_too_long:dst_demo_tiktok',
      'error:destination_inactive:dst_demo_instagram',
    ]);
    expect(r.body.issues[2].message).toContain('600 s');
    expect(r.body.issues[2].message).toContain('700 s');
  });
});

describe('POST /posts validation', () => {
  const cases: [string, Json, number, string, string | undefined][] = [
    ['missing media_id', { destinations: [YT] }, 400, 'missing_field', 'media_id'],
    ['unknown media', { media_id: 'med_nope', destinations: [YT] }, 404, 'not_found', 'media_id'],
    ['media of another workspace', { media_id: 'med_second_sample', destinations: [YT] }, 404, 'not_found', 'media_id'],
    ['missing destinations', { media_id: 'med_demo_sample' }, 400, 'missing_field', 'destinations'],
    ['empty destinations', { media_id: 'med_demo_sample', destinations: [] }, 400, 'invalid_field', 'destinations'],
    ['destinations not an array', { media_id: 'med_demo_sample', destinations: 'dst_demo_youtube' }, 400, 'invalid_field', 'destinations'],
    ['unknown destination', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_nope' }] }, 404, 'not_found', 'destinations[0].destination_id'],
    ['destination of another workspace', { media_id: 'med_demo_sample', destinations: [YT, { destination_id: 'dst_second_youtube' }] }, 404, 'not_found', 'destinations[1].destination_id'],
    ['duplicate destination', { media_id: 'med_demo_sample', destinations: [YT, YT] }, 400, 'invalid_field', 'destinations[1].destination_id'],
    ['unknown option', { media_id: 'med_demo_sample', destinations: [{ ...YT, options: { privacy: 'public' } }] }, 400, 'unknown_option', 'destinations[0].options.privacy'],
    ['enum given a boolean', { media_id: 'med_demo_sample', destinations: [{ ...YT, options: { visibility: true } }] }, 400, 'invalid_option_value', 'destinations[0].options.visibility'],
    ['boolean given a string', { media_id: 'med_demo_sample', destinations: [{ ...YT, options: { notify_subscribers: 'yes' } }] }, 400, 'invalid_option_value', 'destinations[0].options.notify_subscribers'],
    ['caption not a string', { media_id: 'med_demo_sample', caption: 5, destinations: [YT] }, 400, 'invalid_field', 'caption'],
    ['publish_at garbage', { media_id: 'med_demo_sample', destinations: [YT], publish_at: 'tomorrow' }, 400, 'invalid_publish_at', 'publish_at'],
    ['publish_at without offset', { media_id: 'med_demo_sample', destinations: [YT], publish_at: '2099-01-01T10:00:00' }, 400, 'invalid_publish_at', 'publish_at'],
    ['publish_at in the past', { media_id: 'med_demo_sample', destinations: [YT], publish_at: '2001-01-01T10:00:00Z' }, 400, 'invalid_publish_at', 'publish_at'],
    ['publish_at not a calendar day', { media_id: 'med_demo_sample', destinations: [YT], publish_at: '2099-02-30T10:00:00Z' }, 400, 'invalid_publish_at', 'publish_at'],
    ['publish_at a number', { media_id: 'med_demo_sample', destinations: [YT], publish_at: 1700000000 }, 400, 'invalid_publish_at', 'publish_at'],
  ];
  for (const [name, body, status, code, param] of cases) {
    it(`${status} ${code}: ${name}`, async () => {
      const r = await emu.api.post('/posts', body);
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
      if (param !== undefined) expect(r.body.error.param).toBe(param);
      expect(await postCount()).toBe(0);
    });
  }

  it('a body that is not a JSON object, or not sent as JSON, is a 400 invalid_json', async () => {
    const arr = await emu.api.call('POST', '/posts', { raw: '[1,2]' });
    expect(arr.status).toBe(400);
    expect(arr.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_json' });
    const text = await emu.api.call('POST', '/posts', { raw: 'media_id=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe('invalid_json');
  });
});

describe('publishing', () => {
  it('publish_at=now: publishing -> each destination published with a url -> completed', async () => {
    await emu.api.admin('POST', '/settings', { publish_ms: 1200 }); // destination 1 at 600 ms, 2 at 1200 ms
    const before = await nowMs();
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'Now!', destinations: [TT_PRIVATE, YT], publish_at: 'now' });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('publishing');
    expect(r.body.destinations.map((d: Json) => d.status)).toEqual(['publishing', 'publishing']);
    expect(Date.parse(r.body.publish_at)).toBeGreaterThanOrEqual(before - 1000);
    const half = await waitFor(() => emu.api.get(`/posts/${r.body.id}`), (p) => p.body.destinations[0].status === 'published');
    expect(half.body.status).toBe('publishing');
    expect(half.body.destinations[1].status).toBe('publishing');
    const done = await waitCompleted(r.body.id);
    for (const d of done.body.destinations) {
      expect(d.status).toBe('published');
      expect(d.url).toBe(`${emu.adminUrl}/published/${r.body.id}/${d.destination_id}`);
      expect(d.failure).toBeNull();
      expect(d.warning).toBeNull();
    }
    const page = await http('GET', done.body.destinations[0].url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('@vidpub.demo');
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(1);
    expect((await emu.api.get('/me')).body.usage.posts_today).toBe(1);
  });

  it('draft -> scheduled -> rescheduled -> now -> completed', async () => {
    const draft = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [YT] });
    const t1 = await inHours(1);
    const s = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: t1.replace('Z', '+00:00') });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ status: 'scheduled', publish_at: t1 });
    expect(s.body.destinations[0].status).toBe('pending');
    const t2 = new Date(Date.parse(t1) + 3600_000);
    const plus2 = `${t2.toISOString().slice(0, 19)}+00:00`;
    const moved = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: plus2 });
    expect(moved.body).toMatchObject({ status: 'scheduled', publish_at: `${plus2.slice(0, 19)}.000Z` });
    const now = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    expect(now.body.status).toBe('publishing');
    const done = await waitCompleted(draft.body.id);
    expect(done.body.destinations[0].status).toBe('published');
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(1);
  });

  it('accepts an ISO time with a non-UTC offset and stores it as UTC', async () => {
    const base = new Date((await nowMs()) + 48 * 3600_000);
    base.setUTCSeconds(0, 0);
    const local = new Date(base.getTime() + 2 * 3600_000).toISOString().slice(0, 19) + '+02:00';
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', destinations: [YT], publish_at: local });
    expect(r.status).toBe(201);
    expect(r.body.publish_at).toBe(base.toISOString());
  });

  it('a scheduled post goes out when the emulator clock reaches its time', async () => {
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 's', destinations: [YT, LI], publish_at: await inHours(1) });
    expect(r.body.status).toBe('scheduled');
    await emu.api.advance(1800);
    expect((await emu.api.get(`/posts/${r.body.id}`)).body.status).toBe('scheduled');
    const adv = await emu.api.advance(1801);
    expect(adv.body.released_posts).toBe(1);
    const right = await emu.api.get(`/posts/${r.body.id}`);
    expect(['publishing', 'completed']).toContain(right.body.status);
    const done = await waitCompleted(r.body.id);
    expect(done.body.destinations.map((d: Json) => d.status)).toEqual(['published', 'published']);
  });

  it('409 media_not_ready when publishing or scheduling before the video is ready; a draft is fine', async () => {
    const up = await emu.api.post('/media/uploads', { filename: 'later.mp4', size_bytes: 10, content_type: 'video/mp4' });
    const mediaId = up.body.media.id;
    const now = await emu.api.post('/posts', { media_id: mediaId, destinations: [YT], publish_at: 'now' });
    expect(now.status).toBe(409);
    expect(now.body.error).toMatchObject({ type: 'conflict', code: 'media_not_ready' });
    expect(await postCount()).toBe(0);
    const draft = await emu.api.post('/posts', { media_id: mediaId, caption: 'c', destinations: [YT] });
    expect(draft.status).toBe(201);
    expect(draft.body.issues).toEqual([expect.objectContaining({ severity: 'warning', code: 'media_not_ready' })]);
    const pub = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    expect(pub.status).toBe(409);
    expect(pub.body.error.code).toBe('media_not_ready');
    expect((await emu.api.get(`/posts/${draft.body.id}`)).body.status).toBe('draft');
    await http('PUT', up.body.upload.url, { headers: up.body.upload.headers, body: Buffer.alloc(10) });
    await emu.api.post(`/media/${mediaId}/complete`);
    await waitFor(() => emu.api.get(`/media/${mediaId}`), (m) => m.body.status === 'ready');
    const ok = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    expect(ok.status).toBe(200);
    expect(ok.body.issues.filter((i: Json) => i.code === 'media_not_ready')).toEqual([]);
  });

  it('409 post_has_blocking_issues lists the issues; the draft stays a draft; fixing the cause unblocks it', async () => {
    const draft = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [{ destination_id: 'dst_demo_instagram' }] });
    const r = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict', code: 'post_has_blocking_issues', post_id: draft.body.id });
    expect(r.body.error.message).toContain('disconnected');
    expect(r.body.error.issues).toEqual([expect.objectContaining({ severity: 'error', code: 'destination_inactive', destination_id: 'dst_demo_instagram' })]);
    expect((await emu.api.get(`/posts/${draft.body.id}`)).body.status).toBe('draft');
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(0);

    await emu.api.admin('POST', '/destinations/dst_demo_instagram', { status: 'active' });
    const ok = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    expect(ok.status).toBe(200);
    expect(ok.body.issues).toEqual([]);
  });

  it('POST /posts with publish_at and an error issue is refused with 409 and leaves no post', async () => {
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [{ destination_id: 'dst_demo_tiktok', options: { privacy: 'FRIENDS' } }], publish_at: 'now' });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('post_has_blocking_issues');
    expect(r.body.error.issues[0]).toMatchObject({ code: 'option_value_not_allowed', option: 'privacy' });
    expect(await postCount()).toBe(0);
    const missing = await emu.api.post('/posts', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_tiktok' }], publish_at: await inHours(1) });
    expect(missing.status).toBe(409);
    expect(missing.body.error.issues.map((i: Json) => i.code)).toContain('missing_required_option');
  });

  it('409 post_not_publishable for a publishing or completed post', async () => {
    await emu.api.admin('POST', '/settings', { publish_ms: 60_000 });
    const slow = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [YT], publish_at: 'now' });
    const during = await emu.api.post(`/posts/${slow.body.id}/publish`, { publish_at: 'now' });
    expect(during.status).toBe(409);
    expect(during.body.error).toMatchObject({ type: 'conflict', code: 'post_not_publishable', status: 'publishing', post_id: slow.body.id });
    await emu.api.admin('POST', '/settings', { publish_ms: 30 });
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [YT], publish_at: 'now' });
    await waitCompleted(r.body.id);
    const after = await emu.api.post(`/posts/${r.body.id}/publish`, { publish_at: await inHours(1) });
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('post_not_publishable');
  });

  it('publish validation: 400 missing publish_at, 400 invalid_publish_at, 404 unknown post', async () => {
    const draft = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [YT] });
    const missing = await emu.api.post(`/posts/${draft.body.id}/publish`, {});
    expect(missing.body.error).toMatchObject({ code: 'missing_field', param: 'publish_at' });
    const empty = await emu.api.call('POST', `/posts/${draft.body.id}/publish`);
    expect(empty.body.error.code).toBe('missing_field');
    const bad = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: '2000-01-01T00:00:00Z' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_publish_at');
    expect(bad.body.error.message).toContain('past');
    const tooFar = await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: await inHours(24 * 400) });
    expect(tooFar.body.error.code).toBe('invalid_publish_at');
    const unknown = await emu.api.post('/posts/post_nope/publish', { publish_at: 'now' });
    expect(unknown.status).toBe(404);
    expect((await emu.api.get('/posts/post_nope')).status).toBe(404);
    expect((await emu.api.as(KEYS.second_rw).get(`/posts/${draft.body.id}`)).status).toBe(404);
  });

  it('destination_fail fault: that destination fails with failure {code, message}; the others publish; post completed', async () => {
    await emu.api.fault({ destination_fail: 'dst_demo_linkedin' });
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [YT, LI], publish_at: 'now' });
    const done = await waitCompleted(r.body.id);
    expect(done.body.destinations[0]).toMatchObject({ status: 'published', failure: null });
    expect(done.body.destinations[1]).toMatchObject({ status: 'failed', url: null, failure: { code: 'platform_rejected', message: expect.stringContaining('linkedin') } });
  });

  it('a destination disconnected before a scheduled post goes out fails with destination_inactive', async () => {
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [YT, LI], publish_at: await inHours(1) });
    await emu.api.admin('POST', '/destinations/dst_demo_linkedin', { status: 'expired' });
    await emu.api.advance(3601);
    const done = await waitCompleted(r.body.id);
    expect(done.body.destinations[1]).toMatchObject({ status: 'failed', failure: { code: 'destination_inactive' } });
    expect(done.body.destinations[0].status).toBe('published');
  });

  it('warnings: conversion and caption cut show as issues before and as the destination warning after', async () => {
    const avi = await emu.api.uploadReady('old.avi', 100, 'video/x-msvideo');
    const caption = 'x'.repeat(3001);
    const draft = await emu.api.post('/posts', { media_id: avi, caption, destinations: [LI, YT] });
    expect(draft.body.issues.map((i: Json) => `${i.severity}:${i.code}`)).toEqual(expect.arrayContaining([
      'warning:video_will_be_converted',
      'warning:caption_too_long',
      'warning:duration_unknown',
    ]));
    expect(draft.body.issues.every((i: Json) => i.severity === 'warning')).toBe(true);
    await emu.api.post(`/posts/${draft.body.id}/publish`, { publish_at: 'now' });
    const done = await waitCompleted(draft.body.id);
    expect(done.body.destinations[0].warning).toEqual({ code: 'caption_truncated', message: expect.stringContaining('converted') });
    expect(done.body.destinations[1].warning).toBeNull();
  });

  it('web-app cancel (admin control): destinations not yet out become cancelled, the post completed', async () => {
    const r = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [YT, LI], publish_at: await inHours(1) });
    const c = await emu.api.admin('POST', `/posts/${r.body.id}/cancel`);
    expect(c.status).toBe(200);
    const got = await emu.api.get(`/posts/${r.body.id}`);
    expect(got.body.status).toBe('completed');
    expect(got.body.destinations.map((d: Json) => d.status)).toEqual(['cancelled', 'cancelled']);
    await emu.api.advance(7200);
    expect((await emu.api.get(`/posts/${r.body.id}`)).body.destinations[0].status).toBe('cancelled');
  });
});

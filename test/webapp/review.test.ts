/**
 * The review page behind review_url, driven in a real browser (Debian's
 * chromium through playwright-core): a blocked draft fixed and published
 * there without spending the daily allowance; scheduling and rescheduling;
 * cancelling one destination and retrying one that failed; the video played
 * from the uploaded bytes; the page refreshing while the post is in progress.
 * The emulator's clock is frozen: background work happens when the test
 * moves it (POST /_emulator/clock), never on a wait (nor on the wall: a
 * destination takes a minute to publish).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { refreshedUntilSettled, useBrowser, type VideoElement } from '../support/browser.js';
import { ROOT } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { http } from '../support/rest.js';
import { missing } from '../support/tools.js';

const T0 = Date.now();
// A destination publishes a minute after the one before it: of the emulator's clock, which the test moves, or of the
// wall (the emulator's jobs also run once that much real time has passed), which no step of a test takes.
const emu = useEmulator({ now: () => T0, publishMs: 60_000, processingMs: 1000 });

async function usedToday(): Promise<{ used: number; postsToday: number }> {
  const me = await emu.api.get('/me');
  return { used: me.body.limits.api_posts_per_day.used as number, postsToday: me.body.usage.posts_today as number };
}

async function draft(destinations: unknown[], caption = 'Launch day', mediaId = 'med_demo_sample'): Promise<Post> {
  const r = await emu.api.post('/posts', { media_id: mediaId, caption, destinations });
  expect(r.status).toBe(201);
  return r.body as Post;
}

const getPost = async (id: string): Promise<Post> => (await emu.api.get(`/posts/${id}`)).body as Post;

describe.skipIf(missing('chromium-headless-shell'))('the review page in chromium', { timeout: 90_000 }, () => {
  const b = useBrowser();

  it('a blocked draft: its review_url shows what blocks it; choosing the privacy there clears it; publishing there spends none of the daily allowance', async () => {
    const caption = 'Launch <script>document.title="owned"</script> & "more"';
    const d = await draft([{ destination_id: 'dst_demo_tiktok' }, { destination_id: 'dst_demo_youtube' }], caption);
    expect(d.issues.filter((i) => i.severity === 'error').map((i) => i.code)).toEqual(['missing_required_option']);
    const before = await usedToday();

    const { page } = await b.page();
    // The page's refresh timer runs when the test moves it (refreshedUntilSettled).
    await page.clock.install();
    await page.goto(d.review_url);
    // Text is shown as text: the caption's markup is neither run nor parsed.
    expect(await page.locator('#caption-text').textContent()).toBe(caption);
    expect(await page.title()).toBe(`Post ${d.id} · vidpub emulator`);
    expect(await page.locator('script').count()).toBe(1);
    // Each destination with its account, options and the creator to disclose.
    await page.getByText('Posting as the creator vidpub Demo (@vidpub.demo)').waitFor();
    await page.getByRole('heading', { name: '@vidpubdemo (youtube)' }).waitFor();
    expect(await page.getByRole('row', { name: 'Visibility (required) private' }).count()).toBe(1);
    await page.getByText('1 issue blocks publishing.').waitFor();
    await page.getByText(/choose "Who can view this video" \(privacy\)/).waitFor();

    await page.getByLabel('Who can view this video (required)').selectOption('SELF_ONLY');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();
    await page.getByText('Nothing blocks publishing.').waitFor();
    const saved = await getPost(d.id);
    expect(saved.status).toBe('draft');
    expect(saved.caption).toBe(caption);
    expect(saved.destinations[0]!.options.privacy).toBe('SELF_ONLY');
    expect(saved.issues.filter((i) => i.severity === 'error')).toEqual([]);

    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.getByText('Publishing started.').waitFor();
    expect((await getPost(d.id)).status).toBe('publishing');
    // The page refreshes itself while the post is in progress: the clock moves, the page follows.
    await emu.advance(150);
    await refreshedUntilSettled(page);
    expect(await page.getByText(/^Published at http/).count()).toBe(2);
    const done = await getPost(d.id);
    expect(done.status).toBe('completed');
    expect(done.destinations.map((x) => x.status)).toEqual(['published', 'published']);
    for (const x of done.destinations) expect(await page.getByRole('link', { name: x.url! }).count()).toBe(1);
    expect(await page.title()).not.toBe('owned');
    expect(await usedToday()).toEqual(before);
  });

  it('the form\'s choices are what "Publish now" and "Schedule" act on, unsaved; the privacy list reads as labels; "Publish at" takes --at\'s words', async () => {
    const d = await draft([{ destination_id: 'dst_demo_tiktok' }], 'Straight out');
    const { page } = await b.page();
    await page.goto(d.review_url);
    const privacy = page.getByLabel('Who can view this video (required)');
    expect(await privacy.locator('option').allTextContents()).toEqual([
      'Choose…',
      'Everyone (PUBLIC_TO_EVERYONE)',
      'Friends (followers you follow back) (MUTUAL_FOLLOW_FRIENDS)',
      'Followers (FOLLOWER_OF_CREATOR)',
      'Only me (SELF_ONLY)',
    ]);
    // Chosen, not saved: "Publish now" saves what the form holds, then publishes it.
    await privacy.selectOption('SELF_ONLY');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.getByText('Publishing started.').waitFor();
    const out = await getPost(d.id);
    expect(out.status).toBe('publishing');
    expect(out.destinations[0]!.options.privacy).toBe('SELF_ONLY');

    // "in 2h" on the emulator's clock, as --at reads it.
    const later = await draft([{ destination_id: 'dst_demo_youtube' }], 'Later on');
    await page.goto(later.review_url);
    await page.getByLabel(/Publish at/).fill('in 2h');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByText('Scheduled.').waitFor();
    const scheduled = await getPost(later.id);
    expect(scheduled.status).toBe('scheduled');
    const clock = Date.parse((await emu.api.get('/me')).headers.date as string);
    expect(Math.abs(Date.parse(scheduled.publish_at!) - (clock + 2 * 3600_000))).toBeLessThan(120_000);
    // Words it cannot read are the service's refusal, on the page.
    const third = await draft([{ destination_id: 'dst_demo_youtube' }], 'Never');
    await page.goto(third.review_url);
    await page.getByLabel(/Publish at/).fill('funday 25:00');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByRole('alert').getByText(/invalid time "funday 25:00"/).waitFor();
    expect((await getPost(third.id)).status).toBe('draft');
  });

  it('schedule and reschedule there spend nothing; the API sending that post counts it once', async () => {
    const d = await draft([{ destination_id: 'dst_demo_linkedin' }]);
    const before = await usedToday();
    const { page } = await b.page();
    await page.goto(d.review_url);
    const at = new Date(T0 + 2 * 3_600_000).toISOString();
    await page.getByLabel(/Publish at/).fill(at);
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByText('Scheduled.').waitFor();
    expect((await getPost(d.id)).publish_at).toBe(at);

    const later = new Date(T0 + 3 * 3_600_000).toISOString();
    await page.getByLabel(/Publish at/).fill(later);
    await page.getByRole('button', { name: 'Reschedule' }).click();
    await page.getByText('Scheduled.').waitFor();
    const moved = await getPost(d.id);
    expect([moved.status, moved.publish_at]).toEqual(['scheduled', later]);
    expect(await usedToday()).toEqual(before);

    // A time in the past is refused with the service's own message; nothing changes.
    await page.getByLabel(/Publish at/).fill('2001-01-01T00:00:00Z');
    await page.getByRole('button', { name: 'Reschedule' }).click();
    await page.getByRole('alert').getByText(/publish_at "2001-01-01T00:00:00Z" is in the past/).waitFor();
    expect((await getPost(d.id)).publish_at).toBe(later);

    // The API starts a post the web app scheduled: that counts, once.
    expect((await emu.api.post(`/posts/${d.id}/publish`, { publish_at: 'now' })).status).toBe(200);
    expect(await usedToday()).toEqual({ used: before.used + 1, postsToday: before.postsToday + 1 });
  });

  it('cancel one destination, then retry one that failed (a destination_fail fault): nothing spent', async () => {
    const d = await draft([
      { destination_id: 'dst_demo_tiktok', options: { privacy: 'SELF_ONLY' } },
      { destination_id: 'dst_demo_youtube' },
      { destination_id: 'dst_demo_linkedin' },
    ]);
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const before = await usedToday();
    const { page } = await b.page();
    // The page's refresh timer runs when the test moves it (refreshedUntilSettled).
    await page.clock.install();
    await page.goto(d.review_url);
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.getByText('Publishing started.').waitFor();

    await page.getByRole('button', { name: 'Cancel @vidpub.demo (tiktok)' }).click();
    await page.getByText('Cancelled.').waitFor();
    expect((await getPost(d.id)).destinations.map((x) => x.status)).toEqual(['cancelled', 'publishing', 'publishing']);

    await emu.advance(200);
    await refreshedUntilSettled(page);
    await page.getByText(/^Failed: linkedin refused the video for vidpub-demo/).waitFor();
    expect((await getPost(d.id)).destinations.map((x) => x.status)).toEqual(['cancelled', 'published', 'failed']);

    await emu.admin('DELETE', '/faults');
    await page.getByRole('button', { name: 'Retry vidpub-demo (linkedin)' }).click();
    await page.getByText('Sent again.').waitFor();
    expect((await getPost(d.id)).status).toBe('publishing');
    await emu.advance(90);
    await refreshedUntilSettled(page);
    const done = await getPost(d.id);
    expect([done.status, ...done.destinations.map((x) => x.status)]).toEqual(['completed', 'cancelled', 'published', 'published']);
    expect(done.destinations[2]!.failure).toBeNull();
    expect(await usedToday()).toEqual(before);

    // A destination that is published can be neither cancelled nor retried: said, not done.
    const token = await page.locator('input[name=csrf_token]').first().inputValue();
    const r = await page.evaluate(async ([url, csrf]) => {
      const res = await fetch(url!, { method: 'POST', body: new URLSearchParams({ csrf_token: csrf!, destination_id: 'dst_demo_youtube' }) });
      return { status: res.status, text: await res.text() };
    }, [`${emu.adminUrl}/app/posts/${d.id}/retry`, token]);
    expect(r.status).toBe(409);
    expect(r.text).toContain('only one that failed or was cancelled can be retried');
  });

  it('plays the uploaded video (readyState advances) and seeks in it with Range requests', async () => {
    const clip = readFileSync(join(ROOT, 'test', 'fixtures', 'clip.mp4'));
    const c = await emu.api.post('/media/uploads', { filename: 'clip.mp4', size_bytes: clip.length, content_type: 'video/mp4' });
    expect((await http('PUT', c.body.upload.url, { headers: c.body.upload.headers, body: clip })).status).toBe(200);
    await emu.api.post(`/media/${c.body.media.id}/complete`);
    await emu.advance(5);
    expect((await emu.api.get(`/media/${c.body.media.id}`)).body.status).toBe('ready');
    const d = await draft([{ destination_id: 'dst_demo_youtube' }], 'With a real video', c.body.media.id);

    const videoUrl = `${emu.adminUrl}/app/videos/${c.body.media.id}`;
    const part = await http('GET', videoUrl, { headers: { Range: 'bytes=100-199' } });
    expect([part.status, part.headers['content-range'], part.headers['accept-ranges']]).toEqual([206, `bytes 100-199/${clip.length}`, 'bytes']);
    expect(Buffer.from(part.text, 'latin1').length).toBe(100);
    expect((await http('GET', videoUrl, { headers: { Range: `bytes=${clip.length}-` } })).status).toBe(416);

    const { page } = await b.page();
    const ranges: string[] = [];
    page.on('request', (r) => {
      if (r.url() === videoUrl) ranges.push(r.headers().range ?? '');
    });
    await page.goto(d.review_url);
    const video = page.locator('video#player');
    await video.waitFor();
    const states = await video.evaluate(async (v: VideoElement) => {
      const seen = [v.readyState];
      v.muted = true;
      await v.play();
      await new Promise((r) => (v.readyState >= 2 ? r(null) : v.addEventListener('canplay', r, { once: true })));
      seen.push(v.readyState);
      v.pause();
      v.currentTime = 1;
      await new Promise((r) => v.addEventListener('seeked', r, { once: true }));
      seen.push(v.readyState);
      return { seen, duration: v.duration, error: v.error?.code ?? null };
    });
    expect(states.error).toBeNull();
    expect(states.seen[1]).toBeGreaterThanOrEqual(2);
    expect(states.seen[2]).toBeGreaterThanOrEqual(1);
    expect(states.duration).toBeCloseTo(2, 0);
    expect(ranges.some((r) => r.startsWith('bytes='))).toBe(true);
  });
});

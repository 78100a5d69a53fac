/**
 * The web app meets the CLI, in Debian's headless chromium: a draft made on the
 * workspace page and published with `vidpub publish` counts toward the daily
 * allowance; the blocked-draft hint ("Fix it at <review_url>, then run: vidpub
 * publish ID") works end to end with the real bin (dist/, built when stale), as a
 * person would run it; `vidpub open` gives the page. The other commands run
 * in-process (runCli: the same main() over real HTTP to the emulator), where the
 * process is not what is tested. Also the pages' accessibility (axe-core,
 * the keyboard) and the screenshots docs/emulator.md shows (rewritten only with
 * VIDPUB_UPDATE_SCREENSHOTS=1; otherwise checked against the committed ones' sizes).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { keepScreenshot, refreshedUntilSettled, seriousViolations, useBrowser, type PageGlobals, type VideoElement } from '../support/browser.js';
import { BIN, ROOT, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { http } from '../support/rest.js';
import { missing } from '../support/tools.js';
import { waitFor } from '../support/poll.js';

const T0 = Date.now();
// A destination publishes a minute after the one before it: of the emulator's clock, which the test moves, or of the
// wall (the emulator's jobs also run once that much real time has passed), which no step of a test takes.
const emu = useEmulator({ now: () => T0, publishMs: 60_000, processingMs: 1000 });

/** The built vidpub against the test's emulator, with a home of its own. */
function vidpub(args: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-webapp-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VIDPUB_')) env[k] = v;
  return runAsync(process.execPath, [BIN, ...args], {
    env: { ...env, ...emu.env(), HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), XDG_STATE_HOME: join(home, 'state'), NO_COLOR: '1' },
    timeoutMs: 60_000,
  });
}

/** vidpub in-process against the test's emulator (a config dir of its own, no browser to open). */
const inProcess = (args: string[]) => runCli(args, { env: { ...emu.env(), NO_COLOR: '1' } });

const usedToday = async (): Promise<number> => (await emu.api.get('/me')).body.limits.api_posts_per_day.used as number;
const getPost = async (id: string): Promise<Post> => (await emu.api.get(`/posts/${id}`)).body as Post;

/** Uploads test/fixtures/clip.mp4 (a real 2 s H.264 MP4) and moves the clock until it is ready: its id. */
async function uploadClip(): Promise<string> {
  const clip = readFileSync(join(ROOT, 'test', 'fixtures', 'clip.mp4'));
  const c = await emu.api.post('/media/uploads', { filename: 'clip.mp4', size_bytes: clip.length, content_type: 'video/mp4' });
  expect((await http('PUT', c.body.upload.url, { headers: c.body.upload.headers, body: clip })).status).toBe(200);
  await emu.api.post(`/media/${c.body.media.id}/complete`);
  await emu.advance(5);
  return c.body.media.id as string;
}

describe.skipIf(missing('chromium-headless-shell'))('the web app and the CLI, in chromium', { timeout: 90_000 }, () => {
  const b = useBrowser();
  beforeAll(() => ensureBuilt(), 120_000);

  it('a draft made on the workspace page, then published with `vidpub publish`: the daily count goes up by one', async () => {
    const before = await usedToday();
    const { page } = await b.page();
    await page.goto(`${emu.adminUrl}/app`);
    const demo = page.getByRole('region', { name: 'Demo', exact: true });
    await demo.getByLabel('Video', { exact: true }).selectOption('med_demo_sample');
    await demo.getByLabel('Caption').fill('Made in the web app');
    await demo.getByLabel('@vidpubdemo (youtube)').check();
    await demo.getByRole('button', { name: 'Make a draft' }).click();
    await page.getByText('Draft made.').waitFor();
    const id = /\/_emulator\/review\/(post_[0-9a-f]+)\?done=draft$/.exec(page.url())?.[1];
    expect(id).toBeDefined();
    const made = await getPost(id!);
    expect([made.status, made.caption, made.media_id, made.destinations.map((d) => d.destination_id)]).toEqual(['draft', 'Made in the web app', 'med_demo_sample', ['dst_demo_youtube']]);
    expect(await usedToday()).toBe(before);

    const r = await inProcess(['publish', id!, '--no-wait']);
    expect([r.code, r.stderr]).toEqual([0, expect.stringContaining(`Follow it with: vidpub status ${id} --wait`)]);
    expect((await getPost(id!)).status).toBe('publishing');
    expect(await usedToday()).toBe(before + 1);
    // The workspace page shows the count as GET /v1/me does.
    await page.goto(`${emu.adminUrl}/app`);
    expect(await page.locator('#ws_demo-used').textContent()).toBe(String(before + 1));
  });

  it('making a draft without a destination is refused with the service\'s message; nothing is made', async () => {
    const { page } = await b.page();
    await page.goto(`${emu.adminUrl}/app`);
    const demo = page.getByRole('region', { name: 'Demo', exact: true });
    await demo.getByRole('button', { name: 'Make a draft' }).click();
    await page.getByRole('alert').getByText('destinations must have at least one entry.').waitFor();
    expect((await emu.api.get('/me')).body.usage.post_count).toBe(0);
  });

  it('the blocked-draft hint end to end: vidpub publish says where to fix it; fixed there, the same command publishes (count +1)', async () => {
    const d = (await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'Blocked', destinations: [{ destination_id: 'dst_demo_tiktok' }] })).body as Post;
    const before = await usedToday();
    const blocked = await vidpub(['publish', d.id]);
    expect(blocked.status).toBe(8);
    const hint = /Fix it at (\S+), then run: (vidpub publish \S+)/.exec(blocked.stderr);
    expect(hint?.slice(1)).toEqual([d.review_url, `vidpub publish ${d.id}`]);

    const { page } = await b.page();
    await page.goto(hint![1]!);
    await page.getByLabel('Who can view this video (required)').selectOption('MUTUAL_FOLLOW_FRIENDS');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Nothing blocks publishing.').waitFor();

    // The command of the hint, as printed; it follows the post until the clock moves it on.
    const run = vidpub(hint![2]!.split(' ').slice(1));
    await waitFor(() => getPost(d.id), (p) => p.status === 'publishing', 30_000);
    await emu.advance(90);
    const r = await run;
    expect([r.status, r.stderr]).toEqual([0, expect.stringContaining('published')]);
    expect((await getPost(d.id)).status).toBe('completed');
    expect(await usedToday()).toBe(before + 1);
  });

  it('vidpub open ID prints the review page where no browser can open; the page shows that post', async () => {
    const d = (await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'Open me', destinations: [{ destination_id: 'dst_demo_linkedin' }] })).body as Post;
    const r = await inProcess(['open', d.id, '--no-input']);
    expect([r.code, r.stdout]).toEqual([0, `${d.review_url}\n`]);
    const { page } = await b.page();
    const res = await page.goto(r.stdout.trim());
    expect(res?.status()).toBe(200);
    await page.getByRole('heading', { name: `Post ${d.id}` }).waitFor();
  });

  it('usable by keyboard: Tab reaches the privacy choice and Save, Enter saves', async () => {
    const d = (await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'Keys', destinations: [{ destination_id: 'dst_demo_tiktok' }] })).body as Post;
    const { page } = await b.page();
    await page.goto(d.review_url);
    const focusedId = () => page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id ?? '');
    let tabs = 0;
    while ((await focusedId()) !== 'opt-dst_demo_tiktok-privacy' && tabs < 40) {
      await page.keyboard.press('Tab');
      tabs++;
    }
    expect(await focusedId()).toBe('opt-dst_demo_tiktok-privacy');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    while ((await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.textContent ?? '')) !== 'Save draft' && tabs < 80) {
      await page.keyboard.press('Tab');
      tabs++;
    }
    await page.keyboard.press('Enter');
    await page.getByText('Draft saved.').waitFor();
    expect((await getPost(d.id)).destinations[0]!.options.privacy).toBe('MUTUAL_FOLLOW_FRIENDS');
  });

  it("both pages under a CSP without 'unsafe-inline': their style and script run (allowed by hash), nothing is refused; at 390 px nothing is wider than the screen", async () => {
    const caption = 'Launch day: a caption long enough to wrap on a phone, with https://example.com/a/long/path/that/has/no/spaces/to/break/at';
    const d = (await emu.api.post('/posts', { media_id: 'med_demo_sample', caption, publish_at: 'now', destinations: [{ destination_id: 'dst_demo_linkedin' }, { destination_id: 'dst_demo_youtube' }] })).body as Post;
    expect(d.status).toBe('publishing');
    type Box = { scrollWidth: number; clientWidth: number; getAttribute(name: string): string | null };
    type Window = {
      refused: string[];
      document: { scrollingElement: Box; body: unknown; querySelectorAll(s: string): Iterable<Box>; addEventListener(t: string, l: (e: { violatedDirective: string }) => void): void };
      getComputedStyle(e: unknown): { marginTop: string };
    };
    const { page } = await b.page({ width: 390, height: 800 });
    // The review page's refresh timer runs when the test moves it (refreshedUntilSettled).
    await page.clock.install();
    // What the CSP refuses, as the browser reports it (an init script runs in each page loaded, whatever its CSP says;
    // the list starts empty with each page).
    await page.addInitScript(() => {
      const w = globalThis as unknown as Window;
      w.refused = [];
      w.document.addEventListener('securitypolicyviolation', (e) => w.refused.push(e.violatedDirective));
    });
    for (const url of [d.review_url, `${emu.adminUrl}/app`]) {
      const res = await page.goto(url);
      const csp = res!.headers()['content-security-policy']!;
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toMatch(/(^|; )script-src 'sha256-[A-Za-z0-9+/]{43}='(;|$)/);
      expect(csp).toMatch(/(^|; )style-src 'sha256-[A-Za-z0-9+/]{43}='(;|$)/);
      // The style applies (a browser's own margin of the body is 8px), and nothing is wider than the screen: not the
      // page, nor a table in its box (which would scroll sideways).
      expect(await page.evaluate(() => (globalThis as unknown as Window).getComputedStyle((globalThis as unknown as Window).document.body).marginTop)).toBe('0px');
      expect(await page.evaluate(() => (globalThis as unknown as Window).document.scrollingElement.scrollWidth)).toBeLessThanOrEqual(390);
      const wide = await page.evaluate(() => [...(globalThis as unknown as Window).document.querySelectorAll('.scroll')].filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.getAttribute('aria-label')));
      expect(wide).toEqual([]);
      if (url === d.review_url) {
        // The script runs: the page follows the post while the clock moves it on.
        expect(await page.locator('#main[data-poll="1"]').count()).toBe(1);
        await emu.advance(150);
        await refreshedUntilSettled(page);
        expect(await page.getByText(/^Published at http/).count()).toBe(2);
      } else {
        // Each record a block of lines, each value after its column's name.
        await page.getByRole('region', { name: 'Posts of Demo', exact: true }).getByText(d.id).waitFor();
        expect(await page.locator('td[data-label="Caption"]', { hasText: 'Launch day: a caption' }).count()).toBe(1);
      }
      expect(await page.evaluate(() => (globalThis as unknown as Window).refused)).toEqual([]);
    }
  });

  it('axe-core finds no serious or critical violation on the review page and the workspace page; the screenshots of the manual', async () => {
    const media = await uploadClip();
    const d = (await emu.api.post('/posts', {
      media_id: media,
      caption: 'Launch day: the new clip, 2 seconds of colour bars',
      destinations: [{ destination_id: 'dst_demo_tiktok' }, { destination_id: 'dst_demo_youtube' }],
    })).body as Post;
    const { page } = await b.page();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(d.review_url);
      await page.locator('video#player').evaluate(async (v: VideoElement) => {
        v.currentTime = 1;
        await new Promise((r) => v.addEventListener('seeked', r, { once: true }));
        if (v.readyState < 2) await new Promise((r) => v.addEventListener('canplay', r, { once: true }));
      });
      await page.mouse.move(0, 0); // no control bar hovered
      expect(await seriousViolations(page)).toEqual([]);
      const review = keepScreenshot(`webapp-review-${width}.png`, await page.screenshot({ fullPage: width === 1280 }), width === 1280);
      expect(review.taken.width).toBe(width);
      expect(review.kept).toEqual(review.taken);
      await page.goto(`${emu.adminUrl}/app`);
      expect(await seriousViolations(page)).toEqual([]);
      const workspaces = keepScreenshot(`webapp-workspaces-${width}.png`, await page.screenshot(), false);
      expect(workspaces.taken).toEqual({ width, height: 900 });
      expect(workspaces.kept).toEqual(workspaces.taken);
    }
  });
});

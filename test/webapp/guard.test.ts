/**
 * The web app is safe as a local web app, tested in Debian's chromium and
 * over raw HTTP: an action posted by a page of another origin is refused,
 * and so is one without the session's token or with another session's; a
 * DNS-rebinding Host name gets nothing (not even the page with its token);
 * the pages load nothing from elsewhere; and the axe-core check used by the
 * other tests does report a page that breaks its rules.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { seriousViolations, useBrowser } from '../support/browser.js';
import { useEmulator } from '../support/emulator.js';
import { missing } from '../support/tools.js';

const T0 = Date.now();
const emu = useEmulator({ now: () => T0, publishMs: 1000, processingMs: 1000 });

const usedToday = async (): Promise<number> => (await emu.api.get('/me')).body.limits.api_posts_per_day.used as number;
const getPost = async (id: string): Promise<Post> => (await emu.api.get(`/posts/${id}`)).body as Post;

/** A draft nothing blocks (LinkedIn has no required option). */
async function readyDraft(): Promise<Post> {
  return (await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'Target', destinations: [{ destination_id: 'dst_demo_linkedin' }] })).body as Post;
}

/** A raw HTTP request to the emulator, with the headers exactly as given (Host included). */
function raw(method: string, path: string, headers: Record<string, string>, body = ''): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: emu.port, method, path, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Another site on this machine (another port: another origin) serving `html`. */
let site: Server;
let sitePage = '';
beforeAll(async () => {
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(sitePage));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

describe.skipIf(missing('chromium-headless-shell'))('the web app refuses what its own pages did not send', { timeout: 90_000 }, () => {
  const b = useBrowser();

  it('an action posted by a page of another origin is refused, even with the session cookie and a valid token', async () => {
    const d = await readyDraft();
    const before = await usedToday();
    const { page } = await b.page();
    await page.goto(d.review_url);
    const token = await page.locator('input[name=csrf_token]').first().inputValue();
    const action = `${emu.adminUrl}/app/posts/${d.id}/publish`;
    const port = (site.address() as AddressInfo).port;
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      sitePage = `<form id="f" method="post" action="${action}"><input name="csrf_token" value="${token}"><input name="publish_at" value="now"></form><script>document.getElementById('f').submit()</script>`;
      const answer = page.waitForResponse((r) => r.url() === action);
      await page.goto(`${origin}/`);
      const res = await answer;
      expect([origin, res.status()]).toEqual([origin, 403]);
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toBe(`The action came from a page of ${origin}, not of the web app (${new URL(emu.adminUrl).origin}): refused.`);
    }
    expect((await getPost(d.id)).status).toBe('draft');
    expect(await usedToday()).toBe(before);
  });

  it('an action from its own page without the token, or with another session\'s, is refused; with it, done', async () => {
    const d = await readyDraft();
    const { page } = await b.page();
    await page.goto(d.review_url);
    const action = `${emu.adminUrl}/app/posts/${d.id}/publish`;
    const post = (fields: Record<string, string>) => page.evaluate(async ([url, f]) => {
      const res = await fetch(url!, { method: 'POST', body: new URLSearchParams(f as Record<string, string>), redirect: 'manual' });
      return { status: res.status, text: res.type === 'opaqueredirect' ? 'redirect' : await res.text() };
    }, [action, fields] as const);

    const none = await post({ publish_at: 'now' });
    expect([none.status, none.text]).toEqual([403, expect.stringContaining('The action carried no session token')]);
    // Another browser's session: its token does not match this one's cookie.
    const other = await b.page();
    await other.page.goto(d.review_url);
    const foreign = await other.page.locator('input[name=csrf_token]').first().inputValue();
    const mine = await page.locator('input[name=csrf_token]').first().inputValue();
    expect(foreign).not.toBe(mine);
    const wrong = await post({ csrf_token: foreign, publish_at: 'now' });
    expect([wrong.status, wrong.text]).toEqual([403, expect.stringContaining('session token does not match this browser&#39;s session')]);
    expect((await getPost(d.id)).status).toBe('draft');

    const right = await post({ csrf_token: mine, publish_at: 'now' });
    expect([right.status, right.text]).toEqual([0, 'redirect']);
    expect((await getPost(d.id)).status).toBe('publishing');
  });

  it('a page of another origin trying the test controls (reset, faults, clock) changes nothing', async () => {
    const d = await readyDraft();
    await emu.admin('POST', '/faults', { method: 'GET', path: '/v1/never', action: 'status', status: 503 });
    const state = async () => {
      const s = (await emu.admin('GET', '/state')) as { offset_sec: number; workspaces: { post_ids: string[] }[] };
      return { clock: s.offset_sec, posts: s.workspaces.flatMap((w) => w.post_ids), faults: await emu.admin('GET', '/faults') };
    };
    const before = await state();
    expect(before.posts).toContain(d.id);
    const { page } = await b.page();
    const reset = `${emu.adminUrl}/reset`;
    // A form posted to reset (what a page may send anywhere), then fetches that need no permission (no-cors: a
    // simple method and content type; a DELETE or a JSON body would ask first, and get no CORS answer).
    sitePage = `<form id="f" method="post" action="${reset}" enctype="text/plain"><input name="x" value="y"></form><script>document.getElementById('f').submit()</script>`;
    const answer = page.waitForResponse((r) => r.url() === reset);
    await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
    expect((await answer).status()).toBe(403);
    sitePage = '<p>Nothing to see here.</p>';
    await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
    expect(new URL(page.url()).host).toBe(`localhost:${(site.address() as AddressInfo).port}`);
    const settled = await page.evaluate(async (admin) => {
      const tries: [string, RequestInit][] = [
        [`${admin}/reset`, { method: 'POST' }],
        [`${admin}/settings`, { method: 'POST', body: '{"publish_ms":1}', headers: { 'content-type': 'text/plain' } }],
        [`${admin}/clock`, { method: 'POST', body: '{"advance_sec":86400}', headers: { 'content-type': 'text/plain' } }],
        [`${admin}/faults`, { method: 'POST', body: '{"path":"/v1/me","action":"hang"}' }],
      ];
      const results = await Promise.allSettled(tries.map(([url, init]) => fetch(url, { ...init, mode: 'no-cors' })));
      return results.map((r) => r.status);
    }, emu.adminUrl);
    expect(settled).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(await state()).toEqual(before);
  });

  it('the pages load nothing from elsewhere, and say so to the browser (Content-Security-Policy)', async () => {
    const d = await readyDraft();
    const { page } = await b.page();
    const origins = new Set<string>();
    page.on('request', (r) => origins.add(new URL(r.url()).origin));
    const res = await page.goto(d.review_url);
    await page.goto(`${emu.adminUrl}/app`);
    expect([...origins]).toEqual([new URL(emu.adminUrl).origin]);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(res?.headers()['x-frame-options']).toBe('DENY');
  });

  it('the axe-core check reports a page that breaks its rules (it is not a check that cannot fail)', async () => {
    const { page } = await b.page();
    await page.setContent('<!doctype html><html><body><input type="text"><img src="data:,"></body></html>');
    const ids = (await seriousViolations(page)).map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['label', 'image-alt']));
  });
});

describe('a DNS-rebinding Host name gets nothing', () => {
  it('GET of a page and POST of an action naming another host are refused with 403; its own addresses are answered', async () => {
    const d = await readyDraft();
    const path = `/_emulator/review/${d.id}`;
    for (const host of [`rebind.example:${emu.port}`, `attacker.test:${emu.port}`]) {
      const page = await raw('GET', path, { host });
      expect([host, page.status]).toEqual([host, 403]);
      expect(page.text).toContain(`this request named the host &quot;${host}&quot;`);
      expect(page.text).not.toContain('csrf_token');
      const act = await raw('POST', `/_emulator/app/posts/${d.id}/publish`, {
        host, origin: `http://${host}`, 'content-type': 'application/x-www-form-urlencoded',
      }, 'publish_at=now');
      expect([host, act.status]).toEqual([host, 403]);
    }
    for (const host of [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`, `[::1]:${emu.port}`]) {
      expect([host, (await raw('GET', path, { host })).status]).toEqual([host, 200]);
    }
    expect((await getPost(d.id)).status).toBe('draft');
  });

  it('the web app adds no route under /v1', async () => {
    for (const path of ['/v1/app', '/v1/review/x', '/v1/posts/x/cancel', '/v1/posts/x/retry', '/v1/posts/x/edit']) {
      const r = await raw('POST', path, { host: `127.0.0.1:${emu.port}`, authorization: `Bearer ${emu.key()}` });
      expect([path, r.status]).toEqual([path, 404]);
    }
  });
});

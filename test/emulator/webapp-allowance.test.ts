/**
 * The web app's actions over plain HTTP (form POSTs with the session's cookie
 * and token, as a browser sends them; test/webapp/ drives them in chromium):
 * what they do to the daily allowance (contract §8 rule 4), through MCP as
 * through REST, and the web app's refusals of a form that is not its own.
 */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { useEmulator } from '../support/emulator.js';
import { connect, ok } from '../support/mcp.js';
import { http } from '../support/rest.js';

const T0 = Date.now();
const emu = useEmulator({ now: () => T0, publishMs: 1000, processingMs: 1000 });

const used = async (): Promise<number> => (await emu.api.get('/me')).body.limits.api_posts_per_day.used as number;

/** A browser's session: the cookie the pages set and the token of their forms. */
async function session(): Promise<{ cookie: string; token: string }> {
  const r = await http('GET', `${emu.adminUrl}/app`);
  expect(r.status).toBe(200);
  const cookie = r.headers['set-cookie']!.split(';')[0]!;
  const token = /name="csrf_token" value="([0-9a-f]{64})"/.exec(r.text)![1]!;
  return { cookie, token };
}

async function form(path: string, fields: Record<string, string | string[]>, s: { cookie: string; token: string }) {
  const body = new URLSearchParams();
  body.append('csrf_token', s.token);
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) body.append(k, x);
  return http('POST', `${emu.adminUrl}/app${path}`, {
    headers: { cookie: s.cookie, origin: new URL(emu.adminUrl).origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  });
}

describe("the web app's actions and the daily allowance", () => {
  it('a draft made in the web app, published through MCP, counts once; its later reschedule and retry there do not', async () => {
    const s = await session();
    const made = await form('/drafts', { workspace_id: 'ws_demo', media_id: 'med_demo_sample', caption: 'From the web app', destination_id: ['dst_demo_youtube'] }, s);
    expect(made.status).toBe(303);
    const id = /\/_emulator\/review\/(post_[0-9a-f]+)\?done=draft$/.exec(made.headers.location!)![1]!;
    const before = await used();
    const client = await connect(emu);
    try {
      const at = new Date(T0 + 3_600_000).toISOString();
      const p = await ok(client, 'publish_post', { post_id: id, publish_at: at });
      expect(p.status).toBe('scheduled');
    } finally {
      await client.close();
    }
    expect(await used()).toBe(before + 1);
    expect((await form(`/posts/${id}/publish`, { publish_at: new Date(T0 + 7_200_000).toISOString() }, s)).status).toBe(303);
    expect((await form(`/posts/${id}/publish`, { publish_at: 'now' }, s)).status).toBe(303);
    expect(((await emu.api.get(`/posts/${id}`)).body as Post).status).toBe('publishing');
    expect(await used()).toBe(before + 1);
  });

  it('an edit is checked as the API checks a post: a value not in the list is an issue that blocks, a value of the wrong type is refused whole', async () => {
    const s = await session();
    const d = (await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_tiktok' }] })).body as Post;
    const wrongType = await form(`/posts/${d.id}/edit`, { caption: 'changed', 'option.dst_demo_tiktok.privacy': 'SELF_ONLY', 'option.dst_demo_tiktok.allow_comments': 'maybe' }, s);
    expect([wrongType.status, wrongType.text]).toEqual([400, expect.stringContaining('(allow_comments) must be true or false; got &quot;maybe&quot;.')]);
    const unchanged = (await emu.api.get(`/posts/${d.id}`)).body as Post;
    expect([unchanged.caption, unchanged.destinations[0]!.options.privacy]).toEqual(['x', undefined]);

    expect((await form(`/posts/${d.id}/edit`, { caption: 'changed', 'option.dst_demo_tiktok.privacy': 'EVERYONE_EVER' }, s)).status).toBe(303);
    const after = (await emu.api.get(`/posts/${d.id}`)).body as Post;
    expect([after.caption, after.destinations[0]!.options.privacy]).toEqual(['changed', 'EVERYONE_EVER']);
    expect(after.issues.filter((i) => i.severity === 'error').map((i) => i.code)).toEqual(['option_value_not_allowed']);
    const publish = await form(`/posts/${d.id}/publish`, { publish_at: 'now' }, s);
    expect([publish.status, publish.text]).toEqual([409, expect.stringContaining('The post cannot be published while an issue of severity error remains')]);
  });

  it('refuses an action with no Origin nor Referer, one of another session, and one that is not a form', async () => {
    const s = await session();
    const d = (await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_linkedin' }] })).body as Post;
    const url = `${emu.adminUrl}/app/posts/${d.id}/publish`;
    const bare = await http('POST', url, { headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf_token=${s.token}&publish_at=now` });
    expect([bare.status, bare.text]).toEqual([403, expect.stringContaining('came without an Origin or Referer header')]);
    const other = await session();
    expect((await form(`/posts/${d.id}/publish`, { publish_at: 'now' }, { cookie: other.cookie, token: s.token })).status).toBe(403);
    const json = await http('POST', url, { headers: { cookie: s.cookie, origin: new URL(emu.adminUrl).origin, 'content-type': 'application/json' }, body: JSON.stringify({ csrf_token: s.token, publish_at: 'now' }) });
    expect([json.status, json.text]).toEqual([403, expect.stringContaining('carried no session token')]);
    const unknown = await form(`/posts/${d.id}/constructor`, {}, s);
    expect([unknown.status, unknown.text]).toEqual([400, expect.stringContaining('No action &quot;constructor&quot;.')]);
    expect(((await emu.api.get(`/posts/${d.id}`)).body as Post).status).toBe('draft');
  });
});

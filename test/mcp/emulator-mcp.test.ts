/**
 * The emulator's MCP endpoint through the official SDK client (Streamable
 * HTTP): the tools and their schemas, every tool called, the same key
 * refusals as REST, and the per-minute counters, idempotency store and daily
 * post allowance shared with REST.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { useEmulator } from '../support/emulator.js';
import { connect, fails, mcpUrl, ok } from '../support/mcp.js';
import { waitFor } from '../support/poll.js';
import type { Json, Res } from '../support/rest.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const SERVICE_TOOLS = ['get_me', 'list_destinations', 'get_destination_options', 'import_media', 'get_media', 'create_post', 'publish_post', 'get_post'];

let clients: Client[] = [];
async function client(key?: string | null): Promise<Client> {
  const c = await connect(emu, key);
  clients.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const draft = (media = 'med_demo_sample', dest = 'dst_demo_youtube', extra: Record<string, unknown> = {}) => ({
  media_id: media,
  caption: 'from mcp',
  destinations: [{ destination_id: dest }],
  ...extra,
});

describe('tools', () => {
  it('lists the 8 service tools, each with a JSON Schema of its input, descriptions and read-only hints', async () => {
    const c = await client();
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...SERVICE_TOOLS].sort());
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(40);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.create_post!.inputSchema.required).toEqual(['media_id', 'destinations']);
    expect(Object.keys(byName.create_post!.inputSchema.properties!)).toEqual(['media_id', 'caption', 'destinations', 'publish_at', 'idempotency_key']);
    expect(byName.publish_post!.inputSchema.required).toEqual(['post_id', 'publish_at']);
    expect(byName.import_media!.inputSchema.required).toEqual(['url']);
    expect(byName.get_destination_options!.inputSchema.required).toEqual(['destination_id']);
    expect(byName.get_me!.annotations?.readOnlyHint).toBe(true);
    expect(byName.create_post!.annotations?.readOnlyHint).toBe(false);
  });

  it('calls every tool: import, wait until ready, draft, publish, post now, read; results are the records REST returns', async () => {
    const c = await client();
    const me = await ok(c, 'get_me');
    expect(me.workspace).toEqual({ id: 'ws_demo', name: 'Demo' });
    expect(me.limits.requests_per_minute.scope).toBe('key');

    const dests = await ok(c, 'list_destinations');
    expect(dests.data.map((d: Json) => d.id)).toContain('dst_demo_youtube');
    expect(dests).toEqual((await emu.api.call('GET', '/destinations')).body);

    const options = await ok(c, 'get_destination_options', { destination_id: 'dst_demo_tiktok' });
    expect(options.creator.handle).toBe('@vidpub.demo');
    expect(options.options.find((o: Json) => o.key === 'privacy')).toMatchObject({ required: true, default: null });

    const imported = await ok(c, 'import_media', { url: 'https://cdn.example.com/videos/launch.mp4', filename: 'launch.mp4' });
    expect(imported).toMatchObject({ status: 'uploading', source: 'import', filename: 'launch.mp4' });
    const ready = await waitFor(() => ok(c, 'get_media', { media_id: imported.id }), (m) => m.status === 'ready');
    expect(ready.duration_sec).toBe(30);

    const d = await ok(c, 'create_post', draft(imported.id, 'dst_demo_tiktok', { destinations: [{ destination_id: 'dst_demo_tiktok', options: { privacy: 'SELF_ONLY' } }] }));
    expect(d).toMatchObject({ status: 'draft', media_id: imported.id, issues: [] });
    expect(d.destinations[0].options.privacy).toBe('SELF_ONLY');
    const published = await ok(c, 'publish_post', { post_id: d.id, publish_at: 'now' });
    expect(published).toMatchObject({ id: d.id, status: 'publishing' });

    const now = await ok(c, 'create_post', draft(imported.id, 'dst_demo_youtube', { publish_at: 'now' }));
    expect(now.status).toBe('publishing');
    const done = await waitFor(() => ok(c, 'get_post', { post_id: now.id }), (p) => p.status === 'completed');
    expect(done.destinations[0]).toMatchObject({ destination_id: 'dst_demo_youtube', status: 'published' });
    expect(done).toEqual((await emu.api.call('GET', `/posts/${now.id}`)).body);
    expect((await ok(c, 'get_me')).limits.api_posts_per_day.used).toBe(2);
  });

  it('errors carry the code, the message and the HTTP status; a blocked post lists its issues', async () => {
    const c = await client();
    const missing = await fails(c, 'get_post', { post_id: 'post_nope' });
    expect(missing).toMatchObject({ type: 'not_found', code: 'not_found', status: 404 });
    expect(missing.message).toMatch(/No post with id "post_nope"/);

    const blocked = await fails(c, 'create_post', draft('med_demo_sample', 'dst_demo_tiktok', { publish_at: 'now' }));
    expect(blocked).toMatchObject({ code: 'post_has_blocking_issues', status: 409 });
    expect(blocked.issues.map((i: Json) => i.code)).toContain('missing_required_option');

    const badTime = await fails(c, 'create_post', draft('med_demo_sample', 'dst_demo_youtube', { publish_at: 'tomorrow-ish' }));
    expect(badTime).toMatchObject({ code: 'invalid_publish_at', status: 400, param: 'publish_at' });

    const badLink = await fails(c, 'import_media', { url: 'https://www.youtube.com/watch?v=abc' });
    expect(badLink).toMatchObject({ code: 'invalid_url', status: 400 });
    expect(badLink.message).toMatch(/not the video file/);
  });

  it('arguments that do not match the schema, or an unknown tool: a tool error of the usual shape, before the service is called', async () => {
    const c = await client();
    const err = await fails(c, 'create_post', { media_id: 'med_demo_sample', destinations: [] });
    expect(err).toEqual({ code: 'invalid_arguments', message: 'Invalid arguments for tool create_post: Too small: expected array to have >=1 items at destinations' });
    expect(await fails(c, 'delete_post', { post_id: 'post_x' })).toEqual({ code: 'unknown_tool', message: 'Tool delete_post not found' });
    expect((await emu.requests()).filter((q) => q.path === '/mcp').length).toBeGreaterThan(0);
    expect((await emu.api.call('GET', '/me')).body.limits.requests_per_minute.write.used).toBe(0);
  });

  it('a read-only key can read but every write tool is refused with read_only_key', async () => {
    const c = await client(emu.key('Demo', 'read'));
    expect((await ok(c, 'get_me')).key.access).toBe('read');
    const refused = await fails(c, 'create_post', draft());
    expect(refused).toMatchObject({ type: 'permission_error', code: 'read_only_key', status: 403 });
  });

  it('idempotency_key: a repeated call returns the first post; REST with the same key and body replays it too', async () => {
    const c = await client();
    const posts = async () => (await emu.api.call('GET', '/me')).body.usage.post_count as number;
    const before = await posts();
    const first = await ok(c, 'create_post', { ...draft(), idempotency_key: 'mcp-once' });
    const again = await ok(c, 'create_post', { ...draft(), idempotency_key: 'mcp-once' });
    expect(again.id).toBe(first.id);
    const viaRest = await emu.api.call('POST', '/posts', { body: draft(), idem: 'mcp-once' });
    expect(viaRest.status).toBe(201);
    expect(viaRest.headers['idempotent-replayed']).toBe('true');
    expect(viaRest.body.id).toBe(first.id);
    const reused = await fails(c, 'create_post', { ...draft('med_demo_long'), idempotency_key: 'mcp-once' });
    expect(reused.code).toBe('idempotency_key_reused');
    expect(await posts()).toBe(before + 1);
  });
});

describe('authentication: the same refusals as REST, before any MCP handling', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
  const post = (headers: Record<string, string>, body: string = JSON.stringify(initialize)) =>
    fetch(mcpUrl(emu), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });

  it('no key: HTTP 401 missing_key with the REST error body; the SDK client cannot connect', async () => {
    const r = await post({});
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await r.json()).toEqual((await emu.api.call('GET', '/me', { key: null })).body);
    await expect(connect(emu, null)).rejects.toThrow(/401|missing_key|No API key/);
  });

  it('an unknown key: 401 invalid_key; a revoked key: 401 revoked_key; a Free-plan key: 403 plan_without_api_access', async () => {
    const unknown = await post({ authorization: 'Bearer vp_live_not_a_real_key_0000' });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as Json).error.code).toBe('invalid_key');
    const revoked = await post({ authorization: 'Bearer vp_live_demo_revoked_X2v6Bn4Ts8Hj' });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as Json).error.code).toBe('revoked_key');
    const free = await post({ authorization: `Bearer ${emu.key('Free', 'none')}` });
    expect(free.status).toBe(403);
    expect(((await free.json()) as Json).error.code).toBe('plan_without_api_access');
    await expect(connect(emu, emu.key('Free', 'none'))).rejects.toThrow(/403|plan_without_api_access|Free plan/);
  });

  it('a body that is not JSON: 400 JSON-RPC parse error; GET and DELETE: 405 (stateless endpoint)', async () => {
    const bad = await post({ authorization: `Bearer ${emu.key()}` }, '{oops');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toMatchObject({ code: -32700, message: expect.stringMatching(/Parse error/) });
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(mcpUrl(emu), { method, headers: { authorization: `Bearer ${emu.key()}`, accept: 'text/event-stream' } });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
    }
    const noKey = await fetch(mcpUrl(emu), { method: 'GET' });
    expect(noKey.status).toBe(401);
  });
});

describe('params that do not fit a request', () => {
  const send = (message: unknown) =>
    fetch(mcpUrl(emu), {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key()}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(message),
    });

  it('are answered -32602 naming each bad field (as vidpub mcp does), not -32603 with the validator’s dump', async () => {
    const noParams = await send({ jsonrpc: '2.0', id: 7, method: 'tools/call' });
    expect(noParams.status).toBe(200);
    expect(await noParams.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Invalid params of tools/call: params: expected object, received undefined.' } });
    const nullArgs = await send({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'get_me', arguments: null } });
    expect(await nullArgs.json()).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32602, message: 'Invalid params of tools/call: params.arguments: expected record, received null.' } });
    expect((await emu.api.call('GET', '/me')).body.limits.requests_per_minute.read.used).toBe(1);
  });
});

describe('per-minute counters shared with REST', () => {
  const remaining = (r: Res) => Number(r.headers['x-ratelimit-remaining'] ?? 0);

  it('MCP tool calls spend the key’s read counter (protocol messages do not): REST X-RateLimit-Remaining falls', async () => {
    await emu.api.freshMinute();
    const before = remaining(await emu.api.call('GET', '/me'));
    const c = await client();
    await c.listTools();
    expect(remaining(await emu.api.call('GET', '/me'))).toBe(before - 1); // only the REST call itself
    await ok(c, 'get_me');
    await ok(c, 'list_destinations');
    await ok(c, 'get_post', { post_id: (await ok(c, 'create_post', draft())).id });
    expect(remaining(await emu.api.call('GET', '/me'))).toBe(before - 5);
    // the write counter moved by the one create_post
    expect((await emu.api.call('GET', '/me')).body.limits.requests_per_minute.write).toMatchObject({ limit: 20, used: 1, remaining: 19 });
  });

  it('writes spent through REST: an MCP write is refused with requests_per_minute and a retry time; reads still work', async () => {
    await emu.api.freshMinute();
    for (let i = 0; i < 20; i++) {
      const r = await emu.api.call('POST', '/posts', { body: draft() });
      expect(r.status).toBe(201);
    }
    const c = await client();
    const refused = await fails(c, 'create_post', draft());
    expect(refused).toMatchObject({ type: 'rate_limited', code: 'requests_per_minute', status: 429 });
    expect(refused.retry_after_sec).toBeGreaterThanOrEqual(1);
    expect(refused.retry_after_sec).toBeLessThanOrEqual(60);
    expect(refused.message).toMatch(/20 write requests per minute/);
    expect((await ok(c, 'get_me')).limits.requests_per_minute.write).toMatchObject({ used: 20, remaining: 0 });
    // a new minute gives the allowance back
    await emu.api.freshMinute();
    expect((await ok(c, 'create_post', draft())).status).toBe('draft');
  });

  it('writes spent through MCP: REST gets 429 requests_per_minute with Retry-After', async () => {
    await emu.api.freshMinute();
    const c = await client();
    for (let i = 0; i < 20; i++) await ok(c, 'create_post', draft());
    const r = await emu.api.call('POST', '/posts', { body: draft() });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('requests_per_minute');
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
    // and MCP itself is refused as well; the refusal is not counted
    expect((await fails(c, 'publish_post', { post_id: 'post_any', publish_at: 'now' })).code).toBe('requests_per_minute');
  });

  it('the counters are per key: another key of the workspace is not affected', async () => {
    await emu.api.freshMinute();
    const c = await client();
    for (let i = 0; i < 20; i++) await ok(c, 'create_post', draft());
    const other = await client(emu.key('Demo Second'));
    expect((await ok(other, 'create_post', draft('med_second_sample', 'dst_second_youtube'))).status).toBe('draft');
  });
});

describe('the daily post allowance shared with REST (Standard: 30 per day for the whole account)', () => {
  /** Spends the account's 30 posts: 15 with each key of its two workspaces. */
  async function spendAll(via: 'rest' | 'mcp'): Promise<void> {
    const plan = [
      { key: emu.key('Demo'), body: draft('med_demo_sample', 'dst_demo_youtube', { publish_at: 'now' }) },
      { key: emu.key('Demo Second'), body: draft('med_second_sample', 'dst_second_youtube', { publish_at: 'now' }) },
    ];
    for (const { key, body } of plan) {
      const c = via === 'mcp' ? await client(key) : undefined;
      for (let i = 0; i < 15; i++) {
        if (c) expect((await ok(c, 'create_post', body)).status).toBe('publishing');
        else expect((await emu.api.call('POST', '/posts', { key, body })).status).toBe(201);
      }
    }
  }

  it('spent through REST: MCP create_post and publish_post are refused with daily_post_limit, reset_at and the retry time', async () => {
    await emu.api.nextDay();
    const c = await client();
    const d = await ok(c, 'create_post', draft()); // drafts do not spend it
    await spendAll('rest');
    const refused = await fails(c, 'create_post', draft('med_demo_sample', 'dst_demo_youtube', { publish_at: 'now' }));
    expect(refused).toMatchObject({ type: 'rate_limited', code: 'daily_post_limit', status: 429 });
    expect(refused.reset_at).toMatch(/T00:00:00\.000Z$/);
    expect(refused.retry_after_sec).toBeGreaterThan(23 * 3600);
    expect(refused.message).toMatch(/daily allowance of 30 API posts/);
    const pub = await fails(c, 'publish_post', { post_id: d.id, publish_at: 'now' });
    expect(pub.code).toBe('daily_post_limit');
    expect((await ok(c, 'get_post', { post_id: d.id })).status).toBe('draft');
    expect((await ok(c, 'get_me')).limits.api_posts_per_day).toMatchObject({ used: 30, remaining: 0, scope: 'account' });
  });

  it('spent through MCP: REST POST /posts with publish_at gets 429 daily_post_limit', async () => {
    await emu.api.nextDay();
    await spendAll('mcp');
    const r = await emu.api.call('POST', '/posts', { body: draft('med_demo_sample', 'dst_demo_youtube', { publish_at: 'now' }) });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: 'daily_post_limit', reset_at: expect.stringMatching(/T00:00:00\.000Z$/) });
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(23 * 3600);
    expect((await emu.api.call('GET', '/me')).body.limits.api_posts_per_day).toMatchObject({ used: 30, remaining: 0 });
  });
});

describe('request faults on /mcp', () => {
  it('reset_after_handling: the tool call is handled (the post is made), then the connection drops with no answer', async () => {
    await emu.fault({ method: 'POST', path: '/mcp', action: 'reset_after_handling' });
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_post', arguments: draft() } };
    const sent = fetch(mcpUrl(emu), {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.key()}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    await expect(sent).rejects.toThrow(/fetch failed/);
    expect((await emu.admin('GET', '/state')).workspaces[0].posts.total).toBe(1);
    expect((await emu.requests()).filter((r) => r.path === '/mcp')).toEqual([
      { method: 'POST', path: '/mcp', status: 200, authorization: true, idempotency_key: null, replayed: false, fault: 'reset_after_handling' },
    ]);
  });
});

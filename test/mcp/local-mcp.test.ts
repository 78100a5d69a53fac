/**
 * `vidpub mcp` through the SDK's client against the emulator: the built
 * binary as a child process on the SDK's stdio transport (the 10 tools, a
 * quiet stderr, stdout holding only JSON-RPC) and the ways it ends (input
 * closed, Ctrl-C); the tools' work in-process (main(argv, ctx), its stdin and
 * stdout the client's streams): a local file uploaded and posted, the
 * --workspace guard, local file errors, the stored profile.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { runCli, tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { connect, fails, ok } from '../support/mcp.js';
import { inProcessMcpClient } from '../support/mcp-stdio.js';
import { waitFor } from '../support/poll.js';
import type { Json } from '../support/rest.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const CLIP = join(ROOT, 'test', 'fixtures', 'clip.mp4');

interface Server {
  client: Client;
  stderr: () => string;
  /** Errors the client transport saw (e.g. a line on stdout that is not JSON-RPC). */
  transportErrors: Error[];
  /** In-process: main()'s exit code, once its input is closed. */
  code?: Promise<number>;
}

let servers: Server[] = [];

const serverEnv = (env?: Record<string, string | undefined>) => ({ VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_STATE_DIR: join(tempConfigDir(), 'state'), ...emu.env(), ...env });

/** Runs `vidpub [globals] mcp [flags]` in-process with env (no VIDPUB_* is inherited) and connects the SDK's client to its stdin and stdout. */
async function start(opts: { args?: string[]; env?: Record<string, string | undefined> } = {}): Promise<Server> {
  const server = await inProcessMcpClient(opts.args ?? ['mcp'], serverEnv(opts.env), ROOT);
  servers.push(server);
  return server;
}

/** Starts the built `vidpub mcp` with env (no VIDPUB_* is inherited) and connects the SDK's stdio client. */
async function startBin(): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: serverEnv(),
    cwd: ROOT,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const client = new Client({ name: 'vidpub-local-test', version: '0.0.0' });
  const server: Server = { client, stderr: () => err, transportErrors: [] };
  await client.connect(transport);
  const onerror = transport.onerror;
  transport.onerror = (e) => {
    server.transportErrors.push(e);
    onerror?.(e);
  };
  servers.push(server);
  return server;
}

beforeAll(() => {
  ensureBuilt();
}, 120_000);


afterEach(async () => {
  const closing = servers;
  servers = [];
  await Promise.all(closing.map((s) => s.client.close()));
  // Its input closed, an in-process server ends 0, as the built one exits 0.
  for (const s of closing) if (s.code) expect(await s.code).toBe(0);
});

const youtubeNow = (media: string) => ({ media_id: media, caption: 'from vidpub mcp', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' });

describe('vidpub mcp: tools over stdio', () => {
  it('the built binary lists the 8 service tools plus upload_file and wait_for_post, with the same schemas as the emulator endpoint', async () => {
    const { client, stderr, transportErrors } = await startBin();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'get_me',
      'list_destinations',
      'get_destination_options',
      'import_media',
      'get_media',
      'create_post',
      'publish_post',
      'get_post',
      'upload_file',
      'wait_for_post',
    ]);
    const upload = tools.find((t) => t.name === 'upload_file')!;
    expect(upload.inputSchema.required).toEqual(['path']);
    expect(Object.keys(upload.inputSchema.properties!)).toEqual(['path', 'wait', 'reupload', 'idempotency_key']);
    expect(client.getServerVersion()).toMatchObject({ name: 'vidpub' });
    const remote = await connect(emu);
    try {
      expect(tools.filter((t) => t.name !== 'upload_file' && t.name !== 'wait_for_post')).toEqual((await remote.listTools()).tools);
    } finally {
      await remote.close();
    }
    expect(transportErrors).toEqual([]);
    expect(stderr()).toBe('');
  });

  it('upload_file streams a local video like vidpub upload and waits until ready; create_post posts it; get_post follows it', async () => {
    const { client, stderr, transportErrors } = await start();
    const media = await ok(client, 'upload_file', { path: CLIP });
    expect(media).toMatchObject({ status: 'ready', filename: 'clip.mp4', content_type: 'video/mp4', source: 'upload', duration_sec: 2 });

    const log = (await emu.requests()).map((r) => `${r.method} ${r.path.replace(/med_\w+/, 'ID')} ${r.authorization}`);
    expect(log.slice(0, 3)).toEqual(['POST /v1/media/uploads true', 'PUT /_uploads/ID false', 'POST /v1/media/ID/complete true']);

    const post = await ok(client, 'create_post', youtubeNow(media.id));
    expect(post).toMatchObject({ status: 'publishing', media_id: media.id });
    const done = await waitFor(() => ok(client, 'get_post', { post_id: post.id }), (p) => p.status === 'completed');
    expect(done.destinations[0]).toMatchObject({ destination_id: 'dst_demo_youtube', status: 'published' });

    // the other tools answer the records REST returns
    expect((await ok(client, 'get_me')).workspace.name).toBe('Demo');
    expect((await ok(client, 'list_destinations')).data.map((d: Json) => d.id)).toContain('dst_demo_tiktok');
    expect((await ok(client, 'get_destination_options', { destination_id: 'dst_demo_tiktok' })).creator.handle).toBe('@vidpub.demo');
    expect((await ok(client, 'get_media', { media_id: media.id })).status).toBe('ready');
    const d = await ok(client, 'create_post', { ...youtubeNow(media.id), publish_at: undefined });
    expect(d.status).toBe('draft');
    expect((await ok(client, 'publish_post', { post_id: d.id, publish_at: 'now' })).status).toBe('publishing');
    const imported = await ok(client, 'import_media', { url: 'https://cdn.example.com/a.mp4' });
    expect(imported).toMatchObject({ status: 'uploading', source: 'import' });

    expect(transportErrors).toEqual([]);
    expect(stderr()).toBe(''); // quiet without --debug
  });

  it('upload_file sends MCP progress notifications when asked, and wait:false returns once the bytes are sent', async () => {
    const { client } = await start();
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const r = (await client.callTool({ name: 'upload_file', arguments: { path: CLIP } }, undefined, { onprogress: (p) => seen.push(p) })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]!.message).toMatch(/Uploading clip\.mp4/);
    const values = seen.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length); // strictly increasing
    expect(seen.every((p) => p.total === 100)).toBe(true);

    // The same file again would be the ready video (reused): reupload sends it.
    const fast = await ok(client, 'upload_file', { path: CLIP, wait: false, reupload: true });
    expect(fast.status).toBe('processing');
  });

  it('tool errors carry the class, exit code, service code and message', async () => {
    const { client } = await start();
    const missing = await fails(client, 'get_post', { post_id: 'post_nope' });
    expect(missing).toMatchObject({ class: 'not_found', exit_code: 5, code: 'not_found', status: 404 });
    expect(missing.message).toMatch(/post_nope/);
    const blocked = await fails(client, 'create_post', { ...youtubeNow('med_demo_sample'), destinations: [{ destination_id: 'dst_demo_tiktok' }] });
    expect(blocked).toMatchObject({ class: 'blocked', exit_code: 8, code: 'post_has_blocking_issues', status: 409 });
    expect(blocked.issues.map((i: Json) => i.code)).toContain('missing_required_option');
  });
});

describe('vidpub mcp: the rules post holds, before anything is sent', () => {
  it('create_post with an 11,000-character caption, an option value over 1,000, a past or too distant publish_at: invalid_input in post\'s words, no request', async () => {
    const { client } = await start();
    const caption = await fails(client, 'create_post', { ...youtubeNow('med_demo_sample'), caption: 'x'.repeat(11_000) });
    expect(caption).toMatchObject({ class: 'invalid_input', exit_code: 2, message: 'the caption has 11,000 characters; the service takes at most 10,000' });
    const option = await fails(client, 'create_post', { ...youtubeNow('med_demo_sample'), destinations: [{ destination_id: 'dst_demo_youtube', options: { title: 't'.repeat(1001) } }] });
    expect(option).toMatchObject({ class: 'invalid_input', message: 'the value of option title has 1,001 characters; the service takes at most 1,000' });
    const past = await fails(client, 'create_post', { ...youtubeNow('med_demo_sample'), publish_at: '2001-01-01T09:00:00Z' });
    expect(past).toMatchObject({ class: 'invalid_input', message: 'the time 2001-01-01T09:00:00Z for publish_at is in the past' });
    const far = await fails(client, 'publish_post', { post_id: 'post_any', publish_at: '2999-01-01T09:00:00+02:00' });
    expect(far.message).toBe('the time 2999-01-01T09:00:00+02:00 for publish_at is more than 365 days ahead; the service schedules at most 365 days ahead');
    expect((await emu.requests()).filter((r) => r.path.startsWith('/v1/posts'))).toEqual([]);
  });
});

describe('vidpub mcp: local files', () => {
  it('upload_file with a missing path: a tool error naming the reason; nothing is sent', async () => {
    const { client } = await start();
    const err = await fails(client, 'upload_file', { path: '/nowhere/holiday.mp4' });
    expect(err).toMatchObject({ class: 'invalid_input', exit_code: 2, code: 'invalid_input' });
    expect(err.message).toMatch(/\/nowhere\/holiday\.mp4: no such file/);
    expect((await emu.requests()).filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('upload_file with a file that is not a video, or a directory: refused before any request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-mcp-'));
    const fake = join(dir, 'notes.mp4');
    writeFileSync(fake, '%PDF-1.4 not a video');
    const { client } = await start();
    expect((await fails(client, 'upload_file', { path: fake })).message).toMatch(/notes\.mp4 is named \.mp4 but contains a PDF document/);
    expect((await fails(client, 'upload_file', { path: dir })).message).toMatch(/is a directory, not a regular file/);
    expect((await emu.requests()).filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('paths starting with ~/ are in the home directory', async () => {
    const home = mkdtempSync(join(tmpdir(), 'vidpub-home-'));
    const { client } = await start({ env: { HOME: home } });
    const err = await fails(client, 'upload_file', { path: '~/Videos/clip.mp4' });
    expect(err.message).toContain(join(home, 'Videos', 'clip.mp4'));
  });
});

describe('vidpub mcp: keys and workspaces', () => {
  it('--workspace: a write for another workspace is refused naming both workspaces, and nothing is written; reads work', async () => {
    const { client } = await start({ args: ['--workspace', 'Wrong', 'mcp'] });
    expect((await ok(client, 'get_me')).workspace.name).toBe('Demo');
    const err = await fails(client, 'create_post', youtubeNow('med_demo_sample'));
    expect(err).toMatchObject({ class: 'auth_error', exit_code: 3 });
    expect(err.message).toMatch(/belongs to workspace "Demo", not "Wrong"/);
    expect((await fails(client, 'upload_file', { path: CLIP })).message).toMatch(/"Demo", not "Wrong"/);
    expect((await emu.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('VIDPUB_WORKSPACE naming the key’s workspace lets writes through', async () => {
    const { client } = await start({ env: { VIDPUB_WORKSPACE: 'Demo' } });
    expect((await ok(client, 'create_post', youtubeNow('med_demo_sample'))).status).toBe('publishing');
  });

  it('uses the stored profile when VIDPUB_API_KEY is not set', async () => {
    const config = tempConfigDir();
    const login = await runCli(['login', '--with-key'], { stdin: emu.key(), env: { VIDPUB_CONFIG_DIR: config, VIDPUB_BASE_URL: emu.baseUrl } });
    expect(login.code).toBe(0);
    const server = await inProcessMcpClient(['mcp'], { VIDPUB_CONFIG_DIR: config }, ROOT);
    servers.push(server);
    const { client } = server;
    expect((await ok(client, 'get_me')).key.last4).toBe(emu.key().slice(-4));
  });

  it('no key anywhere: it says so on stderr at start, and every tool answers with the auth error', async () => {
    // unset, not empty: an empty VIDPUB_API_KEY is refused with its own sentence
    const s = await start({ env: { VIDPUB_API_KEY: undefined } });
    const err = await fails(s.client, 'get_me');
    expect(err).toMatchObject({ class: 'auth_error', exit_code: 3 });
    expect(err.message).toMatch(/No API key/);
    expect(err.hint).toMatch(/vidpub login/);
    expect(s.stderr()).toMatch(/vidpub mcp: No API key.*Tools will answer with this error/);
  });

  it('a refused key: the service’s 401 comes back as a tool error', async () => {
    const { client } = await start({ env: { VIDPUB_API_KEY: 'vp_live_not_a_real_key_0000' } });
    expect(await fails(client, 'list_destinations')).toMatchObject({ class: 'auth_error', exit_code: 3, code: 'invalid_key', status: 401 });
  });

  it('--debug logs requests on stderr (never on stdout)', async () => {
    const s = await start({ args: ['mcp', '--debug'] });
    await ok(s.client, 'get_me');
    expect(s.stderr()).toMatch(/GET .*\/v1\/me/);
    expect(s.stderr()).not.toContain(emu.key());
    expect(s.transportErrors).toEqual([]);
  });
});

describe('vidpub mcp: allowances', () => {
  it('per-minute writes used up: a rate_limited tool error with retry_after_sec at once, not a wait that outlives the call', async () => {
    await emu.api.freshMinute();
    for (let i = 0; i < 20; i++) expect((await emu.api.call('POST', '/posts', { body: { ...youtubeNow('med_demo_sample'), publish_at: undefined } })).status).toBe(201);
    const { client } = await start();
    const err = await fails(client, 'create_post', youtubeNow('med_demo_sample'));
    expect(err).toMatchObject({ class: 'rate_limited', exit_code: 4, code: 'requests_per_minute', status: 429 });
    expect(err.retry_after_sec).toBeGreaterThan(30);
    expect(err.message).toMatch(/more than --max-wait \(30s\)/);
  });

  it('an explicit --max-wait replaces the 30 s cap', async () => {
    await emu.api.freshMinute();
    for (let i = 0; i < 20; i++) expect((await emu.api.call('POST', '/posts', { body: { ...youtubeNow('med_demo_sample'), publish_at: undefined } })).status).toBe(201);
    const { client } = await start({ args: ['--max-wait', '45s', 'mcp'] });
    const err = await fails(client, 'create_post', youtubeNow('med_demo_sample'));
    expect(err).toMatchObject({ class: 'rate_limited', exit_code: 4, code: 'requests_per_minute', status: 429 });
    expect(err.retry_after_sec).toBeGreaterThan(45);
    expect(err.message).toMatch(/more than --max-wait \(45s\)/);
  });

  it('daily allowance used up: daily_post_limit with reset_at, even with --wait-for-quota (a call never sleeps until midnight)', async () => {
    await emu.api.nextDay();
    for (const [ws, media, dest] of [['Demo', 'med_demo_sample', 'dst_demo_youtube'], ['Demo Second', 'med_second_sample', 'dst_second_youtube']] as const) {
      for (let i = 0; i < 15; i++) {
        const r = await emu.api.call('POST', '/posts', { key: emu.key(ws), body: { media_id: media, destinations: [{ destination_id: dest }], publish_at: 'now' } });
        expect(r.status).toBe(201);
      }
    }
    const { client } = await start({ args: ['--wait-for-quota', 'mcp'] });
    const err = await fails(client, 'create_post', youtubeNow('med_demo_sample'));
    expect(err).toMatchObject({ class: 'rate_limited', exit_code: 4, code: 'daily_post_limit', status: 429 });
    expect(err.reset_at).toMatch(/T00:00:00\.000Z$/);
    expect(err.message).toMatch(/daily post allowance is used up/);
  });
});

describe('vidpub mcp: the process', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
  const spawnServer = () =>
    spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_STATE_DIR: join(tempConfigDir(), 'state'), ...emu.env() }, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = (p: ReturnType<typeof spawnServer>) => new Promise<number | null>((resolve) => p.once('exit', (code) => resolve(code)));

  it('input closed while a call runs: the call is answered, then it exits 0; stdout holds only JSON-RPC lines', async () => {
    const p = spawnServer();
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exit = exited(p);
    p.stdin.write(JSON.stringify(initialize) + '\n');
    p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    p.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'upload_file', arguments: { path: CLIP } } }) + '\n');
    expect(await exit).toBe(0);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[1].result.structuredContent).toMatchObject({ status: 'ready', filename: 'clip.mp4' });
  });

  it('Ctrl-C (SIGINT): it stops and exits 0', async () => {
    const p = spawnServer();
    const exit = exited(p);
    const answered = new Promise<void>((resolve) => p.stdout.once('data', () => resolve()));
    p.stdin.write(JSON.stringify(initialize) + '\n');
    await answered;
    p.kill('SIGINT');
    expect(await exit).toBe(0);
  });
});

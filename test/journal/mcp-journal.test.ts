/**
 * `vidpub mcp` records what its tools create, like the CLI: a video uploaded
 * with upload_file, a post made with create_post, the states get_post saw.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, ROOT, ensureBuilt } from '../support/build.js';
import { tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { ok } from '../support/mcp.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const stateDir = join(mkdtempSync(join(tmpdir(), 'vidpub-mcp-state-')), 'vidpub');
let client: Client | undefined;

beforeAll(() => {
  ensureBuilt();
}, 120_000);

afterAll(async () => {
  await client?.close();
});

describe('vidpub mcp and the journal', () => {
  it('records the video upload_file sent, the post create_post made, and what get_post saw', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_STATE_DIR: stateDir, ...emu.env() },
      cwd: ROOT,
      stderr: 'pipe',
    });
    client = new Client({ name: 'vidpub-journal-test', version: '0.0.0' });
    await client.connect(transport);
    const media = await ok(client, 'upload_file', { path: 'test/fixtures/clip.mp4' });
    const post = await ok(client, 'create_post', {
      media_id: media.id,
      caption: 'from an assistant',
      destinations: [{ destination_id: 'dst_demo_linkedin' }],
      publish_at: 'now',
      idempotency_key: 'assistant-1',
    });
    await waitFor(() => ok(client!, 'get_post', { post_id: post.id }), (p) => p.status === 'completed', 15_000);
    const records = readFileSync(join(stateDir, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records[0]).toMatchObject({ kind: 'media', media_id: media.id, source: 'upload', status: 'ready', size: 13734 });
    expect(records[1]).toMatchObject({ kind: 'post', post_id: post.id, caption: 'from an assistant', idem: 'assistant-1', outcome: 'created', workspace: 'Demo' });
    expect(records.at(-1)).toMatchObject({ kind: 'status', post_id: post.id, status: 'completed' });
    // The same content again: the ready video is used, no second PUT; reupload sends it anyway.
    const again = await ok(client, 'upload_file', { path: 'test/fixtures/clip.mp4' });
    expect(again).toMatchObject({ id: media.id, status: 'ready', reused: true });
    const puts = async () => (await emu.requests()).filter((r) => r.method === 'PUT').length;
    expect(await puts()).toBe(1);
    const fresh = await ok(client, 'upload_file', { path: 'test/fixtures/clip.mp4', reupload: true });
    expect(fresh.id).not.toBe(media.id);
    expect(fresh.reused).toBeUndefined();
    expect(await puts()).toBe(2);
  }, 60_000);
});

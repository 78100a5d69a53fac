/**
 * `vidpub mcp`, a host that gives up on a write (notifications/cancelled) and
 * calls it again with the same arguments and no idempotency_key: the second
 * call sends the Idempotency-Key of the first, whose answer never reached the
 * host, so the one post made is returned instead of a second one.
 */
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { initialize, lines, mcpServer } from '../support/mcp-stdio.js';

const emu = useEmulator();

const post = { media_id: 'med_demo_sample', caption: 'launch', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' };
const createPost = (id: number, args: Record<string, unknown> = post) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_post', arguments: args } });

const posts = async () => (await emu.admin('GET', '/state')).workspaces[0].posts.total;

describe('vidpub mcp: a write cancelled by the host, then called again', () => {
  it('with the same arguments: the first call’s key is sent again; one post', async () => {
    // The answer is held back long enough that a loaded machine still delivers the cancel before it comes.
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'delay', ms: 3000 });
    const s = mcpServer(emu);
    s.stdin.write(lines(initialize, createPost(2)));
    await waitFor(async () => (await emu.requests()).some((r) => r.path === '/v1/posts'), (sent) => sent, 60_000);
    s.stdin.write(lines({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'timed out' } }));
    await waitFor(() => posts(), (n) => n === 1, 60_000);
    s.stdin.end(lines(createPost(3)));
    expect(await s.run).toBe(0);
    expect(s.answer(2)).toBeUndefined();
    expect(s.answer(3).result.structuredContent).toMatchObject({ status: expect.stringMatching(/publishing|completed/), caption: 'launch' });
    expect(await posts()).toBe(1);
    const sent = (await emu.requests()).filter((r) => r.path === '/v1/posts');
    expect(new Set(sent.map((r) => r.idempotency_key)).size).toBe(1);
    expect(sent.at(-1)).toMatchObject({ status: 201, replayed: true });
  });

  it('with other arguments, or after an answer: a new key, a new post', async () => {
    const s = mcpServer(emu);
    s.stdin.write(lines(initialize, createPost(2)));
    await waitFor(async () => s.answer(2), (a) => a !== undefined, 60_000);
    s.stdin.end(lines(createPost(3), createPost(4, { ...post, caption: 'other' })));
    expect(await s.run).toBe(0);
    expect(await posts()).toBe(3);
  });
});

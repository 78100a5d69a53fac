/**
 * `vidpub mcp` after its own calls spent the minute's writes: the next write
 * is not held back silently until the minute resets (up to a minute, past the
 * point where MCP clients give up); like a 429 it comes back at once as
 * rate_limited with retry_after_sec when the wait is longer than a call may
 * wait (30 s, or --max-wait), and nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines, mcpServer } from '../support/mcp-stdio.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator();

const draft = { media_id: 'med_demo_sample', caption: 'draft', destinations: [{ destination_id: 'dst_demo_youtube' }] };
const createPost = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_post', arguments: draft } });

describe('vidpub mcp: the minute’s writes spent by its own calls', () => {
  it('the next write is rate_limited at once with retry_after_sec, not held until the minute resets; nothing is sent', async () => {
    await emu.api.freshMinute();
    // 19 of the key's 20 writes a minute through REST; the server's first call spends the last one and learns that none are left.
    for (let i = 0; i < 19; i++) expect((await emu.api.call('POST', '/posts', { body: draft })).status).toBe(201);
    const { stdin, run, answers, answer } = mcpServer(emu);
    stdin.write(lines(initialize, createPost(2)));
    await waitFor(() => answer(2), (a) => a !== undefined);
    stdin.end(lines(createPost(3)));
    expect(await run).toBe(0);
    await new Promise((r) => setImmediate(r));
    const out = answers();
    expect(out.find((m) => m.id === 2).result.structuredContent.status).toBe('draft');
    const third = out.find((m) => m.id === 3).result;
    expect(third.isError).toBe(true);
    const err = third.structuredContent.error;
    expect(err).toMatchObject({ code: 'requests_per_minute', class: 'rate_limited', exit_code: 4 });
    expect(err.retry_after_sec).toBeGreaterThan(30);
    expect(err.message).toMatch(/^Rate limited \(requests_per_minute\): no write requests are left this minute; the allowance resets in \d+s, more than --max-wait \(30s\) allows\.$/);
    expect(err.hint).toMatch(/^Try again in \d+s, or raise --max-wait\.$/);
    expect((await emu.requests()).filter((q) => q.method === 'POST')).toHaveLength(20);
  }, 20_000);
});

/**
 * `vidpub mcp` wait_for_post (the local server, in-process over its stdio transport, fed message by
 * message): a post publishing to two destinations, one made to fail, followed to its end with
 * notifications/progress carrying the request's _meta.progressToken: the post publishing, then each
 * destination as it ends (the emulator's clock moved on meanwhile), then the post's end; the progress
 * values strictly increasing (the MCP spec's MUST) out of total = destinations + 1, all before the answer.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { makeContext, runCli, tempConfigDir } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines, type Json } from '../support/mcp-stdio.js';
import { waitFor } from '../support/poll.js';

// Publishing takes a minute of the emulator's clock a destination: the test moves it on while the tool waits.
const emu = useEmulator({ processingMs: 20, publishMs: 60_000 });

describe('vidpub mcp: wait_for_post progress', () => {
  it('tells the post publishing, each destination as it ends and the end as progress notifications, then answers the finished post', async () => {
    await emu.fault({ destination_fail: 'dst_demo_youtube' });
    const env = { ...emu.env(), VIDPUB_CONFIG_DIR: tempConfigDir(), VIDPUB_NO_CACHE: '1' };
    const sent = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin,youtube', '--option', 'youtube:visibility=unlisted', '--caption', 'm', '--yes', '--no-wait', '--json', 'id,status'], { env });
    expect(JSON.parse(sent.stdout)).toMatchObject({ status: 'publishing' });
    const id = (JSON.parse(sent.stdout) as { id: string }).id;

    const base = makeContext({ env, clock: scaledClock(3) });
    const stdin = new PassThrough();
    const run = main(['mcp'], { ...base.ctx, io: { ...base.ctx.io, stdin } });
    const out = (): Json[] => base.stdout().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    stdin.write(lines(initialize, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait_for_post', arguments: { post_id: id }, _meta: { progressToken: 'w1' } } }));
    await waitFor(out, (m) => m.some((x) => x.method === 'notifications/progress'), 15_000);
    // Each destination takes a minute, one after the other: LinkedIn first, then YouTube.
    const told = (re: RegExp) => (m: Json[]) => m.some((x) => x.method === 'notifications/progress' && re.test(x.params.message));
    await emu.advance(61);
    await waitFor(out, told(/\(linkedin\): published/), 15_000);
    await emu.advance(60);
    const all = await waitFor(out, (m) => m.some((x) => x.id === 2), 15_000);
    stdin.end();
    expect(await run).toBe(0);

    const answer = all.findIndex((m) => m.id === 2);
    expect(all[answer].result.structuredContent).toMatchObject({ id, status: 'completed' });
    const progress = all.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    expect(all.findLastIndex((m) => m.method === 'notifications/progress')).toBeLessThan(answer);
    expect(progress.every((p) => p.progressToken === 'w1' && p.total === 3)).toBe(true);
    const values = progress.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]);
    expect([values[0], values.at(-1)]).toEqual([0, 3]);
    const messages = progress.map((p) => p.message as string);
    expect(messages[0]).toBe(`Post ${id}: publishing`);
    expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/\(linkedin\): published http/), expect.stringMatching(/\(youtube\): failed/)]));
    expect(messages.at(-1)).toBe(`Post ${id}: done, a destination failed or was cancelled`);
  }, 30_000);
});

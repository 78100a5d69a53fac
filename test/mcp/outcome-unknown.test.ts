/**
 * `vidpub mcp`, a write tool whose answer never came: the tool error says the
 * outcome is unknown (never "failed"), and names the idempotency_key the call
 * used, so calling again with it settles the outcome without a second post.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines, type Json } from '../support/mcp-stdio.js';

const emu = useEmulator();

const callTool = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const youtubeNow = { media_id: 'med_demo_sample', caption: 'launch', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' };

/** One `vidpub mcp` session (initialize, then `messages`), on a clock 100 times faster than real time (short backoffs): the answers by id. */
async function serve(...messages: unknown[]) {
  const r = await runCli(['mcp'], { env: emu.env(), stdin: lines(initialize, ...messages), clock: scaledClock(100) });
  const out: Json[] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  return { code: r.code, stderr: r.stderr, answer: (id: number) => out.find((m) => m.id === id) };
}

const postsMade = async () => (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts' && r.status === 201 && !r.replayed).length;

describe('vidpub mcp: a write whose answer never came', () => {
  it('create_post without idempotency_key: outcome_unknown naming the key it used; calling again with it replays the one post', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 10 });
    const first = await serve(callTool(2, 'create_post', youtubeNow));
    expect(first.code).toBe(0);
    const result = first.answer(2).result;
    expect(result.isError).toBe(true);
    const err = result.structuredContent.error;
    expect(err).toMatchObject({ code: 'outcome_unknown', class: 'outcome_unknown', exit_code: 9 });
    expect(err.message).toMatch(/The outcome of POST \/v1\/posts \(create a post\) is unknown: .*it may have been done\./);
    expect(err.message).not.toMatch(/refused/);
    expect(err.idempotency_key).toEqual(expect.any(String));
    expect(err.hint).toMatch(new RegExp(`Call create_post again with the same arguments and "idempotency_key": "${err.idempotency_key}"`));
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(await postsMade()).toBe(1);

    await emu.admin('DELETE', '/faults');
    const again = await serve(callTool(2, 'create_post', { ...youtubeNow, idempotency_key: err.idempotency_key }));
    const post = again.answer(2).result;
    expect(post.isError).toBeUndefined();
    expect(post.structuredContent).toMatchObject({ status: 'publishing', caption: 'launch' });
    expect(await postsMade()).toBe(1);
    expect((await emu.requests()).filter((r) => r.path === '/v1/posts').at(-1)).toMatchObject({ replayed: true, idempotency_key: err.idempotency_key });
  });

  it('upload_file: outcome_unknown names an idempotency_key upload_file takes; calling again with it finishes the one video', async () => {
    const clip = join(ROOT, 'test', 'fixtures', 'clip.mp4');
    await emu.fault({ method: 'POST', path: '/v1/media/uploads', action: 'reset_after_handling', times: 10 });
    const first = await serve(callTool(2, 'upload_file', { path: clip }));
    const err = first.answer(2).result.structuredContent.error;
    expect(err).toMatchObject({ code: 'outcome_unknown', class: 'outcome_unknown', exit_code: 9, idempotency_key: expect.any(String) });
    expect(err.message).toMatch(/^The outcome is unknown: the upload of clip\.mp4 may have been created at the service; /);
    expect(err.hint).toBe(`Call upload_file again with the same path and "idempotency_key": "${err.idempotency_key}" (within 24 hours): what was done is reported, not done twice.`);

    await emu.admin('DELETE', '/faults');
    const again = await serve(callTool(2, 'upload_file', { path: clip, idempotency_key: err.idempotency_key }));
    expect(again.answer(2).result.structuredContent).toMatchObject({ status: 'ready', filename: 'clip.mp4' });
    const creates = (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/media/uploads' && r.status === 201);
    expect(creates.filter((r) => !r.replayed)).toHaveLength(1);
    expect(creates.at(-1)).toMatchObject({ replayed: true });
  });

  it('a caller’s own idempotency_key is the one named', async () => {
    await emu.fault({ method: 'POST', path: '/v1/media/imports', action: 'reset_after_handling', times: 10 });
    const r = await serve(callTool(2, 'import_media', { url: 'https://cdn.example.com/a.mp4', idempotency_key: 'mine-1' }));
    const err = r.answer(2).result.structuredContent.error;
    expect(err).toMatchObject({ code: 'outcome_unknown', exit_code: 9, idempotency_key: 'mine-1' });
    expect(err.hint).toMatch(/Call import_media again with the same arguments and "idempotency_key": "mine-1"/);
  });
});

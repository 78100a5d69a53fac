/**
 * `vidpub mcp`: a service tool call has a deadline short of the minute after
 * which MCP clients give up on a call. A service that never answers makes a
 * read a timeout error and a write outcome_unknown (with its idempotency_key),
 * answered while the client still listens, instead of after minutes of retries.
 * The clock runs 1000 times faster than real time; the service never answers.
 */
import { describe, expect, it } from 'vitest';
import { MCP_CALL_TIMEOUT_MS } from '../../src/mcp/local-server.js';
import { runCli } from '../support/cli.js';
import type { Clock } from '../../src/cli/run/context.js';
import { manualClock, scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines, type Json } from '../support/mcp-stdio.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator();

const callTool = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

async function serve(messages: unknown[], args = ['mcp'], clock: Clock = scaledClock(1000)) {
  return answers(await runCli(args, { env: emu.env(), stdin: lines(initialize, ...messages), clock }));
}

function answers(r: { code: number; stdout: string; stderr: string }) {
  const out: Json[] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const result = (id: number) => out.find((m) => m.id === id).result;
  return { code: r.code, stderr: r.stderr, result, error: (id: number) => result(id).structuredContent.error };
}

describe('vidpub mcp: the deadline of a tool call', () => {
  it('a read the service never answers: a timeout tool error naming the limit (not minutes of retries)', async () => {
    await emu.fault({ method: 'GET', path: '/v1/me', action: 'hang', times: 10 });
    const r = await serve([callTool(2, 'get_me', {})]);
    expect(r.code).toBe(0);
    expect(r.error(2)).toMatchObject({ code: 'timeout', class: 'timeout', exit_code: 7 });
    expect(r.error(2).message).toBe(`Stopped: no answer from the service within ${MCP_CALL_TIMEOUT_MS / 1000}s, the time a vidpub mcp tool call may take.`);
  }, 15_000);

  it('a write the service never answers: outcome_unknown with the idempotency_key that settles it', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'hang', times: 10 });
    const r = await serve([callTool(2, 'create_post', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' })]);
    const err = r.error(2);
    expect(err).toMatchObject({ code: 'outcome_unknown', class: 'outcome_unknown', exit_code: 9, idempotency_key: expect.any(String) });
    expect(err.message).toBe(
      `The outcome of POST /v1/posts (create a post) is unknown: no answer came within ${MCP_CALL_TIMEOUT_MS / 1000}s, the time a vidpub mcp tool call may take; it may have been done.`,
    );
    expect(err.hint).toContain(`"idempotency_key": "${err.idempotency_key}"`);
  }, 15_000);

  it('an explicit --max-wait lengthens it by as much: a 55 s rate-limit wait within --max-wait 2m is waited out', async () => {
    await emu.fault({ method: 'POST', path: '/v1/posts', action: 'status', status: 429, retry_after: 55 });
    const post = callTool(2, 'create_post', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube' }] });
    // On a clock that moves only when told: once vidpub waits out the 429's 55 s, the test moves time by those
    // 55 s (the 170 s of the call's deadline are not spent, however slow the machine).
    const clock = manualClock();
    const running = runCli(['--max-wait', '2m', 'mcp'], { env: emu.env(), stdin: lines(initialize, post), clock });
    await waitFor(() => clock.pending(), (ms) => ms.some((m) => m >= 55_000 && m < 60_000), 60_000);
    clock.tick(55_000 + 4_999);
    const r = answers(await running);
    expect(r.code).toBe(0);
    expect(r.result(2).isError).toBeUndefined();
    expect(r.result(2).structuredContent.status).toBe('draft');
  }, 15_000);
});

/**
 * `vidpub mcp` upload_file progress: every notifications/progress of a call
 * has a larger progress value than the one before (the MCP spec's MUST), also
 * when the upload says something without moving on (a PUT sent again).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { initialize, lines, type Json } from '../support/mcp-stdio.js';

const emu = useEmulator();


describe('vidpub mcp: upload_file progress', () => {
  it('a PUT dropped and sent again: its note comes with a larger progress value, never the same one again', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'reset_before_handling' });
    const upload = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'upload_file', arguments: { path: join(ROOT, 'test', 'fixtures', 'clip.mp4') }, _meta: { progressToken: 'p1' } } };
    const r = await runCli(['mcp'], { env: emu.env(), stdin: lines(initialize, upload), clock: scaledClock(100) });
    expect(r.code).toBe(0);
    const out: Json[] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(out.find((m) => m.id === 2).result.structuredContent.status).toBe('ready');
    const progress = out.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    expect(progress.some((p) => /sending it again from the start/.test(p.message))).toBe(true);
    const values = progress.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i], `after ${JSON.stringify(progress[i - 1])}: ${JSON.stringify(progress[i])}`).toBeGreaterThan(values[i - 1]);
  });
});

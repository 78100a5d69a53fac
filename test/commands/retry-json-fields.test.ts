/** vidpub retry --json FIELDS: a field it does not have is refused before the new post is made. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 100 });

describe('vidpub retry --json FIELDS', () => {
  it('an unknown field is exit 2 before anything is sent (it was found after the retry had posted)', async () => {
    const env = { ...emu.env(), TZ: 'UTC', VIDPUB_STATE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-state-')) };
    const run = (args: string[]) => runCli(args, { clock: scaledClock(20), env });
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const first = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'fields', '--json', 'id']);
    expect(first.code).toBe(6);
    await emu.admin('DELETE', '/faults');
    const id = (JSON.parse(first.stdout) as { id: string }).id;
    const before = (await emu.requests()).filter((q) => q.method !== 'GET').length;

    const r = await run(['retry', id, '--yes', '--json', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { type: 'usage', message: 'unknown JSON field "nope"', exit_code: 2 } });
    expect((await emu.requests()).filter((q) => q.method !== 'GET')).toHaveLength(before);

    const ok = await run(['retry', id, '--yes', '--json', 'id,status']);
    expect(ok.code).toBe(0);
    expect(Object.keys(JSON.parse(ok.stdout) as object)).toEqual(['id', 'status']);
  });
});

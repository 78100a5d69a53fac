/**
 * A destination the cache (10 minutes) remembers as disconnected, or does
 * not know, may have been reconnected or added since: before refusing --to
 * on what it remembers, vidpub reads the list from the service again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/contract/wire-types.js';
import { cliRunner } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 30 });
let cacheDir: string;
const run = cliRunner(() => ({ env: { ...emu.env(), VIDPUB_CACHE_DIR: cacheDir, TZ: 'UTC' } }));
const destinationReads = async () => ((await emu.requests()) as RecordedRequest[]).filter((q) => q.method === 'GET' && q.path === '/v1/destinations').length;

/** A first post, which keeps the destinations (instagram disconnected) in the cache; the request log emptied. */
async function rememberDestinations(): Promise<void> {
  expect((await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'first', '--no-wait', '--quiet'])).code).toBe(0);
  await emu.admin('DELETE', '/requests');
}

beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'vidpub-stale-dest-'));
});
afterEach(async () => {
  rmSync(cacheDir, { recursive: true, force: true });
  await emu.admin('POST', '/destinations/dst_demo_instagram', { status: 'disconnected' });
});

describe('--to on destinations remembered from an earlier run', () => {
  it('an account reconnected since: read again, posted (not "disconnected" from the cache)', async () => {
    await rememberDestinations();
    await emu.admin('POST', '/destinations/dst_demo_instagram', { status: 'active' });

    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'instagram', '--caption', 'again', '--no-wait', '--json']);
    expect(r.stderr).not.toMatch(/disconnected|inactive/);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: expect.stringMatching(/^post_/), destinations: [{ destination_id: 'dst_demo_instagram' }] });
    expect(r.code).toBe(0);
    expect(await destinationReads()).toBe(1);
  });

  it('still disconnected at the service: refused (exit 2) after one fresh read', async () => {
    await rememberDestinations();

    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'instagram', '--caption', 'again', '--no-wait']);
    expect(r.stderr).toContain('Error: cannot post to an inactive destination: @vidpub.demo (instagram) is disconnected');
    expect(r.code).toBe(2);
    expect(await destinationReads()).toBe(1);
  });

  it('a destination the cache does not know: read again before "unknown destination"', async () => {
    await rememberDestinations();
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'dst_nope', '--caption', 'again', '--no-wait']);
    expect(r.stderr).toMatch(/Error: .*dst_nope/);
    expect(r.code).toBe(2);
    expect(await destinationReads()).toBe(1);
  });
});

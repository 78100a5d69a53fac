/**
 * A cache file that parses but whose entries make no sense (an edit by hand,
 * another tool writing there) is ignored as a corrupt one is: the command
 * reads the service afresh, never fails with an unexpected error.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/contract/wire-types.js';
import { cliRunner } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
let cacheDir: string;
const run = cliRunner(() => ({ env: { ...emu.env(), VIDPUB_CACHE_DIR: cacheDir, TZ: 'UTC' } }));
const post = () => run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--option', 'visibility=unlisted', '--caption', 'cached', '--no-wait', '--json']);

beforeEach(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'vidpub-cache-shape-'));
});
afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('cache entries of the wrong shape', () => {
  for (const [what, entry, value] of [
    ['a destination list holding null', 'destinations', [null]],
    ['a destination without an id', 'destinations', [{ platform: 'youtube' }]],
    ['options holding null', 'options:dst_demo_youtube', { options: [null] }],
  ] as const) {
    it(`${what}: ignored, read afresh, exit 0`, async () => {
      expect((await post()).code).toBe(0);
      const [name] = readdirSync(join(cacheDir, 'api'));
      const file = join(cacheDir, 'api', name!);
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, { at: number; value: unknown }> };
      doc.entries[entry] = { at: Date.now(), value };
      writeFileSync(file, JSON.stringify(doc));
      await emu.admin('DELETE', '/requests');

      const r = await post();
      expect(r.stderr).not.toMatch(/error|unexpected|cache/i);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ id: expect.stringMatching(/^post_/), media_id: 'med_demo_sample' });
      const reads = ((await emu.requests()) as RecordedRequest[]).filter((q) => q.method === 'GET').map((q) => q.path);
      expect(reads).toContain(entry === 'destinations' ? '/v1/destinations' : '/v1/destinations/dst_demo_youtube/options');
    });
  }
});

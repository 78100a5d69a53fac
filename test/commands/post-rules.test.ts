/**
 * The caption rule as `post` holds it (src/core/post-rules.ts, shared with
 * batch and the MCP tools): however the caption comes (--caption,
 * --caption-file, stdin), over 10,000 characters is exit 2 before any
 * request, in the words `batch --dry-run` uses too (test/batch/post-rules.test.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const apiRequests = async () => (await emu.requests()).filter((r) => r.path.startsWith('/v1/'));
const MESSAGE = 'Error: the caption has 11,000 characters; the service takes at most 10,000\nShorten it; nothing was uploaded or posted.';
const caption = 'x'.repeat(11_000);

describe('post: an 11,000-character caption', () => {
  it.each([
    ['--caption', () => ['--caption', caption], undefined],
    ['--caption-file', () => {
      const path = join(mkdtempSync(join(tmpdir(), 'vidpub-caption-')), 'caption.txt');
      writeFileSync(path, caption);
      return ['--caption-file', path];
    }, undefined],
    ['--caption-file - (stdin)', () => ['--caption-file', '-'], caption],
  ] as const)('from %s: exit 2, no request', async (_how, flags, stdin) => {
    const r = await runCli(['post', 'test/fixtures/clip.mp4', '--to', 'youtube', ...flags(), '--no-input'], { env: emu.env(), stdin });
    expect(r.stderr).toContain(MESSAGE);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(await apiRequests()).toEqual([]);
  });

  it('with --media (nothing to upload): the same', async () => {
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', caption, '--draft', '--no-input'], { env: emu.env() });
    expect(r.stderr).toContain(MESSAGE);
    expect(r.code).toBe(2);
    expect(await apiRequests()).toEqual([]);
  });
});

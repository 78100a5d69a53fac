/**
 * `batch --dry-run` refuses what `post` refuses, in the same words and with
 * the same exit code (2), before anything is uploaded: the rules have one
 * home (src/core/post-rules.ts). An 11,000-character caption once passed the
 * dry run and failed at the service after the upload.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const CLIP = resolve('test/fixtures/clip.mp4');

const writes = async () => (await emu.requests()).filter((r) => r.path.startsWith('/v1/') && r.method !== 'GET');
const apiRequests = async () => (await emu.requests()).filter((r) => r.path.startsWith('/v1/'));

/** A manifest of one item in a directory of its own; `extra` adds files beside it. */
function manifest(item: Record<string, unknown>, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-rules-'));
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  const path = join(dir, 'items.json');
  writeFileSync(path, JSON.stringify([{ file: CLIP, to: 'youtube', ...item }]));
  return path;
}

const CAPTION_MESSAGE = 'the caption has 11,000 characters; the service takes at most 10,000';

describe('an 11,000-character caption', () => {
  const caption = 'x'.repeat(11_000);

  it('post: exit 2 with the message, before any request', async () => {
    const r = await runCli(['post', CLIP, '--to', 'youtube', '--caption', caption, '--no-input'], { env: emu.env() });
    expect(r.stderr).toContain(`Error: ${CAPTION_MESSAGE}\n`);
    expect(r.code).toBe(2);
    expect(await apiRequests()).toEqual([]);
  });

  it('batch --dry-run: exit 2 with the same message for the item, nothing written', async () => {
    const r = await runCli(['batch', manifest({ caption }), '--dry-run'], { env: emu.env() });
    expect(r.stderr).toContain(`item 1: ${CAPTION_MESSAGE}\n`);
    expect(r.code).toBe(2);
    expect(await writes()).toEqual([]);
  });

  it('batch without --dry-run: refused the same way, before the upload', async () => {
    const r = await runCli(['batch', manifest({ caption }), '--no-input'], { env: emu.env() });
    expect(r.stderr).toContain(`item 1: ${CAPTION_MESSAGE}\n`);
    expect(r.code).toBe(2);
    expect(await writes()).toEqual([]);
  });

  it('the same caption from a caption_file (batch) and --caption-file (post): the same message', async () => {
    const path = manifest({ caption_file: 'caption.txt' }, { 'caption.txt': `${caption}\n` });
    const b = await runCli(['batch', path, '--dry-run'], { env: emu.env() });
    const p = await runCli(['post', CLIP, '--to', 'youtube', '--caption-file', join(path, '..', 'caption.txt'), '--no-input'], { env: emu.env() });
    expect(b.stderr).toContain(`item 1: ${CAPTION_MESSAGE}\n`);
    expect(p.stderr).toContain(`Error: ${CAPTION_MESSAGE}\n`);
    expect([b.code, p.code]).toEqual([2, 2]);
    expect(await writes()).toEqual([]);
  });

  it('10,000 emoji are 10,000 characters: the dry run takes them, as post does', async () => {
    const r = await runCli(['batch', manifest({ caption: '🎬'.repeat(10_000) }), '--dry-run'], { env: emu.env() });
    expect(r.stderr).not.toMatch(/characters; the service takes at most/);
    expect(r.code).toBe(0);
  });
});

describe('the other rules post holds, held by batch too', () => {
  it('an option value over 1,000 characters: exit 2 naming the option, nothing written', async () => {
    const r = await runCli(['batch', manifest({ caption: 'x', options: { title: 't'.repeat(1001) } }), '--dry-run'], { env: emu.env() });
    expect(r.stderr).toContain('item 1: the value of option title has 1,001 characters; the service takes at most 1,000\n');
    expect(r.code).toBe(2);
    expect(await writes()).toEqual([]);
  });

  it('a caption_file over 100,000 bytes: exit 2 in the words post uses for --caption-file', async () => {
    const path = manifest({ caption_file: 'big.txt' }, { 'big.txt': 'x'.repeat(100_001) });
    const r = await runCli(['batch', path, '--dry-run'], { env: emu.env() });
    expect(r.stderr).toContain('item 1: caption_file big.txt is longer than 100,000 bytes\n');
    expect(r.code).toBe(2);
    const p = await runCli(['post', CLIP, '--to', 'youtube', '--caption-file', join(path, '..', 'big.txt'), '--no-input'], { env: emu.env() });
    expect(p.stderr).toMatch(/Error: --caption-file \S+big\.txt is longer than 100,000 bytes\n/);
    expect(p.code).toBe(2);
  });

  it('a caption on stdin over 100,000 bytes, and a manifest on stdin over 10,000,000: exit 2, nothing sent', async () => {
    const caption = await runCli(['post', CLIP, '--to', 'youtube', '--caption-file', '-', '--no-input'], { env: emu.env(), stdin: 'x'.repeat(100_001) });
    expect(caption.stderr).toContain('Error: the caption on stdin is longer than 100,000 bytes\n');
    expect(caption.code).toBe(2);
    const items = await runCli(['batch', '-', '--format', 'jsonl', '--dry-run'], { env: emu.env(), stdin: 'x'.repeat(10_000_001) });
    expect(items.stderr).toContain('Error: the manifest on stdin is longer than 10,000,000 bytes\n');
    expect(items.code).toBe(2);
    expect(await apiRequests()).toEqual([]);
  });
});

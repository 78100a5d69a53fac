import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, truncateSync, copyFileSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkVideoFile, sniffContainer } from '../../src/media/check.js';
import { UsageError } from '../../src/errors.js';
import { BIN, ensureBuilt } from '../support/build.js';
import { expectError } from '../support/errors.js';
import { missing } from '../support/tools.js';

const dir = mkdtempSync(join(tmpdir(), 'vidpub-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => join(__dirname, '..', 'fixtures', name);

function file(name: string, content: Buffer | string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

function box(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(8 + payload.length, 0);
  h.write(type, 4, 'latin1');
  return Buffer.concat([h, payload]);
}

function ftyp(brand: string): Buffer {
  return box('ftyp', Buffer.concat([Buffer.from(brand, 'latin1'), Buffer.alloc(4), Buffer.from('isom', 'latin1')]));
}

function ts(packet: number, count: number, offset = 0): Buffer {
  const b = Buffer.alloc(packet * count);
  for (let i = 0; i < count; i++) b[i * packet + offset] = 0x47;
  return b;
}

async function usageError(path: string): Promise<UsageError> {
  const err = await expectError(UsageError, () => checkVideoFile(path));
  expect(err.exitCode).toBe(2);
  return err;
}

describe('checkVideoFile', () => {
  it('accepts the MP4 and WebM fixtures with their content types and sizes', async () => {
    await expect(checkVideoFile(fixture('clip.mp4'))).resolves.toMatchObject({ filename: 'clip.mp4', contentType: 'video/mp4', size: 13734 });
    await expect(checkVideoFile(fixture('clip.webm'))).resolves.toMatchObject({ filename: 'clip.webm', contentType: 'video/webm', size: 6656 });
  });

  it('resolves a relative path against the given cwd', async () => {
    const r = await checkVideoFile('clip.mp4', join(__dirname, '..', 'fixtures'));
    expect(r.path).toBe(fixture('clip.mp4'));
  });

  it('recognises MOV (ftyp qt, or a leading moov/mdat/wide atom), AVI, and MTS with 188- and 192-byte packets', async () => {
    await expect(checkVideoFile(file('a.mov', Buffer.concat([ftyp('qt  '), Buffer.alloc(100)])))).resolves.toMatchObject({ contentType: 'video/quicktime' });
    await expect(checkVideoFile(file('b.mov', Buffer.concat([box('wide'), box('mdat', Buffer.alloc(50))])))).resolves.toMatchObject({ contentType: 'video/quicktime' });
    await expect(checkVideoFile(file('c.mov', Buffer.concat([box('moov', Buffer.alloc(50))])))).resolves.toMatchObject({ contentType: 'video/quicktime' });
    // an .mp4 whose brand is QuickTime: the content type follows the content
    await expect(checkVideoFile(file('d.mp4', Buffer.concat([ftyp('qt  '), Buffer.alloc(100)])))).resolves.toMatchObject({ contentType: 'video/quicktime' });
    await expect(checkVideoFile(file('e.m4v', Buffer.concat([ftyp('M4V '), Buffer.alloc(100)])))).resolves.toMatchObject({ contentType: 'video/mp4' });
    const avi = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('AVI LIST'), Buffer.alloc(100)]);
    await expect(checkVideoFile(file('f.avi', avi))).resolves.toMatchObject({ contentType: 'video/x-msvideo' });
    await expect(checkVideoFile(file('g.mts', ts(188, 5)))).resolves.toMatchObject({ contentType: 'video/mp2t' });
    await expect(checkVideoFile(file('h.m2ts', ts(192, 5, 4)))).resolves.toMatchObject({ contentType: 'video/mp2t' });
  });

  it('refuses a missing file', async () => {
    expect((await usageError(join(dir, 'nope.mp4'))).message).toMatch(/nope\.mp4: no such file/);
  });

  it('refuses a directory', async () => {
    const d = join(dir, 'folder.mp4');
    mkdirSync(d, { recursive: true });
    expect((await usageError(d)).message).toMatch(/is a directory, not a regular file/);
  });

  it('refuses an empty file', async () => {
    expect((await usageError(file('empty.mp4', ''))).message).toMatch(/is empty \(0 bytes\)/);
  });

  it('refuses 1 GB + 1 byte (a sparse file), and accepts exactly 1 GB', async () => {
    const big = file('big.mp4', ftyp('isom'));
    truncateSync(big, 1_000_000_001);
    expect((await usageError(big)).message).toMatch(/too large: 1,000,000,001 bytes; the service accepts at most 1 GB/);
    truncateSync(big, 1_000_000_000);
    await expect(checkVideoFile(big)).resolves.toMatchObject({ size: 1_000_000_000 });
  });

  it('refuses an unsupported extension and a missing one', async () => {
    expect((await usageError(file('notes.txt', 'hello'))).message).toMatch(/unsupported file type "\.txt"; the service accepts MP4, MOV, WebM, AVI or MTS/);
    expect((await usageError(file('video', 'hello'))).message).toMatch(/has no file extension/);
    expect((await usageError(file('clip.mkv', Buffer.from([0x1a, 0x45, 0xdf, 0xa3])))).message).toMatch(/unsupported file type "\.mkv"/);
  });

  it('refuses an extension that lies about the content', async () => {
    const webmAsMp4 = join(dir, 'webm.mp4');
    copyFileSync(fixture('clip.webm'), webmAsMp4);
    expect((await usageError(webmAsMp4)).message).toMatch(/webm\.mp4 is named \.mp4 but contains WebM data/);
    expect((await usageError(file('text.mp4', 'just some text\n'))).message).toMatch(/is named \.mp4 but contains text/);
    const mp4AsAvi = join(dir, 'mp4.avi');
    copyFileSync(fixture('clip.mp4'), mp4AsAvi);
    expect((await usageError(mp4AsAvi)).message).toMatch(/is named \.avi but contains MP4\/MOV data/);
    expect((await usageError(file('page.webm', '<!DOCTYPE html><html></html>'))).message).toMatch(/contains an HTML page/);
    expect((await usageError(file('noise.mts', Buffer.from([0x47, 1, 2, 3, 0xff, 0, 0, 0x80, ...Array(400).fill(7)])))).message).toMatch(/does not look like MPEG transport stream/);
  });

  it.skipIf(process.getuid?.() === 0 && missing('setpriv'))('refuses a file it cannot read', async () => {
    const p = file('secret.mp4', ftyp('isom'));
    chmodSync(p, 0o000);
    if (process.getuid?.() !== 0) {
      expect((await usageError(p)).message).toMatch(/cannot be read: permission denied/);
      return;
    }
    // Root reads any file (as CI runs): the built vidpub checks it as root without the
    // capabilities that bypass file permissions, before any request.
    ensureBuilt();
    const r = spawnSync('setpriv', ['--bounding-set=-dac_override,-dac_read_search', process.execPath, BIN, 'upload', p, '--no-input'], {
      encoding: 'utf8',
      env: { ...process.env, VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_API_KEY: 'vp_live_unused', VIDPUB_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toMatch(/cannot be read: permission denied/);
    expect(r.status).toBe(2);
  });
});

describe('sniffContainer', () => {
  it('needs two sync bytes before calling something a transport stream', () => {
    expect(sniffContainer(Buffer.concat([Buffer.from([0x47]), Buffer.alloc(300)]))).toBeUndefined();
    expect(sniffContainer(ts(188, 2))).toEqual({ container: 'mpegts' });
  });
  it('returns the ftyp brand', () => {
    expect(sniffContainer(ftyp('isom'))).toEqual({ container: 'isobmff', brand: 'isom' });
  });
});

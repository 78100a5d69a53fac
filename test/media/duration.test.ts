import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMvhd, readDurationSec } from '../../src/media/mp4-duration.js';

const dir = mkdtempSync(join(tmpdir(), 'vidpub-duration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => join(__dirname, '..', 'fixtures', name);

function box(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(8 + payload.length, 0);
  h.write(type, 4, 'latin1');
  return Buffer.concat([h, payload]);
}

/** A box with a 64-bit size (size field 1). */
function largeBox(type: string, payload: Buffer): Buffer {
  const h = Buffer.alloc(16);
  h.writeUInt32BE(1, 0);
  h.write(type, 4, 'latin1');
  h.writeBigUInt64BE(BigInt(16 + payload.length), 8);
  return Buffer.concat([h, payload]);
}

function mvhdV0(timescale: number, duration: number): Buffer {
  const p = Buffer.alloc(100);
  p.writeUInt32BE(0, 0); // version 0, flags
  p.writeUInt32BE(timescale, 12);
  p.writeUInt32BE(duration, 16);
  return box('mvhd', p);
}

function mvhdV1(timescale: number, duration: bigint): Buffer {
  const p = Buffer.alloc(112);
  p[0] = 1;
  p.writeUInt32BE(timescale, 20);
  p.writeBigUInt64BE(duration, 24);
  return box('mvhd', p);
}

const ftyp = box('ftyp', Buffer.from('isom\0\0\0\0isom', 'latin1'));

function write(name: string, ...parts: Buffer[]): string {
  const p = join(dir, name);
  writeFileSync(p, Buffer.concat(parts));
  return p;
}

describe('readDurationSec', () => {
  it('reads the fixtures: clip.mp4 is 2 s, long.mp4 is 700 s (its moov box is at the end)', async () => {
    expect(await readDurationSec(fixture('clip.mp4'))).toBeCloseTo(2, 1);
    expect(await readDurationSec(fixture('long.mp4'))).toBeCloseTo(700, 0);
  });

  it('reads version 0 and version 1 movie headers, after other boxes in moov', async () => {
    const v0 = write('v0.mp4', ftyp, box('mdat', Buffer.alloc(1000)), box('moov', Buffer.concat([box('udta', Buffer.alloc(20)), mvhdV0(600, 600 * 42)])));
    expect(await readDurationSec(v0)).toBe(42);
    const v1 = write('v1.mov', ftyp, box('moov', mvhdV1(1000, 3_600_000n)));
    expect(await readDurationSec(v1)).toBe(3600);
  });

  it('walks a box with a 64-bit size', async () => {
    const p = write('large.mp4', ftyp, largeBox('mdat', Buffer.alloc(500)), box('moov', mvhdV0(10, 55)));
    expect(await readDurationSec(p)).toBe(5.5);
  });

  it('returns undefined for WebM, a file without moov, a truncated box, or an unknown duration', async () => {
    expect(await readDurationSec(fixture('clip.webm'))).toBeUndefined();
    expect(await readDurationSec(write('nomoov.mp4', ftyp, box('mdat', Buffer.alloc(10))))).toBeUndefined();
    const truncated = Buffer.concat([ftyp, box('moov', mvhdV0(600, 1200))]).subarray(0, 50);
    expect(await readDurationSec(write('truncated.mp4', truncated))).toBeUndefined();
    expect(await readDurationSec(write('unknown.mp4', ftyp, box('moov', mvhdV0(600, 0xffffffff))))).toBeUndefined();
    expect(await readDurationSec(write('zero-scale.mp4', ftyp, box('moov', mvhdV0(0, 10))))).toBeUndefined();
    expect(await readDurationSec(join(dir, 'missing.mp4'))).toBeUndefined();
  });
});

describe('parseMvhd', () => {
  it('refuses an unknown version or a short payload', () => {
    expect(parseMvhd(Buffer.from([2, 0, 0, 0]))).toBeUndefined();
    expect(parseMvhd(Buffer.alloc(10))).toBeUndefined();
  });
});

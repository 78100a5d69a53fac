/** The bytes kept for the web app's player stay bounded: by size, by count, and a file too large is not kept. */
import { describe, expect, it } from 'vitest';
import { PLAYABLE_MAX_BYTES, PLAYABLE_TOTAL_BYTES, PLAYABLE_VIDEOS, VideoBytes } from '../../src/emulator/video-store.js';

describe('VideoBytes', () => {
  it('keeps at most 64 MiB a video, 192 MiB (uploads in flight included) and 100 videos in all', () => {
    expect([PLAYABLE_MAX_BYTES, PLAYABLE_TOTAL_BYTES, PLAYABLE_VIDEOS]).toEqual([64 * 1024 * 1024, 192 * 1024 * 1024, 100]);
  });

  it('drops the oldest beyond the total size', () => {
    const v = new VideoBytes(10, 100);
    v.keep('a', Buffer.alloc(4));
    v.keep('b', Buffer.alloc(4));
    v.keep('c', Buffer.alloc(4));
    expect([v.get('a'), v.get('b')?.length, v.get('c')?.length]).toEqual([undefined, 4, 4]);
    v.keep('big', Buffer.alloc(11));
    expect(v.get('big')).toBeUndefined();
  });

  it('drops the oldest beyond the count, however small they are', () => {
    const v = new VideoBytes(1_000_000, 3);
    for (const id of ['a', 'b', 'c', 'd', 'e']) v.keep(id, Buffer.alloc(16));
    expect(['a', 'b', 'c', 'd', 'e'].map((id) => v.get(id) !== undefined)).toEqual([false, false, true, true, true]);
    v.clear();
    expect(v.get('e')).toBeUndefined();
  });
});

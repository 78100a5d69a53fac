/**
 * The post rules on their own (src/core/post-rules.ts): what post, batch,
 * publish, retry and the MCP tools all ask before sending.
 */
import { describe, expect, it } from 'vitest';
import {
  captionFileRefusal,
  captionRefusal,
  maxDurationOf,
  optionValueRefusal,
  postRefusal,
  publishAtRefusal,
  tooLongFor,
} from '../../src/core/post-rules.js';
import { MAX_CAPTION_CHARS, serviceChars } from '../../src/contract/service-rules.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const dest = (fromOptions: number | null | undefined, fromLimits: number | null | undefined) => ({
  options: { max_duration_sec: fromOptions },
  destination: { video_limits: { max_duration_sec: fromLimits } },
});

describe('caption', () => {
  it('counts code points, as the service does: an emoji is one character', () => {
    expect(serviceChars('🎬é')).toBe(2);
    expect(captionRefusal('🎬'.repeat(MAX_CAPTION_CHARS))).toBeUndefined();
    expect(captionRefusal(undefined)).toBeUndefined();
    expect(captionRefusal('é'.repeat(10_001))).toEqual({
      message: 'the caption has 10,001 characters; the service takes at most 10,000',
      hint: 'Shorten it; nothing was uploaded or posted.',
    });
  });

  it('a caption file over 100,000 bytes, named as the caller names it', () => {
    expect(captionFileRefusal(100_000, '--caption-file c.txt')).toBeUndefined();
    expect(captionFileRefusal(100_001, 'caption_file c.txt')?.message).toBe('caption_file c.txt is longer than 100,000 bytes');
  });
});

describe('option values', () => {
  it('a string over 1,000 characters; other values pass', () => {
    expect(optionValueRefusal('title', 't'.repeat(1000))).toBeUndefined();
    expect(optionValueRefusal('title', true)).toBeUndefined();
    expect(optionValueRefusal('title', 't'.repeat(1001))?.message).toBe('the value of --option title has 1,001 characters; the service takes at most 1,000');
    expect(optionValueRefusal('title', 't'.repeat(1001), 'option')?.message).toMatch(/^the value of option title has/);
  });
});

describe('duration', () => {
  it("the destination's options first, then its video limits; 0 or null is no limit", () => {
    expect(maxDurationOf(dest(600, 3600))).toBe(600);
    expect(maxDurationOf(dest(null, 3600))).toBe(3600);
    expect(maxDurationOf(dest(0, null))).toBeUndefined();
  });

  it('tooLongFor lists the destinations a video is too long for, each with its maximum', () => {
    const short = dest(60, null);
    const long = dest(null, 3600);
    expect(tooLongFor(90, [short, long])).toEqual([{ destination: short, maxSec: 60 }]);
    expect(tooLongFor(undefined, [short])).toEqual([]);
    expect(tooLongFor(Number.NaN, [short])).toEqual([]);
  });
});

describe('publish_at', () => {
  it('past or beyond 365 days: refused; now, in range, or no time with an offset: left alone', () => {
    expect(publishAtRefusal('now', NOW)).toBeUndefined();
    expect(publishAtRefusal('2026-06-02T09:00:00+02:00', NOW)).toBeUndefined();
    expect(publishAtRefusal('2026-06-02T09:00:00', NOW)).toBeUndefined(); // no offset: the service's to refuse
    expect(publishAtRefusal('2026-05-01T09:00:00Z', NOW)?.message).toBe('the time 2026-05-01T09:00:00Z for publish_at is in the past');
    expect(publishAtRefusal('2027-06-02T12:00:00Z', NOW, '--at')?.message).toBe(
      'the time 2027-06-02T12:00:00Z for --at is more than 365 days ahead; the service schedules at most 365 days ahead',
    );
  });

  it('postRefusal: the first of caption, option values, time', () => {
    expect(postRefusal({ caption: 'ok', destinations: [{ options: { privacy: 'SELF_ONLY' } }], publish_at: 'now' }, NOW)).toBeUndefined();
    expect(postRefusal({ caption: 'x'.repeat(10_001), publish_at: '2001-01-01T00:00:00Z' }, NOW)?.message).toMatch(/^the caption has 10,001/);
    expect(postRefusal({ destinations: [{}, { options: { title: 't'.repeat(1001) } }] }, NOW)?.message).toMatch(/^the value of option title/);
    expect(postRefusal({ publish_at: '2001-01-01T00:00:00Z' }, NOW)?.message).toMatch(/is in the past$/);
  });
});

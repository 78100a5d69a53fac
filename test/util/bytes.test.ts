/** The one way byte counts are shown (src/util/bytes.ts), decimal as the service states its limits. */
import { describe, expect, it } from 'vitest';
import { exactBytes, formatMB, formatSize } from '../../src/util/bytes.js';
import { fileTooLargeWords } from '../../src/contract/service-rules.js';

describe('byte counts for people', () => {
  it('a size: B, kB, MB, GB at each boundary', () => {
    expect([999, 1000, 820_000, 999_999, 1_000_000, 12_345_678, 1e9, 1_234_567_890].map(formatSize)).toEqual([
      '999 B', '1.0 kB', '820.0 kB', '1000.0 kB', '1.0 MB', '12.3 MB', '1.00 GB', '1.23 GB',
    ]);
  });
  it('MB for a progress line: three figures at most', () => {
    expect([520_000, 12_345_678, 820_400_000].map(formatMB)).toEqual(['0.52', '12.3', '820']);
  });
  it('an exact count, with separators, as the limit words use it', () => {
    expect(exactBytes(1_048_576)).toBe('1,048,576 bytes');
    expect(fileTooLargeWords(1_000_000_001)).toBe('1,000,000,001 bytes; the service accepts at most 1 GB (1,000,000,000 bytes)');
  });
});

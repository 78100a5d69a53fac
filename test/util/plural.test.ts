import { describe, expect, it } from 'vitest';
import { counted } from '../../src/util/plural.js';

describe('counted', () => {
  it('one is singular ("1 post", never "1 posts"); any other count plural; a count not given is "?"', () => {
    expect(counted(1, 'post')).toBe('1 post');
    expect(counted(0, 'post')).toBe('0 posts');
    expect(counted(2, 'video')).toBe('2 videos');
    expect(counted(undefined, 'post')).toBe('? posts');
    expect(counted(1, 'category', 'categories')).toBe('1 category');
  });
});

import { describe, expect, it } from 'vitest';
import { checkImportFilename, checkImportUrl } from '../../src/media/import-url.js';
import { UsageError } from '../../src/errors.js';
import { expectError } from '../support/errors.js';

const refused = (fn: () => unknown): UsageError => expectError(UsageError, fn);

describe('checkImportUrl', () => {
  it('accepts https links straight to a supported file, whatever the case or query', () => {
    expect(checkImportUrl('https://cdn.example.com/v/Launch.MP4?token=abc')).toEqual({ url: 'https://cdn.example.com/v/Launch.MP4?token=abc', filename: 'Launch.MP4' });
    expect(checkImportUrl('https://cdn.example.com/my%20clip.mov').filename).toBe('my clip.mov');
    for (const ext of ['webm', 'avi', 'mts', 'm2ts', 'm4v']) expect(checkImportUrl(`https://x.example/a.${ext}`).filename).toBe(`a.${ext}`);
    expect(checkImportUrl('https://www.dropbox.com/s/abc/clip.mp4?dl=1').filename).toBe('clip.mp4');
  });

  it('refuses http, other schemes and things that are not links', () => {
    const e = refused(() => checkImportUrl('http://cdn.example.com/a.mp4'));
    expect(e.message).toMatch(/must use https, not http/);
    expect(e.hint).toMatch(/only downloads over https/);
    expect(refused(() => checkImportUrl('ftp://cdn.example.com/a.mp4')).message).toMatch(/must use https, not ftp/);
    expect(refused(() => checkImportUrl('clip.mp4')).message).toMatch(/is not a link/);
  });

  it('refuses a link to a page with the contract explanation', () => {
    for (const url of ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'https://example.com/videos/launch', 'https://example.com/watch.html', 'https://example.com/']) {
      const e = refused(() => checkImportUrl(url));
      expect(e.message).toMatch(/points to a page, not a video file/);
      expect(e.hint).toMatch(/direct link to the video file itself .*not a page that plays it/);
    }
    expect(refused(() => checkImportUrl('https://example.com/doc.pdf')).message).toMatch(/points to a \.pdf file, not MP4, MOV, WebM, AVI or MTS video/);
    const dropbox = refused(() => checkImportUrl('https://www.dropbox.com/s/abc/clip.mp4?dl=0'));
    expect(dropbox.message).toMatch(/Dropbox page/);
    expect(dropbox.hint).toMatch(/\?dl=1/);
  });

  it('refuses credentials in the link', () => {
    expect(refused(() => checkImportUrl('https://user:pw@cdn.example.com/a.mp4')).message).toMatch(/must not carry a user name or password/);
  });
});

describe('checkImportFilename', () => {
  it('accepts a plain name and refuses paths, empty names and control characters', () => {
    expect(checkImportFilename(' launch.mp4 ')).toBe('launch.mp4');
    expect(refused(() => checkImportFilename('a/b.mp4')).message).toMatch(/must be a file name, not a path/);
    expect(refused(() => checkImportFilename('  ')).message).toMatch(/must not be empty/);
    expect(refused(() => checkImportFilename('a\u0007.mp4')).message).toMatch(/control characters/);
    expect(refused(() => checkImportFilename('x'.repeat(256))).message).toMatch(/at most 255/);
  });
});

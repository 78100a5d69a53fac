/**
 * The cache file itself (src/cache/key-cache.ts), the durations a wait
 * remembers (src/api/wait/work-timer.ts), which refusals of a post mean "what was
 * cached changed", and the cache directory's rule, shared with the bundle's
 * code cache (bin/compile-cache.js).
 */
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyCache } from '../../src/cache/key-cache.js';
import { WorkTimer, learnDuration } from '../../src/api/wait/work-timer.js';
import { BlockedError, NotFoundError, UsageError, VidpubError } from '../../src/errors.js';
import { suggestsChangedDestinations } from '../../src/posts/post/send.js';
import { cacheDir } from '../../src/util/xdg.js';

let dir: string;
let now = 1_000_000;
const clock = () => now;
const open = (keyId = 'abc123', baseUrl = 'http://127.0.0.1:1/v1') => new KeyCache({ dir, baseUrl, keyId, now: clock });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vidpub-keycache-'));
  now = 1_000_000;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('KeyCache', () => {
  it('gives back what was stored while it is young enough, across instances (runs)', async () => {
    const a = open();
    await a.set('destinations', [{ id: 'dst_1' }]);
    await a.close();
    now += 5_000;
    expect(await open().get('destinations', 10_000)).toEqual({ value: [{ id: 'dst_1' }], at: 1_000_000 });
    now += 6_000;
    expect(await open().get('destinations', 10_000)).toBeUndefined();
  });

  it('does not trust an entry from the future (a clock set back)', async () => {
    now = 5_000_000;
    await open().set('x', 1);
    now = 1_000_000;
    expect(await open().get('x', 10 * 60_000)).toBeUndefined();
  });

  it('keeps keys and base URLs apart, and a file naming another one is not read', async () => {
    await open('key-a').set('x', 'a');
    await open('key-b').set('x', 'b');
    await open('key-a', 'http://other/v1').set('x', 'c');
    expect((await open('key-a').get('x', 1000))?.value).toBe('a');
    expect((await open('key-b').get('x', 1000))?.value).toBe('b');
    expect((await open('key-a', 'http://other/v1').get('x', 1000))?.value).toBe('c');
    // A file copied over another one's name is ignored.
    writeFileSync(open('key-b').file, readFileSync(open('key-a').file));
    expect(await open('key-b').get('x', 1000)).toBeUndefined();
  });

  it('merges its changes into what another process wrote meanwhile', async () => {
    const a = open();
    const b = open();
    expect(await a.get('one', 1000)).toBeUndefined(); // a has read the (empty) file
    await b.set('two', 2);
    await a.set('one', 1);
    const c = open();
    expect((await c.get('one', 1000))?.value).toBe(1);
    expect((await c.get('two', 1000))?.value).toBe(2);
  });

  it('rereads the disk for an entry another process stored since (when asked), and drops expired entries as it stores', async () => {
    const a = open();
    const b = open();
    expect(await a.get('post:p1', 1000)).toBeUndefined(); // a has read the (empty) file
    await b.set('post:p1', { id: 'p1' });
    expect(await a.get('post:p1', 1000)).toBeUndefined();
    expect((await a.get('post:p1', 1000, { reread: true }))?.value).toEqual({ id: 'p1' });
    now += 2_000;
    await b.set('post:p2', { id: 'p2' }, (n, age) => n.startsWith('post:') && age > 1_000);
    await b.set('workspace', { id: 'ws' }, (n, age) => n.startsWith('post:') && age > 1_000);
    const c = open();
    expect(await c.get('post:p1', 10_000)).toBeUndefined();
    expect((await c.get('post:p2', 10_000))?.value).toEqual({ id: 'p2' });
  });

  it('forgets what matches, here and on disk', async () => {
    const a = open();
    await a.set('destinations', []);
    await a.set('options:dst_1', {});
    await a.set('workspace', { id: 'ws' });
    await a.forget((n) => n === 'destinations' || n.startsWith('options:'));
    expect(await a.get('options:dst_1', 1000)).toBeUndefined();
    const b = open();
    expect(await b.get('destinations', 1000)).toBeUndefined();
    expect((await b.get('workspace', 1000))?.value).toEqual({ id: 'ws' });
  });

  it('reads garbage, another version or another shape as empty, and writes over it', async () => {
    for (const text of ['', 'not json', '[]', 'null', '{"v":2,"base_url":"http://127.0.0.1:1/v1","key":"abc123","entries":{"x":{"at":1000000,"value":1}}}', '{"v":1,"base_url":"http://127.0.0.1:1/v1","key":"abc123","entries":{"x":{"value":1}}}']) {
      const a = open();
      await a.set('y', 0); // makes the directory
      writeFileSync(a.file, text);
      const b = open();
      expect(await b.get('x', 1000)).toBeUndefined();
      await b.set('x', 2);
      expect((await open().get('x', 1000))?.value).toBe(2);
    }
  });

  it('hands out copies: changing a value read does not change the cache', async () => {
    const a = open();
    await a.set('list', [1, 2]);
    const got = await a.get<number[]>('list', 1000);
    got!.value.push(3);
    expect((await a.get('list', 1000))?.value).toEqual([1, 2]);
  });
});

describe('learnDuration', () => {
  it('without a previous value: 3/4 of the way from the last look that saw it unfinished to the one that saw it done', () => {
    expect(learnDuration(undefined, { startedAt: 0, lastUnfinishedAt: 1000, finishedAt: 2500 })).toBe(2125);
    expect(learnDuration(undefined, { startedAt: 0, finishedAt: 1000 })).toBe(750);
  });

  it('when the look at the expected end found it done: a little less than before (0.5%, at least 10 ms: follows a faster service)', () => {
    expect(learnDuration(2000, { startedAt: 0, finishedAt: 2060 })).toBe(1990);
    expect(learnDuration(100, { startedAt: 0, finishedAt: 160 })).toBe(90);
    expect(learnDuration(60_000, { startedAt: 0, finishedAt: 60_060 })).toBe(59_700);
    // done much sooner than expected: the look itself bounds it
    expect(learnDuration(2000, { startedAt: 0, finishedAt: 500 })).toBe(490);
  });

  it('when it was not done at the expected end: a quarter of the way into the span of the late looks', () => {
    expect(learnDuration(2000, { startedAt: 0, lastUnfinishedAt: 2060, finishedAt: 2160 })).toBe(2085);
    expect(learnDuration(2000, { startedAt: 0, lastUnfinishedAt: 2435, finishedAt: 2773 })).toBe(2520);
  });

  it('a WorkTimer says when to look from what was remembered, only for a video of about the same size', async () => {
    const memory = open();
    const t1 = await WorkTimer.start(memory, 'media:processing', 0, 1000);
    expect(t1.expectedEndAt).toBeUndefined();
    t1.seen(1000, false);
    t1.seen(3000, true);
    await t1.remember();
    expect((await WorkTimer.start(memory, 'media:processing', 10_000, 1500)).expectedEndAt).toBe(10_000 + 2500);
    expect((await WorkTimer.start(memory, 'media:processing', 10_000, 2500)).expectedEndAt).toBeUndefined();
    expect((await WorkTimer.start(memory, 'media:processing', 10_000, 400)).expectedEndAt).toBeUndefined();
    expect((await WorkTimer.start(undefined, 'media:processing', 10_000, 1000)).expectedEndAt).toBeUndefined();
  });
});

describe('suggestsChangedDestinations: which refusals of POST /posts mean the cached destinations or options changed', () => {
  const http = (status: number, code?: string, param?: string, body?: unknown) => ({ status, method: 'POST', path: '/v1/posts', code, param, body });
  it('yes: a destination not found, an option key or type refused, issues about a destination or an option', () => {
    expect(suggestsChangedDestinations(new NotFoundError('x', { http: http(404, 'not_found', 'destinations[0].destination_id') }))).toBe(true);
    expect(suggestsChangedDestinations(new UsageError('x', { http: http(400, 'unknown_option', 'destinations[0].options.privacy') }))).toBe(true);
    expect(suggestsChangedDestinations(new UsageError('x', { http: http(400, 'invalid_option_value') }))).toBe(true);
    expect(suggestsChangedDestinations(new VidpubError('x', { http: http(409, 'destination_inactive') }))).toBe(true);
    const issues = [{ severity: 'error', code: 'option_value_not_allowed', destination_id: 'dst_1', option: 'visibility' }];
    expect(suggestsChangedDestinations(new BlockedError('x', { http: http(409, 'post_has_blocking_issues', undefined, { error: { issues } }) }))).toBe(true);
  });

  it('no: the video not found or failed, a caption refused, a limit, anything without an HTTP answer', () => {
    expect(suggestsChangedDestinations(new NotFoundError('x', { http: http(404, 'not_found', 'media_id') }))).toBe(false);
    const issues = [{ severity: 'error', code: 'media_failed' }, { severity: 'warning', code: 'caption_empty', destination_id: 'dst_1' }];
    expect(suggestsChangedDestinations(new BlockedError('x', { http: http(409, 'post_has_blocking_issues', undefined, { error: { issues } }) }))).toBe(false);
    expect(suggestsChangedDestinations(new UsageError('x', { http: http(400, 'invalid_field', 'caption') }))).toBe(false);
    expect(suggestsChangedDestinations(new VidpubError('x', { http: http(429, 'daily_post_limit') }))).toBe(false);
    expect(suggestsChangedDestinations(new UsageError('no request'))).toBe(false);
    expect(suggestsChangedDestinations(new Error('x'))).toBe(false);
  });
});

describe('the cache directory', () => {
  const require = createRequire(import.meta.url);
  const compileCache = require('../../bin/compile-cache.js') as { cacheDir(env: Record<string, string | undefined>): string | undefined };
  it('is chosen by the same rule as the code cache of the bundle', () => {
    for (const env of [
      { VIDPUB_CACHE_DIR: '/x/cache', XDG_CACHE_HOME: '/xdg', HOME: '/home/u' },
      { XDG_CACHE_HOME: '/xdg', HOME: '/home/u' },
      { XDG_CACHE_HOME: 'relative/cache', HOME: '/home/u' },
      { XDG_CACHE_HOME: ' ', HOME: '/home/u' },
      { HOME: '/home/u' },
      { USERPROFILE: 'C:/Users/u' },
      {},
    ]) {
      expect(cacheDir(env)).toBe(compileCache.cacheDir(env));
    }
    expect(cacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/vidpub');
    // a relative XDG path is invalid (the XDG spec): ignored, so the cache does not follow the current directory
    expect(cacheDir({ XDG_CACHE_HOME: 'relative/cache', HOME: '/home/u' })).toBe('/home/u/.cache/vidpub');
    expect(cacheDir({})).toBeUndefined();
  });
});

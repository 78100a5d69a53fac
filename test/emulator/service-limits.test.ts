/**
 * The table of the service's limits (test/support/service-limits.ts) against
 * the emulator over HTTP: a value at the limit is taken, one over is a 400 in
 * the words the client's check says too (test/commands/service-limits-bin.test.ts).
 * The emulator's clock stands still here, so "365 days ahead" is exact.
 */
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import type { Res } from '../support/rest.js';
import { LIMIT_CASES, limitCaseName, type LimitCase } from '../support/service-limits.js';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const emu = useEmulator({ now: () => NOW, processingMs: 20, publishMs: 20 });

/** The request a case makes: a draft post (caption, YouTube's title), a scheduled post, or an upload. */
function send(c: LimitCase): Promise<Res> {
  const post = (extra: Record<string, unknown>, options: Record<string, unknown> = {}) =>
    emu.api.post('/posts', { media_id: 'med_demo_sample', destinations: [{ destination_id: 'dst_demo_youtube', options }], ...extra });
  switch (c.rule) {
    case 'caption':
      return post({ caption: c.value });
    case 'option value':
      return post({ caption: 'x' }, { title: c.value });
    case 'schedule':
      return post({ caption: 'x', publish_at: new Date(NOW + (c.value as number)).toISOString() });
    case 'file size':
      return emu.api.post('/media/uploads', { filename: 'clip.mp4', size_bytes: c.value, content_type: 'video/mp4' });
  }
}

const REFUSAL: Record<LimitCase['rule'], { code: string; param: string }> = {
  caption: { code: 'invalid_field', param: 'caption' },
  'option value': { code: 'invalid_option_value', param: 'destinations[0].options.title' },
  schedule: { code: 'invalid_publish_at', param: 'publish_at' },
  'file size': { code: 'file_too_large', param: 'size_bytes' },
};

describe('the service limits, against the emulator over HTTP', () => {
  it('the table has cases where UTF-16 units and code points disagree', () => {
    for (const c of LIMIT_CASES) {
      if (c.utf16 !== undefined) expect((c.value as string).length).toBe(c.utf16);
    }
    expect(LIMIT_CASES.filter((c) => c.fits && c.utf16 !== undefined && c.rule === 'option value').length).toBeGreaterThan(0);
  });

  it.each(LIMIT_CASES.map((c) => [limitCaseName(c), c] as const))('%s', async (_name, c) => {
    const r = await send(c);
    if (c.fits) {
      expect(r.status, r.text).toBe(201);
      if (c.rule === 'caption') expect(r.body.caption).toBe(c.value);
      if (c.rule === 'option value') expect(r.body.destinations[0].options.title).toBe(c.value);
      if (c.rule === 'schedule') expect(r.body).toMatchObject({ status: 'scheduled', publish_at: new Date(NOW + (c.value as number)).toISOString() });
      if (c.rule === 'file size') expect(r.body.media).toMatchObject({ status: 'uploading', size_bytes: c.value });
      return;
    }
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request', ...REFUSAL[c.rule] });
    expect(r.body.error.message).toContain(c.words);
  });
});

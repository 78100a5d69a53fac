/**
 * Contract rules checked in an audit of the emulator against the service
 * contract, gaps.md and docs/api-notes.md: each test here failed before the
 * fix beside it.
 */
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();

describe('an id of any length on a known path', () => {
  it('an unknown id longer than 100 characters is a 404 not_found through the gate (counted, with rate-limit headers), its id cut in the message', async () => {
    const id = `post_${'a'.repeat(3000)}`;
    const r = await emu.api.get(`/posts/${id}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toEqual({
      type: 'not_found',
      code: 'not_found',
      message: `No post with id "${id.slice(0, 200)}…(+${id.length - 200} chars)" in this workspace.`,
    });
    expect(r.headers['x-ratelimit-limit']).toBe('60');
    expect(r.headers['x-ratelimit-remaining']).toBe('59');

    const media = await emu.api.get(`/media/med_${'b'.repeat(150)}`);
    expect(media.status).toBe(404);
    expect(media.body.error.message).toBe(`No video with id "med_${'b'.repeat(150)}" in this workspace.`);
    const publish = await emu.api.post(`/posts/${id}/publish`, { publish_at: 'now' });
    expect(publish.status).toBe(404);
    expect(publish.headers['x-ratelimit-limit']).toBe('20');
    const options = await emu.api.get(`/destinations/dst_${'c'.repeat(150)}/options`);
    expect(options.status).toBe(404);
    expect(options.body.error.code).toBe('not_found');
  });
});

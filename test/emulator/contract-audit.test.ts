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
    await emu.api.freshMinute(); // one minute window for the whole test
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

describe('a body the server cannot take still goes through the gate', () => {
  const big = `{"caption":"${'x'.repeat(1024 * 1024)}"}`;

  it('413 body_too_large with a valid key: counted as a write, with the rate-limit headers', async () => {
    await emu.api.freshMinute(); // one minute window for the whole test
    const r = await emu.api.call('POST', '/posts', { raw: big });
    expect(r.status).toBe(413);
    expect(r.body.error).toEqual({ type: 'invalid_request', code: 'body_too_large', message: 'The request body is larger than 1048576 bytes.' });
    expect(r.headers['x-ratelimit-limit']).toBe('20');
    expect(r.headers['x-ratelimit-remaining']).toBe('19');
    expect(r.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
  });

  it('authentication comes first: a bad key with a body too large is a 401, a read-only key a 403', async () => {
    const bad = await emu.api.call('POST', '/posts', { raw: big, key: 'vp_live_not_a_real_key_1234' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('invalid_key');
    expect(bad.headers['x-ratelimit-limit']).toBeUndefined();
    const readOnly = await emu.api.call('POST', '/media/uploads', { raw: big, key: emu.key('Demo', 'read') });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.code).toBe('read_only_key');
  });

  it('a malformed Content-Type with a valid key: 400 invalid_json with the rate-limit headers', async () => {
    await emu.api.freshMinute(); // one minute window for the whole test
    const r = await emu.api.call('POST', '/posts', { raw: '{}', headers: { 'content-type': ';;;' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_json');
    expect(r.headers['x-ratelimit-limit']).toBe('20');
    expect(r.headers['x-ratelimit-remaining']).toBe('19');
  });
});

describe('which faulted requests count against the per-minute allowance (README "Faults")', () => {
  it('status and reset_before_handling: not handled, not counted; delay, trickle and reset_after_handling: handled and counted', async () => {
    await emu.api.freshMinute(); // one minute window for the whole test
    await emu.api.fault([
      { method: 'GET', path: '/v1/me', action: 'status', status: 503 },
      { method: 'GET', path: '/v1/destinations', action: 'reset_before_handling' },
    ]);
    expect((await emu.api.get('/me')).status).toBe(503);
    await expect(emu.api.get('/destinations')).rejects.toThrow();
    const untouched = await emu.api.get('/me');
    expect(untouched.headers['x-ratelimit-remaining']).toBe('59');

    await emu.api.fault([
      { method: 'GET', path: '/v1/me', action: 'delay', ms: 1 },
      { method: 'GET', path: '/v1/me', action: 'trickle', ms: 1 },
      { method: 'GET', path: '/v1/destinations', action: 'reset_after_handling' },
    ]);
    expect((await emu.api.get('/me')).status).toBe(200);
    expect((await emu.api.get('/me')).status).toBe(200);
    await expect(emu.api.get('/destinations')).rejects.toThrow();
    const after = await emu.api.get('/me');
    expect(after.headers['x-ratelimit-remaining']).toBe('55');
  });
});

import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { KEYS } from '../support/rest.js';

const emu = useEmulator();
const auth = { authorization: `Bearer ${KEYS.demo_rw}` };

describe('request faults: hang and trickle', () => {
  it('hang: the request is never answered nor handled; the client gives up', async () => {
    await emu.api.fault({ method: 'GET', path: '/v1/destinations', action: 'hang' });
    const pending = request(`${emu.baseUrl}/destinations`, { headers: auth, signal: AbortSignal.timeout(300) });
    await expect(pending).rejects.toMatchObject({ name: expect.stringMatching(/AbortError|TimeoutError/) });
    const log = await emu.api.requests();
    expect(log[0]).toMatchObject({ method: 'GET', path: '/v1/destinations', status: 0, fault: 'hang' });
    // Once only: the next request is answered.
    expect((await request(`${emu.baseUrl}/destinations`, { headers: auth })).statusCode).toBe(200);
  });

  it('trickle: the real answer, its body one byte every ms', async () => {
    await emu.api.fault({ method: 'GET', path: '/v1/me', action: 'trickle', ms: 2 });
    const res = await request(`${emu.baseUrl}/me`, { headers: auth });
    expect(res.statusCode).toBe(200);
    const chunks: number[] = [];
    for await (const c of res.body) chunks.push((c as Buffer).length);
    const text = chunks.reduce((a, b) => a + b, 0);
    expect(chunks.length).toBeGreaterThan(10); // many small chunks, not one body
    expect(text).toBeGreaterThan(10);
  });

  it('trickle takes ms from 1 to 60000; hang takes no parameter', async () => {
    const bad = await emu.api.fault({ method: 'GET', path: '/v1/me', action: 'trickle', ms: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_field', param: 'ms' });
    const ok = await emu.api.fault({ method: 'PUT', path: '/_uploads/*', action: 'hang', times: 2 });
    expect(ok.status).toBe(201);
    expect(ok.body.added[0]).toMatchObject({ action: 'hang', times: 2 });
  });
});

/**
 * The test controls (/_emulator) are guarded like the web app beside them (webapp/guard.ts,
 * Guard.refuseControl), over raw HTTP with the headers a browser would send: a DNS-rebinding
 * Host gets nothing, not even the keys; a request that changes state and comes from a page of
 * another origin (or of none: Origin null, or only a Referer) is refused, and so is a body that
 * is not JSON; what programs send (no Origin, JSON or no body) is answered, --expose-controls or
 * not. A page in chromium trying the same is in test/webapp/guard.test.ts.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestEmulator, useEmulator, type TestEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

/** A raw HTTP request to `port`, with the headers exactly as given (Host included). */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...sized }, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const message = (text: string): string => (JSON.parse(text) as { error: { message: string } }).error.message;

/** What a control that ran would change: the posts, the faults, the clock. */
async function snapshot(e: TestEmulator): Promise<unknown> {
  const state = (await e.admin('GET', '/state')) as { offset_sec: number; workspaces: { post_ids: string[] }[] };
  return { clock: state.offset_sec, posts: state.workspaces.map((w) => w.post_ids), faults: await e.admin('GET', '/faults') };
}

/** A post and a fault the emulator holds, which a reset would wipe. */
async function someState(e: TestEmulator): Promise<void> {
  const post = await e.api.post('/posts', { media_id: 'med_demo_sample', caption: 'kept', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
  expect(post.status).toBe(201);
  await e.admin('POST', '/faults', { method: 'GET', path: '/v1/never', action: 'status', status: 503 });
}

describe('a request a browser sends for a page of another origin', () => {
  it('POST /_emulator/reset with Origin http://evil.example and text/plain: 403, the state intact', async () => {
    await someState(emu);
    const before = await snapshot(emu);
    const r = await raw(emu.port, 'POST', '/_emulator/reset', { origin: 'http://evil.example', 'content-type': 'text/plain' }, 'x');
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text)).toMatchObject({ error: { type: 'permission_error', code: 'control_refused' } });
    expect(message(r.text)).toBe(`The request came from a page of http://evil.example, not from a program: the test controls (http://127.0.0.1:${emu.port}/_emulator) take no request a web page sends.`);
    expect(await snapshot(emu)).toEqual(before);
  });

  it('every control that changes state, from another origin, from Origin null, or with only a foreign Referer: 403', async () => {
    await someState(emu);
    const before = await snapshot(emu);
    const json = { 'content-type': 'application/json' };
    const tries: [string, string, Record<string, string>, string | undefined][] = [
      ['POST', '/_emulator/clock', { ...json, origin: 'null' }, '{"advance_sec":3600}'],
      ['POST', '/_emulator/faults', { ...json, origin: 'http://localhost:9' }, '{"path":"/v1/me","action":"hang"}'],
      ['DELETE', '/_emulator/faults', { origin: 'http://evil.example' }, undefined],
      ['POST', '/_emulator/reset', { referer: 'http://evil.example/page.html' }, undefined],
      ['POST', '/_emulator/settings', { ...json, origin: 'https://evil.example' }, '{"publish_ms":1}'],
      ['DELETE', '/_emulator/requests', { origin: 'http://evil.example' }, undefined],
      ['POST', '/_emulator/destinations/dst_demo_linkedin', { ...json, origin: 'http://evil.example' }, '{"status":"expired"}'],
    ];
    for (const [method, path, headers, body] of tries) {
      const r = await raw(emu.port, method, path, headers, body);
      expect([method, path, r.status]).toEqual([method, path, 403]);
      expect(message(r.text)).toMatch(/^The request came from (a page of \S+|a page with no origin of its own \(Origin: null\)), not from a program/);
    }
    expect(await snapshot(emu)).toEqual(before);
    expect((await emu.api.get('/destinations')).body.data.find((d: { id: string }) => d.id === 'dst_demo_linkedin').status).toBe('active');
  });

  it('a body that is not JSON is refused, whatever it holds (the kinds a page may send without asking: text, a form)', async () => {
    await someState(emu);
    const before = await snapshot(emu);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await raw(emu.port, 'POST', '/_emulator/clock', { 'content-type': type }, '{"advance_sec":3600}');
      expect([type, r.status]).toEqual([type, 403]);
      expect(message(r.text)).toBe(`A test control takes a JSON body ("Content-Type: application/json") or none; this request sent "${type.split(';')[0]}".`);
    }
    const untyped = await raw(emu.port, 'POST', '/_emulator/reset', {}, 'x');
    expect([untyped.status, message(untyped.text)]).toEqual([403, 'A test control takes a JSON body ("Content-Type: application/json") or none; this request sent a body without a Content-Type.']);
    expect(await snapshot(emu)).toEqual(before);
  });
});

describe('a DNS-rebinding Host name', () => {
  it('GET /_emulator with Host evil.example: 403, no key in the answer; every control likewise', async () => {
    for (const path of ['/_emulator', '/_emulator/state', '/_emulator/requests', '/_emulator/clock']) {
      const r = await raw(emu.port, 'GET', path, { host: `evil.example:${emu.port}` });
      expect([path, r.status]).toEqual([path, 403]);
      expect(message(r.text)).toBe(`The test controls answer only on this machine's own addresses (127.0.0.1, [::1], localhost); this request named the host "evil.example:${emu.port}".`);
      expect(r.text).not.toContain(emu.key());
    }
    const reset = await raw(emu.port, 'POST', '/_emulator/reset', { host: `evil.example:${emu.port}`, origin: `http://evil.example:${emu.port}`, 'content-type': 'application/json' }, '{}');
    expect(reset.status).toBe(403);
  });
});

describe('what programs send is answered', () => {
  it('its own addresses; no Origin with JSON or no body (curl, vidpub); its own origin too', async () => {
    for (const host of [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`, `[::1]:${emu.port}`]) {
      const r = await raw(emu.port, 'GET', '/_emulator', { host });
      expect([host, r.status]).toEqual([host, 200]);
      expect(r.text).toContain(emu.key());
    }
    expect((await raw(emu.port, 'POST', '/_emulator/clock', { 'content-type': 'application/json; charset=utf-8' }, '{"advance_sec":60}')).status).toBe(200);
    expect((await raw(emu.port, 'POST', '/_emulator/clock', { 'content-type': 'application/json', origin: `http://127.0.0.1:${emu.port}` }, '{"advance_sec":60}')).status).toBe(200);
    expect((await raw(emu.port, 'DELETE', '/_emulator/faults', {})).status).toBe(200);
    expect((await raw(emu.port, 'POST', '/_emulator/reset', {})).status).toBe(200);
  });

  it('--expose-controls opens the controls to other machines, not to web pages', async () => {
    const exposed = await startTestEmulator({ exposeControls: true });
    try {
      expect((await raw(exposed.port, 'GET', '/_emulator', {})).status).toBe(200);
      expect((await raw(exposed.port, 'GET', '/_emulator', { host: 'evil.example' })).status).toBe(403);
      expect((await raw(exposed.port, 'POST', '/_emulator/reset', { origin: 'http://evil.example' })).status).toBe(403);
      expect((await raw(exposed.port, 'POST', '/_emulator/reset', {})).status).toBe(200);
    } finally {
      await exposed.close();
    }
  });
});
